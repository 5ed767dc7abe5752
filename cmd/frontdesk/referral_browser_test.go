package main

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/reservation"
)

// TestReferralDashboardInABrowser: the owner's partner section, with a
// payout to settle, fits a phone's screen, and settling it there marks
// the payout sent.
func TestReferralDashboardInABrowser(t *testing.T) {
	w := startReferral(t, "")
	ref := w.bookForm(grace, w.follow(), "")
	w.decide(ref, reservation.Confirmed)
	w.clock.Advance(25 * time.Hour)
	w.sweep()
	ctx := browsertest.New(t, browsertest.Phone)
	browsertest.Do(t, ctx, chromedp.Navigate(w.url+"/staff/signin?next="+url.QueryEscape("/staff/")), chromedp.WaitVisible("#username"),
		chromedp.SendKeys("#username", "olga"), chromedp.SendKeys("#password", staffPassword))
	browsertest.Submit(t, ctx, `button[type="submit"]`)
	browsertest.Do(t, ctx, chromedp.WaitVisible("#partners"))
	if browsertest.Get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)) {
		t.Errorf("the dashboard with partner bookings is wider than a %d-pixel screen", browsertest.Phone)
	}
	browsertest.Do(t, ctx, chromedp.SendKeys(`#partners input[name="ref"]`, "bank-0001"))
	browsertest.Submit(t, ctx, `#partners form.settle button[type="submit"]`)
	if got := browsertest.Get(t, ctx, chromedp.Text("#partners")); !strings.Contains(got, "sent (reference bank-0001)") {
		t.Fatalf("after settling: %q", got)
	}
}
