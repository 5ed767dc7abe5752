package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
)

// TestStaffScreenInABrowser works the staff screen in headless Chromium
// at desktop and phone widths, without any script on its pages: a clerk
// of Old Town is refused a Riverside reservation by URL; the owner signs
// in, confirms one chat reservation and cancels another, whose guests get
// their mails while the pending count drops; and a settings change shows
// in the settings audit.
func TestStaffScreenInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			addStaff(t, m)
			ada := chatBooking(t, m, "riverside", "double", "ada@example.com", "+1 303 555 0199")
			bob := chatBooking(t, m, "riverside", "single", "bob@example.com", "+1 303 555 0123")
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			// The sign-in page is opened by its own address: the redirect
			// to it from a staff page is checked over HTTP.
			signIn := func(user, next string) { staffSignIn(t, ctx, m, user, staffPassword, next) }
			signOut := func() { staffSignOut(t, ctx, m) }
			fits := func(page string) {
				if browsertest.Get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)) {
					t.Errorf("%s is wider than a %d-pixel screen", page, width)
				}
			}

			// A clerk of Old Town, by URL.
			signIn("carl", "/staff/reservations/"+ada)
			if got := text("body"); !strings.Contains(got, "404 page not found") || strings.Contains(got, "Ada") {
				t.Fatalf("clerk sees %q", got)
			}
			browsertest.Screenshot(t, ctx, "staff-scope-refused")
			signOut()

			// The owner: the list, then a confirmation.
			signIn("olga", "/staff/reservations?location=riverside")
			if got := text("main"); !strings.Contains(got, ada) || !strings.Contains(got, bob) || !strings.Contains(got, "chat") {
				t.Fatalf("owner's list: %q", got)
			}
			fits("the list")
			browsertest.Screenshot(t, ctx, "staff-list")
			pending := func() string {
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/"), chromedp.WaitVisible("#attention"))
				return strings.Fields(text("#attention li"))[0]
			}
			if got := pending(); got != "2" {
				t.Fatalf("pending before = %s", got)
			}
			fits("the dashboard")
			browsertest.Screenshot(t, ctx, "staff-dashboard")
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/reservations/"+ada), chromedp.WaitVisible("#act-confirmed"))
			if got := text("#source"); got != "chat" {
				t.Errorf("source label %q", got)
			}
			fits("the reservation")
			browsertest.Screenshot(t, ctx, "staff-detail")
			browsertest.Submit(t, ctx, "#act-confirmed")
			if got := text("#done"); got != "Confirmed. The guest was emailed." {
				t.Fatalf("after confirm: %q", got)
			}
			mailWithSubject(t, m, "Reservation "+ada+" is confirmed")
			if got := pending(); got != "1" {
				t.Fatalf("pending after the confirmation = %s", got)
			}

			// A cancellation.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/reservations/"+bob), chromedp.WaitVisible("#act-cancelled"))
			browsertest.Submit(t, ctx, "#act-cancelled")
			if got := text("#done"); got != "Cancelled and the room released. The guest was emailed." {
				t.Fatalf("after cancel: %q", got)
			}
			if got := text("#state"); got != "cancelled" {
				t.Fatalf("state after cancel: %q", got)
			}
			mailWithSubject(t, m, "Reservation "+bob+" is cancelled")

			// A settings change, in the audit.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/settings"), chromedp.WaitVisible("#riverside-booking"),
				chromedp.Click("#riverside-booking"))
			browsertest.Submit(t, ctx, "#riverside-save")
			if got := text("#settings-audit"); !strings.Contains(got, "olga changed Riverside Inn: Chat booking on at this property: on → off") {
				t.Fatalf("settings audit: %q", got)
			}
			fits("the settings")
			browsertest.Screenshot(t, ctx, "staff-settings")
		})
	}
}

// TestStaffBooksTheShuttleInABrowser: the owner books the shuttle's
// 06:00 start for a caller from the staff screen's form, in headless
// Chromium at both widths; USP availability then lists every start of
// the day but that one. A start off the shuttle's grid and the same
// start again are refused on the form, and book nothing. A ride's price
// shows as a ride, never a night, on the guest site's property page and
// in the walk-in form's price check.
func TestStaffBooksTheShuttleInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			addStaff(t, m)
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			free := func() int {
				_, _, body := post(t, m.URL+"/usp/availability/query", nil, `{"service_id":"svc_airport_shuttle","start_date":"2026-12-02","end_date":"2026-12-02"}`)
				return len(decodeJSON(t, body)["slots"].([]any))
			}
			if n := free(); n != 16 {
				t.Fatalf("%d free starts before, want 16", n)
			}
			book := func(start string) {
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/reservations/new"), chromedp.WaitVisible("#start"),
					chromedp.SetValue("#location", "airport"), chromedp.SetValue("#roomtype", "shuttle"), chromedp.SetValue("#start", start),
					chromedp.SendKeys("#name", "Mary Jackson"), chromedp.SendKeys("#phone", "(303) 555-0178"))
				browsertest.Submit(t, ctx, "#book")
			}

			// The guest site prices one ride of the shuttle as a ride.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/properties/airport"), chromedp.WaitVisible("#service-shuttle"))
			if got := text("#service-shuttle"); !strings.Contains(got, "1 ride × $25.00") || !strings.Contains(got, "1 h") || strings.Contains(got, "night") {
				t.Fatalf("the property page shows the shuttle as %q", got)
			}
			checkPage(t, ctx, width, "the property page with a timed service")

			staffSignIn(t, ctx, m, "olga", staffPassword, "/staff/reservations/new")
			browsertest.Do(t, ctx, chromedp.WaitVisible("#start"))
			checkPage(t, ctx, width, "the staff booking form with a start")
			book("2026-12-02T06:30")
			if got := text("#start-problem"); !strings.HasPrefix(got, "The shuttle starts every 60 minutes from 06:00") {
				t.Fatalf("an off-grid start: %q", got)
			}
			checkPage(t, ctx, width, "the staff booking form with a problem")
			book("2026-12-02T06:00")
			if got := text("#done"); got != "Booked and confirmed; the place is held." {
				t.Fatalf("after booking the shuttle: %q", got)
			}
			if got := text("#source"); got != "staff" {
				t.Errorf("source %q", got)
			}
			// A timed service is a start and a length, never a night.
			if got := text("#start"); got != "Wed, Dec 2, 2026, 6:00 AM MST" {
				t.Errorf("the shuttle's start = %q", got)
			}
			if got := text("#length"); got != "1 h" {
				t.Errorf("the shuttle's length = %q", got)
			}
			if got := text("#facts"); strings.Contains(got, "night") || strings.Contains(got, "Departure") {
				t.Errorf("the shuttle shows as a stay: %q", got)
			}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/reservations?location=airport"), chromedp.WaitVisible("#rows"))
			if got := text("#rows tbody"); !strings.Contains(got, "Wed, Dec 2, 2026, 6:00 AM MST, 1 h") || strings.Contains(got, "night") {
				t.Errorf("the list shows the shuttle as %q", got)
			}
			checkPage(t, ctx, width, "the list with a timed service")
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/calendar?location=airport&from=2026-12-01"), chromedp.WaitVisible("#calendar"))
			if got := text("#calendar"); !strings.Contains(got, "6:00 AM, 1 h: Mary Jackson") {
				t.Errorf("the calendar shows the shuttle as %q", got)
			}
			checkPage(t, ctx, width, "the calendar with a timed service")
			// Checking the price and what is free books nothing.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/reservations/new"), chromedp.WaitVisible("#start"),
				chromedp.SetValue("#location", "airport"), chromedp.SetValue("#roomtype", "shuttle"), chromedp.SetValue("#start", "2026-12-02T07:00"))
			browsertest.Submit(t, ctx, "#check-price")
			if got := text("#check"); !strings.Contains(got, "$25.00 a ride. 1 of 1 place free.") {
				t.Errorf("the check says %q", got)
			}
			if got := text("#check-price-lines"); !strings.Contains(got, "1 ride × $25.00") || !strings.Contains(got, "Total") || strings.Contains(got, "night") {
				t.Errorf("the check's price lines say %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#roomtype option").length`)); got != 3 {
				t.Errorf("the form for the airport offers %d units, want its 3", got)
			}
			checkPage(t, ctx, width, "the staff booking form after a check")
			if n := free(); n != 15 {
				t.Fatalf("%d free starts after, want 15", n)
			}
			book("2026-12-02T06:00")
			if got := text("#problem"); got != "No place is free at this start. Nothing was booked." {
				t.Fatalf("the same start again: %q", got)
			}
			list, _, _ := runCmd(t, "staff", "list", "--data", m.Config.Store.DataDir)
			if strings.Count(list, "shuttle") != 1 || !strings.Contains(list, "2026-12-02T06:00") {
				t.Fatalf("staff bookings stored = %q", list)
			}
		})
	}
}
