package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/business"
	"frontdesk/internal/browsertest"
)

// TestStaffRefundsInABrowser: in headless Chromium at both widths, the
// owner reads a paid reservation's payment, which fits the screen and
// passes axe-core, refunds part of it with a reason, and the dashboard's
// money totals show the refund.
func TestStaffRefundsInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m, ref, _, _ := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "50.00"})
			addStaff(t, m)
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			staffSignIn(t, ctx, m, "olga", staffPassword, "/staff/reservations/"+ref)
			browsertest.Do(t, ctx, chromedp.WaitVisible("#refund-form"))
			if got := text("#pay-state"); got != "paid" {
				t.Fatalf("payment state %q", got)
			}
			if browsertest.Get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)) {
				t.Errorf("the paid reservation is wider than a %d-pixel screen", width)
			}
			browsertest.Accessible(t, ctx, repoRoot, "the paid reservation")
			browsertest.Screenshot(t, ctx, "staff-payment")
			browsertest.Do(t, ctx, chromedp.SetValue("#refund-amount", "12.50"), chromedp.SendKeys("#refund-note", "late check-in"))
			browsertest.Submit(t, ctx, "#act-refund")
			if got := text("#done"); !strings.HasPrefix(got, "Refund sent to the payment provider") {
				t.Fatalf("after the refund: %q", got)
			}
			if got := text("#pay-refunds"); !strings.Contains(got, "$12.50, manual refund, sent, by olga: late check-in") {
				t.Fatalf("refunds: %q", got)
			}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/?pay_from=2026-11-01&pay_to=2026-11-30"), chromedp.WaitVisible("#money"))
			if got := text("#money-refunded"); got != "$12.50" {
				t.Fatalf("refunded on the dashboard: %q", got)
			}
			browsertest.Accessible(t, ctx, repoRoot, "the dashboard's money totals")
		})
	}
}
