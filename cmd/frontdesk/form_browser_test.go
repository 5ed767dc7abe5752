package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
)

// TestBookingFormInABrowser fills the booking form in headless Chromium
// at desktop and phone widths: sent without a signature it comes back
// asking for one with the typed fields kept; signed on the pad with real
// pointer events it is saved as a request that holds no room.
func TestBookingFormInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			browsertest.Do(t, ctx,
				chromedp.Navigate(m.URL+"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"),
				chromedp.WaitVisible("#pad"),
				chromedp.SendKeys("#name", "Grace Hopper"),
				chromedp.SendKeys("#email", "grace@example.com"),
				chromedp.SendKeys("#phone", "(303) 555-0142"),
			)
			if overflow := browsertest.Get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); overflow {
				t.Errorf("the form is wider than a %d-pixel screen", width)
			}
			browsertest.Screenshot(t, ctx, "form")

			// Unsigned: refused, input kept.
			browsertest.Submit(t, ctx, `button[type="submit"]`)
			if got := browsertest.Get(t, ctx, chromedp.Text("#signature-problem")); got != "Sign in the box to agree to the guest agreement." {
				t.Fatalf("unsigned form says %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Value("#email")); got != "grace@example.com" {
				t.Fatalf("email after a refusal = %q", got)
			}
			browsertest.Screenshot(t, ctx, "form-unsigned")

			// Signed with the pointer.
			box := browsertest.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => { const p = document.getElementById("pad"); p.scrollIntoView({block: "center"}); const r = p.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`))
			x, y, w, h := box[0], box[1], box[2], box[3]
			steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x+w*0.1, y+h*0.6, chromedp.ButtonLeft)}
			for i := 1; i <= 30; i++ {
				fx := 0.1 + 0.8*float64(i)/30
				fy := 0.6 - 0.3*float64(i%6)/6
				steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x+w*fx, y+h*fy, chromedp.ButtonLeft))
			}
			steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x+w*0.9, y+h*0.5, chromedp.ButtonLeft))
			browsertest.Do(t, ctx, steps...)
			if sig := browsertest.Get(t, ctx, chromedp.Value("#signature")); !strings.HasPrefix(sig, "data:image/png;base64,") {
				t.Fatalf("the pad left no signature: %.40q", sig)
			}
			browsertest.Screenshot(t, ctx, "form-signed")
			browsertest.Submit(t, ctx, `button[type="submit"]`)
			page := browsertest.Get(t, ctx, chromedp.Text("main"))
			ref := sentRef.FindStringSubmatch(page)
			if ref == nil {
				t.Fatalf("sent page says %q", page)
			}
			browsertest.Screenshot(t, ctx, "form-sent")
			list, _, err := runCmd(t, "staff", "list", "--data", m.Config.Store.DataDir, "--state", "requested")
			if err != nil || !strings.Contains(list, ref[1]) || !strings.Contains(list, "form") {
				t.Fatalf("staff list = %q, %v", list, err)
			}
		})
	}
}
