package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/direct/directtest"
	"frontdesk/internal/browsertest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
)

// acceptedRequest files a signed form request at Riverside and accepts
// it, as staff would, and returns its reference.
func acceptedRequest(t *testing.T, m *Main, n int64, name, email, roomtype, checkin, checkout string) string {
	t.Helper()
	ctx := context.Background()
	res, err := m.core.Submit(ctx, reservation.FormRequest{Location: "riverside", RoomType: roomtype, Checkin: checkin, Checkout: checkout,
		Name: name, Email: email, Phone: "(303) 555-0142", Guests: "1", Signature: signaturetest.Drawn(t), Address: "192.0.2.10",
		Token: directtest.FormToken(n)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.bookings.Core().Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	return res.Reference
}

// TestFrontDeskInABrowser is a day at the desk in Chromium at desktop
// and phone widths: the owner adds a clerk of Riverside on the logins
// page; the clerk signs in, finds a guest by name in the list, marks
// today's arrival who did not come as a no-show, books a walk-in who
// then shows among the arrivals, and opens a reservation
// from the calendar, whose page shows the form's signature and offers no
// completion before arrival. Every staff page passes axe-core.
func TestFrontDeskInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			// A fresh install's sign-in page says how to make the first login.
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			shot := func(name string) { shoot(t, ctx, width, name) }
			check := func(page string) { checkPage(t, ctx, width, page) }
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/signin"), chromedp.WaitVisible("#username"))
			if got := text("#first-login"); !strings.Contains(got, "frontdesk staff add-user --username NAME --role owner") {
				t.Fatalf("a fresh sign-in page says %q", got)
			}
			check("the first sign-in page")
			shot("staff-signin-first")

			addStaff(t, m)
			grace := acceptedRequest(t, m, 1, "Grace Hopper", "grace@example.com", "double", "2026-12-30", "2027-01-02")
			arrival := acceptedRequest(t, m, 2, "Alan Turing", "alan@example.com", "single", "2026-11-30", "2026-12-02")
			acceptedRequest(t, m, 3, "Ada Lovelace", "ada@example.com", "single", "2026-12-31", "2027-01-03")

			signIn := func(user, password, next string) { staffSignIn(t, ctx, m, user, password, next) }

			// The owner adds a clerk.
			signIn("olga", staffPassword, "/staff/users")
			browsertest.Do(t, ctx, chromedp.WaitVisible("#add-user"))
			check("the logins page")
			browsertest.Do(t, ctx, chromedp.SendKeys("#new-username", "rita"), chromedp.SendKeys("#new-password", "a clerk password"),
				chromedp.Click("#new-location-riverside"))
			browsertest.Submit(t, ctx, "#add")
			if got := text("#done"); !strings.HasPrefix(got, "Login added.") {
				t.Fatalf("after adding: %q", got)
			}
			if got := text("#user-rita"); !strings.Contains(got, "clerk") || !strings.Contains(got, "riverside") || !strings.Contains(got, "enabled") {
				t.Fatalf("rita's row: %q", got)
			}
			shot("staff-users")
			for _, p := range []string{"/staff/", "/staff/channels", "/staff/settings"} {
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+p), chromedp.WaitVisible("main h1"))
				check(p)
			}
			if got := text("#office-hours"); !strings.Contains(got, "Monday") {
				t.Fatalf("settings show no office hours: %q", got)
			}
			if got := text("main"); strings.Contains(got, "chatPortfolioEmailHourly") || !strings.Contains(got, "codes per hour; in force: ") {
				t.Fatalf("settings labels: %q", got)
			}
			shot("staff-settings")
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/signout"), chromedp.WaitVisible("main h1"))
			check("the sign-out page")
			staffSignOut(t, ctx, m)

			// The clerk finds a guest by name.
			signIn("rita", "a clerk password", "/staff/reservations")
			browsertest.Do(t, ctx, chromedp.WaitVisible("#q"), chromedp.SendKeys("#q", "hopper"))
			browsertest.Submit(t, ctx, "#show")
			rows := text("#rows tbody")
			if !strings.Contains(rows, grace) || !strings.Contains(rows, "Grace Hopper") || !strings.Contains(rows, "$395.38") || strings.Contains(rows, "Turing") {
				t.Fatalf("search for hopper: %q", rows)
			}
			check("the reservation list")
			shot("staff-list")

			// Today's arrivals: Alan did not come.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/today"), chromedp.WaitVisible("#arrivals"))
			if got := text("#arrivals"); !strings.Contains(got, "Alan Turing") || !strings.Contains(got, "Mon, Nov 30, 2026 to Wed, Dec 2, 2026") {
				t.Fatalf("arrivals: %q", got)
			}
			check("the today lists")
			shot("staff-today")
			browsertest.Submit(t, ctx, "#arrivals-"+arrival+"-no-show")
			if got := text("#done"); got != arrival+": Marked a no-show; its room is released." {
				t.Fatalf("after the no-show: %q", got)
			}
			if got := text("#arrivals-none"); got != "None." {
				t.Fatalf("arrivals after the no-show: %q", got)
			}

			// A walk-in, booked from the today lists, arrives today.
			browsertest.Submit(t, ctx, "#walk-in")
			if got := browsertest.Get(t, ctx, chromedp.Value("#checkin")); got != "2026-11-30" {
				t.Fatalf("the walk-in form's arrival = %q", got)
			}
			check("the staff booking form")
			shot("staff-walk-in")
			browsertest.Do(t, ctx, chromedp.SetValue("#roomtype", "double"), chromedp.SendKeys("#name", "Katherine Johnson"),
				chromedp.SendKeys("#phone", "(303) 555-0177"))
			browsertest.Submit(t, ctx, "#book")
			if got := text("#done"); got != "Booked and confirmed; the room is held." {
				t.Fatalf("after the walk-in: %q", got)
			}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/today"), chromedp.WaitVisible("#arrivals"))
			if got := text("#arrivals"); !strings.Contains(got, "Katherine Johnson") || !strings.Contains(got, "confirmed") {
				t.Fatalf("arrivals after the walk-in: %q", got)
			}

			// The calendar, then Grace's reservation from it.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/calendar?days=28&from=2026-12-28"), chromedp.WaitVisible("#calendar"))
			if got := text("#calendar"); !strings.Contains(got, "Grace Hopper") || !strings.Contains(got, "Ada Lovelace") {
				t.Fatalf("calendar: %q", got)
			}
			check("the calendar")
			if width == browsertest.Desktop {
				// Two weeks fit a desktop screen without scrolling sideways.
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/calendar?days=14&from=2026-12-28"), chromedp.WaitVisible("#calendar"))
				if browsertest.Get(t, ctx, chromedp.Evaluate[bool](`(() => { const c = document.querySelector(".calendar"); return c.scrollWidth > c.clientWidth; })()`)) {
					t.Errorf("the 14-day calendar scrolls sideways at %d pixels", width)
				}
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/calendar?days=28&from=2026-12-28"), chromedp.WaitVisible("#calendar"))
			}
			shot("staff-calendar")
			browsertest.Submit(t, ctx, `#calendar a[href="/staff/reservations/`+grace+`"]`)
			if got := text("#guest"); got != "Grace Hopper" {
				t.Fatalf("the reservation from the calendar shows %q", got)
			}
			if ok := browsertest.Get(t, ctx, chromedp.Evaluate[bool](`(() => { const i = document.querySelector("#signature img"); return !!i && i.complete && i.naturalWidth > 0; })()`)); !ok {
				t.Fatal("the form's signature is not shown")
			}
			if got := text("#act-cancelled"); got != "Cancel the reservation" {
				t.Fatalf("cancel button says %q", got)
			}
			if n := browsertest.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#act-completed, #act-no-show").length`)); n != 0 {
				t.Fatal("complete or no-show offered three weeks before arrival")
			}
			check("the reservation")
			shot("staff-detail")
		})
	}
}
