package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/reservation"
)

// TestFindAndBookFromTheHomePage is a new guest in Chromium at desktop
// and phone widths: from the home page they search their dates, pick a
// free room at its price, fill and sign the prefilled form and land on
// the request's own page. Refreshing that page, and going back to the
// form and sending it again, file nothing more: exactly one request.
// Every page passes axe-core.
func TestFindAndBookFromTheHomePage(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			shot := func(name string) { shoot(t, ctx, width, name) }
			// The other guest pages pass axe-core too.
			for _, p := range []string{"/locations", "/policy", "/privacy", "/properties/riverside", "/properties/airport", "/no-such-page"} {
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+p))
				waitFor(t, ctx, `document.readyState === "complete" && !!document.querySelector("main h1")`)
				fits(t, ctx, p, width)
				browsertest.Accessible(t, ctx, repoRoot, p)
				if p == "/locations" {
					shot("properties")
				}
				if p == "/properties/riverside" {
					shot("property")
				}
			}
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/"), chromedp.WaitVisible("#search"))
			if got := text("#property-riverside"); !strings.Contains(got, "A double room facing the river") || !strings.Contains(got, "Sleeps 4") || !strings.Contains(got, "From $119.00 a night") {
				t.Fatalf("home page shows %q", got)
			}
			fits(t, ctx, "the home page", width)
			browsertest.Accessible(t, ctx, repoRoot, "the home page")
			shot("home")

			browsertest.Do(t, ctx, setValue("#s-checkin", "2026-12-30"), setValue("#s-checkout", "2027-01-02"), chromedp.SetValue("#s-guests", "3"))
			browsertest.Submit(t, ctx, "#s-go")
			if got := text("#offers"); !strings.Contains(got, "Double at Riverside Inn") || !strings.Contains(got, "3 nights × $119.00 a night") || !strings.Contains(got, "$395.38") || strings.Contains(got, "Single") {
				t.Fatalf("search for 3 offers %q", got)
			}
			fits(t, ctx, "the search", width)
			browsertest.Accessible(t, ctx, repoRoot, "the search")
			shot("search")

			browsertest.Submit(t, ctx, "#offer-riverside-double")
			if got := text("#quote-total"); !strings.Contains(got, "3 nights, Wed, Dec 30, 2026 to Sat, Jan 2, 2027: $395.38 in total") {
				t.Fatalf("the prefilled form's price: %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Value("#guests")); got != "3" {
				t.Fatalf("guests on the form = %q, want 3", got)
			}
			browsertest.Do(t, ctx, chromedp.SendKeys("#name", "Grace Hopper"), chromedp.SendKeys("#email", "grace@example.com"),
				chromedp.SendKeys("#phone", "(303) 555-0142"))
			sign(t, ctx)
			browsertest.Submit(t, ctx, "#send")
			sent := text("#sent")
			ref := findSent(sent)
			if ref == nil {
				t.Fatalf("sent page says %q", sent)
			}
			for sel, want := range map[string]string{"#state": "Requested: waiting for our staff", "#total": "$395.38", "#next": "within 24 hours"} {
				if got := text(sel); !strings.Contains(got, want) {
					t.Errorf("%s = %q, want %q", sel, got, want)
				}
			}
			fits(t, ctx, "the sent page", width)
			browsertest.Accessible(t, ctx, repoRoot, "the sent page")
			shot("request-sent")

			// A refresh, then the back button and the same form again.
			browsertest.Do(t, ctx, chromedp.Reload(), chromedp.WaitVisible("#reference"))
			// history.back, not a CDP navigation, and the restored page is
			// read by script: a page from the back-forward cache fires no
			// load event, and chromedp's node tree may still hold the page
			// it left.
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`history.back()`))
			waitFor(t, ctx, `location.pathname === "/book/riverside" && document.readyState === "complete" && !!document.getElementById("send")`)
			if got := browsertest.Get(t, ctx, chromedp.Evaluate[string](`document.getElementById("name").value`)); got != "Grace Hopper" {
				t.Fatalf("the form after the back button has name %q", got)
			}
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("send").click()`))
			waitFor(t, ctx, `location.pathname.startsWith("/stay/") && document.readyState === "complete" && !!document.getElementById("reference")`)
			if got := browsertest.Get(t, ctx, chromedp.Evaluate[string](`document.getElementById("reference").textContent`)); got != ref[2] {
				t.Fatalf("the form sent again shows %q, want the first request %s", got, ref[2])
			}
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests after a refresh and a resubmission, want 1", n)
			}
			if n := len(devMessages(t, m.URL)); n != 2 {
				t.Fatalf("%d mails after a refresh and a resubmission, want the first request's 2", n)
			}

		})
	}
}

var stayLink = regexp.MustCompile(`/stay/([A-Z]{2,6}\.[A-Za-z0-9_-]{43})`)

// TestGuestPageCancelsWithinTheRules: the confirmation mail links to the
// guest's own page, which cancels after the emailed code like the chat
// tools; a stay inside the notice period offers no cancellation and
// says to call.
func TestGuestPageCancelsWithinTheRules(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			accepted := func(checkin, checkout, email string) string {
				t.Helper()
				browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/book/riverside?roomtype=double&checkin="+checkin+"&checkout="+checkout),
					chromedp.WaitVisible("#pad"), chromedp.SendKeys("#name", "Grace Hopper"), chromedp.SendKeys("#email", email),
					chromedp.SendKeys("#phone", "(303) 555-0142"))
				sign(t, ctx)
				browsertest.Submit(t, ctx, "#send")
				ref := findSent(text("#sent"))
				if ref == nil {
					t.Fatal("no request sent")
				}
				if _, _, err := m.bookings.Core().Decide(context.Background(), reservation.Decision{Reference: ref[1], To: reservation.Confirmed, By: "olga"}); err != nil {
					t.Fatal(err)
				}
				link := stayLink.FindStringSubmatch(mailWithSubject(t, m, "Reservation "+ref[1]+" is confirmed").Text)
				if link == nil {
					t.Fatal("the confirmation mail has no link to the guest's page")
				}
				return link[0]
			}

			// Inside the 48-hour notice: no cancellation, a phone.
			late := accepted("2026-12-01", "2026-12-03", "late@example.com")
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+late), chromedp.WaitVisible("#state"))
			if got := text("#no-cancel"); !strings.Contains(got, "close 48 hours before check-in. Call +1 303 555 0111") {
				t.Fatalf("late stay's page: %q", got)
			}

			page := accepted("2026-12-30", "2027-01-02", "grace@example.com")
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+page), chromedp.WaitVisible("#cancel-ask"))
			if got := text("#state"); got != "Confirmed" {
				t.Fatalf("state %q", got)
			}
			fits(t, ctx, "the guest's page", width)
			browsertest.Accessible(t, ctx, repoRoot, "the guest's page")
			if width == browsertest.Phone {
				browsertest.Document(t, ctx, repoRoot, "guest-stay")
			}
			browsertest.Submit(t, ctx, "#cancel-ask")
			browsertest.Accessible(t, ctx, repoRoot, "the cancellation code step")
			// The code was asked for by a POST answered 303: a refresh
			// shows the code step again and mails no second code.
			mails := len(devMessages(t, m.URL))
			browsertest.Do(t, ctx, chromedp.Reload(), chromedp.WaitVisible("#cancel-code"))
			if n := len(devMessages(t, m.URL)); n != mails {
				t.Fatalf("a refresh of the code step sent %d more mails", n-mails)
			}
			browsertest.Do(t, ctx, chromedp.SendKeys("#code", "000000"))
			browsertest.Submit(t, ctx, "#cancel-confirm")
			if got := text("#problem"); !strings.Contains(got, "not the one we emailed") {
				t.Fatalf("wrong code: %q", got)
			}
			code := latestCode(t, m.URL, "grace@example.com")
			browsertest.Do(t, ctx, chromedp.SendKeys("#code", code))
			browsertest.Submit(t, ctx, "#cancel-confirm")
			if got := text("#done"); !strings.Contains(got, "cancelled and the room released") {
				t.Fatalf("after the code: %q", got)
			}
			if got := text("#state"); got != "Cancelled" {
				t.Fatalf("state after cancelling: %q", got)
			}
			browsertest.Accessible(t, ctx, repoRoot, "the cancelled stay")
		})
	}
}

// waitFor polls the page until the script expression is true.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(browsertest.StepTimeout)
	for time.Now().Before(deadline) {
		if browsertest.Get(t, ctx, chromedp.Evaluate[bool](expr)) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("browser: %s stayed false", expr)
}
