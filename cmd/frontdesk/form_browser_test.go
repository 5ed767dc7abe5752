package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/store"
)

// repoRoot is the repository root from this package, where docs/ and
// test/node_modules are.
const repoRoot = "../.."

// sign draws a signature on the booking form's pad with real pointer
// events and checks the pad filled the signature field.
func sign(t *testing.T, ctx context.Context) {
	t.Helper()
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
}

// setValue sets a field's value as a date picker would, since typing
// into a date input depends on the browser's locale.
func setValue(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = %q`, sel, value))
}

// formRequests counts the form requests saved.
func formRequests(t *testing.T, m *Main) int {
	t.Helper()
	rows, err := m.store.ListReservations(context.Background(), store.ReservationFilter{Source: "form", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// shoot keeps a screenshot of the page: in docs/ (with -docs) at phone
// width, where the README shows them, else with the test's artifacts.
func shoot(t *testing.T, ctx context.Context, width int, name string) {
	t.Helper()
	if width == browsertest.Phone {
		browsertest.Document(t, ctx, repoRoot, name)
		return
	}
	browsertest.Screenshot(t, ctx, name)
}

// checkPage fails t if the page is too wide for the window or has a
// serious or critical accessibility violation.
func checkPage(t *testing.T, ctx context.Context, width int, page string) {
	t.Helper()
	fits(t, ctx, page, width)
	browsertest.Accessible(t, ctx, repoRoot, page)
}

// staffSignIn signs user in on the staff screen, coming back to next.
func staffSignIn(t *testing.T, ctx context.Context, m *Main, user, password, next string) {
	t.Helper()
	browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/signin?next="+url.QueryEscape(next)), chromedp.WaitVisible("#username"),
		chromedp.SendKeys("#username", user), chromedp.SendKeys("#password", password))
	browsertest.Submit(t, ctx, `button[type="submit"]`)
}

// staffSignOut signs out of the staff screen.
func staffSignOut(t *testing.T, ctx context.Context, m *Main) {
	t.Helper()
	browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/staff/signout"), chromedp.WaitVisible(`button[type="submit"]`))
	browsertest.Submit(t, ctx, `button[type="submit"]`)
}

// fits fails t if the page is wider than the browser's window.
func fits(t *testing.T, ctx context.Context, page string, width int) {
	t.Helper()
	if browsertest.Get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)) {
		t.Errorf("%s is wider than a %d-pixel screen", page, width)
	}
}

// TestBookingFormInABrowser fills the booking form in headless Chromium
// at desktop and phone widths: sent with empty dates and no signature it
// comes back with each problem beside its field, in a full sentence with
// the date format; the price shows before sending; a signature drawn
// before an error is drawn again after it and sent as it was; signed
// from the keyboard alone the form is taken too.
func TestBookingFormInABrowser(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			text := func(sel string) string { return browsertest.Get(t, ctx, chromedp.Text(sel)) }
			browsertest.Do(t, ctx,
				chromedp.Navigate(m.URL+"/book/riverside?roomtype=double"),
				chromedp.WaitVisible("#pad"),
				chromedp.SendKeys("#name", "Grace Hopper"),
				chromedp.SendKeys("#email", "grace@example.com"),
				chromedp.SendKeys("#phone", "(303) 555-0142"),
				// The browser's own checks would stop a send with empty
				// dates; the server's sentences are what is tested.
				chromedp.Evaluate[chromedp.Void](`document.getElementById("book").noValidate = true`),
			)
			fits(t, ctx, "the form", width)
			browsertest.Accessible(t, ctx, repoRoot, "the booking form")
			if width == browsertest.Phone {
				browsertest.Document(t, ctx, repoRoot, "booking-form")
			}

			// Empty dates and no signature: every problem beside its field.
			browsertest.Submit(t, ctx, "#send")
			for sel, want := range map[string]string{
				"#checkin-problem":   "Choose an arrival date.",
				"#checkout-problem":  "Choose a departure date.",
				"#signature-problem": "Sign in the box to agree to the guest agreement.",
			} {
				if got := text(sel); got != want {
					t.Errorf("%s = %q, want %q", sel, got, want)
				}
			}
			if got := browsertest.Get(t, ctx, chromedp.Value("#email")); got != "grace@example.com" {
				t.Fatalf("email after a refusal = %q", got)
			}
			browsertest.Accessible(t, ctx, repoRoot, "the form with problems")
			browsertest.Screenshot(t, ctx, "form-problems")

			// Dates, the price, then a signature and one more problem.
			browsertest.Do(t, ctx, setValue("#checkin", "2026-12-30"), setValue("#checkout", "2027-01-02"))
			showPrice(t, ctx)
			if got := text("#quote-total"); !strings.Contains(got, "$395.38 in total") {
				t.Fatalf("the price before sending: %q", got)
			}
			sign(t, ctx)
			drawn := browsertest.Get(t, ctx, chromedp.Value("#signature"))
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("book").noValidate = true`),
				chromedp.SetValue("#phone", "555"))
			browsertest.Submit(t, ctx, "#send")
			if got := text("#phone-problem"); !strings.Contains(got, "10 to 15 digits") {
				t.Fatalf("phone problem: %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Value("#signature")); got != drawn {
				t.Fatalf("the signature was not kept across the error")
			}
			inked := browsertest.Get(t, ctx, chromedp.Evaluate[bool](`(() => { const p = document.getElementById("pad"); const d = p.getContext("2d").getImageData(0, 0, p.width, p.height).data; for (let i = 3; i < d.length; i += 4) if (d[i]) return true; return false; })()`))
			if !inked {
				t.Fatal("the kept signature is not drawn on the pad again")
			}
			browsertest.Screenshot(t, ctx, "form-signature-kept")
			browsertest.Do(t, ctx, chromedp.SetValue("#phone", "(303) 555-0142"))
			browsertest.Submit(t, ctx, "#send")
			if got := text("#sent"); !strings.Contains(got, "is with our staff") {
				t.Fatalf("sent page says %q", got)
			}
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests saved, want 1", n)
			}

			// The keyboard alone signs: focus the pad and type a name.
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/book/riverside?roomtype=single&checkin=2026-12-30&checkout=2027-01-01"),
				chromedp.WaitVisible("#pad"),
				chromedp.SendKeys("#name", "Ada Lovelace"), chromedp.SendKeys("#email", "ada@example.com"), chromedp.SendKeys("#phone", "(303) 555-0199"),
				chromedp.Focus("#pad"), chromedp.KeyEvent("Ada Lovelace"))
			if sig := browsertest.Get(t, ctx, chromedp.Value("#signature")); !strings.HasPrefix(sig, "data:image/png;base64,") {
				t.Fatalf("typing on the pad left no signature: %.40q", sig)
			}
			browsertest.Submit(t, ctx, "#send")
			if got := text("#sent"); !strings.Contains(got, "is with our staff") {
				t.Fatalf("keyboard-signed form: %q", got)
			}
		})
	}
}

// TestFormResubmissionsMakeOneRequest sends the form once, refreshes the
// page it lands on, goes back and sends the form again: exactly one
// request is saved. It reads only what the form before its one-time
// token had too, and on that form it counted three requests (the
// refresh posted it again, and so did the back button).
func TestFormResubmissionsMakeOneRequest(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			send := `button[type="submit"]:not([name="step"])`
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"),
				chromedp.WaitVisible("#pad"), chromedp.SendKeys("#name", "Grace Hopper"), chromedp.SendKeys("#email", "grace@example.com"),
				chromedp.SendKeys("#phone", "(303) 555-0142"))
			sign(t, ctx)
			browsertest.Submit(t, ctx, send)
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests after one send", n)
			}
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.beforeReload = true`), chromedp.Reload())
			waitFor(t, ctx, `!window.beforeReload && document.readyState === "complete"`)
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests after a refresh", n)
			}
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`history.back()`))
			waitFor(t, ctx, `location.pathname === "/book/riverside" && document.readyState === "complete" && !!document.querySelector('`+send+`')`)
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.beforeSend = true; document.querySelector('`+send+`').click()`))
			waitFor(t, ctx, `!window.beforeSend && document.readyState === "complete"`)
			if n := formRequests(t, m); n != 1 {
				t.Fatalf("%d requests after the back button and a second send, want 1", n)
			}
		})
	}
}

// showPrice presses "Show the price" and waits for the price in place.
func showPrice(t *testing.T, ctx context.Context) {
	t.Helper()
	browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("quote").click()`))
	waitFor(t, ctx, `!!document.getElementById("quote-total") || !!document.querySelector('#stay [aria-invalid="true"]')`)
}

// TestPriceStepIsARead: the form's price step is a GET. In the browser
// it shows the price in place and keeps the details typed below; its
// address is the step's, so a refresh shows the price again and the
// back button leaves the form, and neither posts anything. Without the
// script the same GET answers the page; a stay that cannot be priced
// answers 422 with the problem beside its field, and a post that still
// asks for the price is sent to the GET with 303.
func TestPriceStepIsARead(t *testing.T) {
	for _, width := range []int{browsertest.Desktop, browsertest.Phone} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := startMain(t, "")
			ctx := browsertest.New(t, width)
			browsertest.Do(t, ctx, chromedp.Navigate(m.URL+"/"), chromedp.WaitVisible("#search"),
				chromedp.Navigate(m.URL+"/book/riverside?roomtype=double"), chromedp.WaitVisible("#pad"),
				chromedp.SendKeys("#name", "Grace Hopper"),
				setValue("#checkin", "2026-12-30"), setValue("#checkout", "2027-01-02"))
			before := browsertest.Get(t, ctx, chromedp.Evaluate[int](`history.length`))
			showPrice(t, ctx)
			if got := browsertest.Get(t, ctx, chromedp.Text("#quote-total")); !strings.Contains(got, "$395.38 in total") {
				t.Fatalf("the price step shows %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Value("#name")); got != "Grace Hopper" {
				t.Fatalf("the name after the price step = %q", got)
			}
			if got := browsertest.Get(t, ctx, chromedp.Evaluate[string](`location.search`)); !strings.Contains(got, "checkin=2026-12-30") || !strings.Contains(got, "step=quote") {
				t.Fatalf("the address after the price step = %q", got)
			}
			if after := browsertest.Get(t, ctx, chromedp.Evaluate[int](`history.length`)); after != before {
				t.Fatalf("the price step added %d history entries", after-before)
			}
			browsertest.Accessible(t, ctx, repoRoot, "the form with its price")
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.beforeReload = true`), chromedp.Reload())
			waitFor(t, ctx, `!window.beforeReload && document.readyState === "complete" && !!document.getElementById("quote-total")`)
			browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`history.back()`))
			waitFor(t, ctx, `location.pathname === "/" && document.readyState === "complete"`)
			if n := formRequests(t, m); n != 0 {
				t.Fatalf("%d requests saved by the price step", n)
			}
		})
	}
	t.Run("without a script", func(t *testing.T) {
		m := startMain(t, "")
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(m.URL + "/book/riverside?" + url.Values{"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "step": {"quote"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "$395.38") {
			t.Fatalf("GET price step = %d", resp.StatusCode)
		}
		resp, err = client.Get(m.URL + "/book/riverside?" + url.Values{"roomtype": {"double"}, "checkin": {"2026-12-30"}, "step": {"quote"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `id="checkout-problem">Choose a departure date.`) {
			t.Fatalf("GET price step without a departure = %d: %s", resp.StatusCode, body)
		}
		resp, err = client.PostForm(m.URL+"/book/riverside", url.Values{"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"}, "name": {"Grace Hopper"}, "step": {"quote"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/book/riverside?") || !strings.Contains(loc, "checkout=2027-01-02") || strings.Contains(loc, "Grace") {
			t.Fatalf("POST price step = %d to %q, want 303 to the GET without the guest's details", resp.StatusCode, loc)
		}
		if n := formRequests(t, m); n != 0 {
			t.Fatalf("%d requests saved by the price step", n)
		}
	})
}
