package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/internal/clock"
)

// TestORP_ClaimInABrowser claims a party the way its owner would: the
// agent's claim link opened in headless Chromium, the box ticked, the
// form sent. The browser, not the test, decides the Origin header the
// post carries, so this is where a referrer policy that makes it
// "Origin: null" would show as a refused claim.
func TestORP_ClaimInABrowser(t *testing.T) {
	j := startORP(t, t.TempDir(), "", clock.NewFixed(testNow)).joinUnclaimed()
	ctx := browsertest.New(t, browsertest.Desktop)
	browsertest.Do(t, ctx,
		chromedp.Navigate(j.Claim),
		chromedp.WaitVisible(`input[name="confirm"]`),
		chromedp.Click(`input[name="confirm"]`),
	)
	browsertest.Submit(t, ctx, `button[type="submit"]`)
	page := browsertest.Get(t, ctx, chromedp.Text("body"))
	if !strings.Contains(page, "You now own the party "+j.Party) || !strings.Contains(page, "own_") {
		t.Fatalf("after sending the claim form the page says %q", page)
	}
}
