package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"frontdesk/internal/browsertest"
)

// keyboard drives a page by keys alone and counts the interactions a
// guest makes: an Enter pressed or a field filled. Moving with Tab is
// not counted.
type keyboard struct {
	t            *testing.T
	ctx          context.Context
	interactions int
}

// tabTo presses Tab until sel has the focus.
func (k *keyboard) tabTo(sel string) {
	k.t.Helper()
	for range 80 {
		if browsertest.Get(k.t, k.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, sel))) {
			return
		}
		browsertest.Do(k.t, k.ctx, chromedp.KeyEvent(kb.Tab))
	}
	k.t.Fatalf("Tab never reached %s", sel)
}

// fill moves to sel and types text: one interaction.
func (k *keyboard) fill(sel, text string) {
	k.t.Helper()
	k.tabTo(sel)
	browsertest.Do(k.t, k.ctx, chromedp.KeyEvent(text))
	k.interactions++
}

// enter moves to sel, presses Enter and waits for the next page whose
// script test is true: one interaction.
func (k *keyboard) enter(sel, loaded string) {
	k.t.Helper()
	k.tabTo(sel)
	browsertest.Do(k.t, k.ctx, chromedp.Evaluate[chromedp.Void](`window.beforeEnter = true`), chromedp.KeyEvent(kb.Enter))
	waitFor(k.t, k.ctx, `!window.beforeEnter && document.readyState === "complete" && (`+loaded+`)`)
	k.interactions++
}

// TestBookByKeyboardFromTheHomePage: a guest books a stay from the home
// page by keyboard alone, in at most 8 interactions: the search is
// prefilled with tomorrow's night, the offer's form with the stay and
// its price, and the signature is typed on the pad.
func TestBookByKeyboardFromTheHomePage(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			k := &keyboard{t: t, ctx: ctx}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/"), chromedp.WaitVisible("#search"))
			tomorrow := testNow.In(m.Config.Locations[0].Zone()).AddDate(0, 0, 1).Format("2006-01-02")
			if got := browsertest.Get(t, ctx, chromedp.Value("#s-checkin")); got != tomorrow {
				t.Fatalf("the search's arrival = %q, want tomorrow %s", got, tomorrow)
			}
			k.enter("#s-go", `!!document.getElementById("offers")`)
			k.enter("#offer-riverside-double", `!!document.getElementById("quote-total")`)
			if got := browsertest.Get(t, ctx, chromedp.Text("#quote-total")); !strings.Contains(got, "1 night") || !strings.Contains(got, "1 night × $119.00 a night") {
				t.Fatalf("the offer's form shows %q", got)
			}
			k.fill("#name", "Grace Hopper")
			k.fill("#email", "grace@example.com")
			k.fill("#phone", "(303) 555-0142")
			k.fill("#pad", "Grace Hopper")
			k.enter("#send", `!!document.getElementById("sent")`)
			if ref := findSent(browsertest.Get(t, ctx, chromedp.Text("#sent"))); ref == nil {
				t.Fatalf("no request sent: %q", browsertest.Get(t, ctx, chromedp.Text("main")))
			}
			if k.interactions > 8 {
				t.Fatalf("booking took %d interactions, want at most 8", k.interactions)
			}
			t.Logf("booked from the home page by keyboard in %d interactions", k.interactions)
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests saved, want 1", n)
			}
		})
	}
}

// TestPickDatesOnThePropertyCalendar: on a property's calendar a guest
// picks a stay in two clicks by keyboard alone, each an Enter on a link:
// the arrival, then the departure, which opens the form with both dates
// and the stay's price. The page with an arrival chosen passes axe-core.
func TestPickDatesOnThePropertyCalendar(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			k := &keyboard{t: t, ctx: ctx}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/properties/riverside"), chromedp.WaitVisible("#room-double"))
			arrive := `#room-double a[href*="arrive=2026-12-30"]`
			depart := `#room-double a.depart[href*="checkout=2027-01-02"]`
			k.enter(arrive, `!!document.querySelector('`+depart+`')`)
			if got := browsertest.Get(t, ctx, chromedp.Text("#range-double")); !strings.Contains(got, "Arrival Wed, Dec 30, 2026 chosen.") {
				t.Fatalf("the chosen arrival reads %q", got)
			}
			fits(t, ctx, "the calendar with an arrival", width)
			browsertest.Accessible(t, ctx, repoRoot, "the calendar with an arrival")
			k.enter(depart, `!!document.getElementById("quote-total")`)
			if got := browsertest.Get(t, ctx, chromedp.Text("#quote-total")); !strings.Contains(got, "3 nights, Wed, Dec 30, 2026 to Sat, Jan 2, 2027") {
				t.Fatalf("the form after two clicks shows %q", got)
			}
			for sel, want := range map[string]string{"#checkin": "2026-12-30", "#checkout": "2027-01-02", "#roomtype": "double"} {
				if got := browsertest.Get(t, ctx, chromedp.Value(sel)); got != want {
					t.Fatalf("%s = %q, want %q", sel, got, want)
				}
			}
			if k.interactions != 2 {
				t.Fatalf("picking the dates took %d interactions, want 2", k.interactions)
			}
		})
	}
}
