package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
)

// TestDepositPageInABrowser: the guest's page of a stay that takes a
// deposit shows what is due now and at the property and its pay button,
// fits a phone and a desktop and passes the accessibility checks.
func TestDepositPageInABrowser(t *testing.T) {
	api := stripemock.Start(t)
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			provider, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_browser"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: api})
			if err != nil {
				t.Fatal(err)
			}
			m := startPaid(t, provider)
			ctx := browsertest.New(t, width)
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"),
				chromedp.WaitVisible("#pad"), chromedp.SendKeys("#name", "Grace Hopper"), chromedp.SendKeys("#email", "grace@example.com"),
				chromedp.SendKeys("#phone", "(303) 555-0142"))
			sign(t, ctx)
			browsertest.Submit(t, ctx, "#send")
			browsertest.Do(t, ctx, chromedp.WaitVisible("#pay-now"))
			now := browsertest.Get(t, ctx, chromedp.Text("#due-now"))
			if later := browsertest.Get(t, ctx, chromedp.Text("#due-later")); !strings.HasPrefix(now, "$") || !strings.HasPrefix(later, "$") {
				t.Fatalf("due now %q, later %q", now, later)
			}
			if button := browsertest.Get(t, ctx, chromedp.Text("#pay-now")); button != "Pay "+now+" now" {
				t.Fatalf("the button says %q", button)
			}
			fits(t, ctx, "the deposit stay's page", width)
			browsertest.Accessible(t, ctx, repoRoot, "the deposit stay's page")
		})
	}
}
