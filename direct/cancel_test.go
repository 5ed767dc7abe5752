package direct

import (
	"context"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/reservation"
)

var denver, _ = time.LoadLocation("America/Denver")

func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, denver)
	if err != nil {
		panic(err)
	}
	return t
}

// cancelWorld books a stay arriving on checkin and returns the world and
// its reference.
func cancelWorld(t *testing.T, checkin, checkout string) (*world, string) {
	w := newWorld(t, func(c *config.Config) { c.Limits.CancelPortfolioDaily = 1000 })
	return w, w.book(stayArgs("checkin", checkin, "checkout", checkout))
}

func cancelStep1(w *world, ref string) (*reservation.CancelResult, string) {
	res, err := w.cancel(context.Background(), web, args("reservation_number", ref, "phone_last4", "0199"))
	return res, refusalText(err)
}

const (
	byPhone   = "To cancel this reservation by phone, call +1 303 555 0111 during office hours. The published refund and cancellation policy applies."
	notInChat = "To cancel this reservation, call +1 303 555 0111 during office hours. Cancellation cannot be completed in chat right now."
)

func TestCancellationGates(t *testing.T) {
	tests := []struct {
		name, checkin, checkout, now, want string
	}{
		{"monday before opening", "2026-12-30", "2027-01-02", "2026-12-07 07:59", notInChat},
		{"monday at opening", "2026-12-30", "2027-01-02", "2026-12-07 08:00", ""},
		{"monday last minute", "2026-12-30", "2027-01-02", "2026-12-07 17:59", ""},
		{"monday at closing", "2026-12-30", "2027-01-02", "2026-12-07 18:00", notInChat},
		{"saturday before ten", "2026-12-30", "2027-01-02", "2026-12-05 09:59", notInChat},
		{"saturday at ten", "2026-12-30", "2027-01-02", "2026-12-05 10:00", ""},
		{"sunday", "2026-12-30", "2027-01-02", "2026-12-06 12:00", notInChat},
		{"exactly 48 hours", "2026-12-30", "2027-01-02", "2026-12-28 15:00", byPhone},
		{"a minute more than 48 hours", "2026-12-30", "2027-01-02", "2026-12-28 14:59", ""},
		{"spring forward: exactly 48 hours", "2027-03-17", "2027-03-19", "2027-03-15 15:00", byPhone},
		{"spring forward: a minute before", "2027-03-17", "2027-03-19", "2027-03-15 14:59", ""},
		{"fall back: exactly 48 hours", "2027-11-10", "2027-11-12", "2027-11-08 15:00", byPhone},
		{"fall back: a minute before", "2027-11-10", "2027-11-12", "2027-11-08 14:59", ""},
		{"after daylight saving, opening", "2027-03-31", "2027-04-02", "2027-03-15 08:00", ""},
		{"after daylight saving, before opening", "2027-03-31", "2027-04-02", "2027-03-15 07:59", notInChat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ref := cancelWorld(t, tt.checkin, tt.checkout)
			w.clock.Set(at(tt.now))
			_, got := cancelStep1(w, ref)
			if got != tt.want {
				t.Fatalf("step 1 = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSecondStepChecksTheGatesAgain: a code asked for inside the window
// cannot be used once the window has closed.
func TestSecondStepChecksTheGatesAgain(t *testing.T) {
	for _, tc := range []struct{ name, start, finish, want string }{
		{"cutoff passes between steps", "2026-12-28 14:55", "2026-12-28 15:00", byPhone},
		{"office closes between steps", "2026-12-07 17:55", "2026-12-07 18:01", notInChat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ref := cancelWorld(t, "2026-12-30", "2027-01-02")
			w.clock.Set(at(tc.start))
			res, got := cancelStep1(w, ref)
			if got != "" {
				t.Fatal(got)
			}
			code := w.lastCode("ada@example.com")
			w.clock.Set(at(tc.finish))
			_, err := w.cancel(context.Background(), web, args("cancel_id", res.CancelID, "code", code))
			if refusalText(err) != tc.want {
				t.Fatalf("step 2 = %q, want %q", refusalText(err), tc.want)
			}
		})
	}
}

func TestCancellationCodes(t *testing.T) {
	w, ref := cancelWorld(t, "2026-12-30", "2027-01-02")
	ctx := context.Background()
	w.clock.Advance(time.Minute)
	res, got := cancelStep1(w, ref)
	if got != "" {
		t.Fatal(got)
	}
	again, _ := cancelStep1(w, ref)
	if again.CancelID != res.CancelID {
		t.Fatalf("open cancellation not reused: %s vs %s", again.CancelID, res.CancelID)
	}
	code := w.lastCode("ada@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	const wrongText = "Incorrect or expired verification code. Call +1 303 555 0111."
	for range wrongTries {
		_, err := w.cancel(ctx, web, args("cancel_id", res.CancelID, "code", wrong))
		if refusalText(err) != wrongText {
			t.Fatalf("wrong code = %q", refusalText(err))
		}
	}
	_, err := w.cancel(ctx, web, args("cancel_id", res.CancelID, "code", code))
	if refusalText(err) != wrongText {
		t.Fatalf("after five wrong codes = %q", refusalText(err))
	}
	w.clock.Advance(time.Minute)
	res, _ = cancelStep1(w, ref)
	code = w.lastCode("ada@example.com")
	w.clock.Advance(codeLifetime)
	_, err = w.cancel(ctx, web, args("cancel_id", res.CancelID, "code", code))
	if refusalText(err) != wrongText {
		t.Fatalf("expired code = %q", refusalText(err))
	}
	for _, m := range w.messages() {
		if strings.Contains(m.Text, "/book/") {
			t.Fatalf("a cancellation mail carries a booking-form link: %s", m.Text)
		}
	}
}

// TestCancellationBudgets: three codes per reservation a day, apart from
// the booking-code budget.
func TestCancellationBudgets(t *testing.T) {
	w, ref := cancelWorld(t, "2026-12-30", "2027-01-02")
	for i := range 3 {
		w.clock.Advance(codeLifetime + time.Minute) // each earlier code has expired
		if _, got := cancelStep1(w, ref); got != "" {
			t.Fatalf("code %d: %s", i+1, got)
		}
	}
	w.clock.Advance(codeLifetime + time.Minute)
	if _, got := cancelStep1(w, ref); got != notInChat {
		t.Fatalf("fourth code = %q", got)
	}
	if got := admitted(t, w, "book-group"); got != 1 {
		t.Fatalf("cancellation spent booking budget: %d", got)
	}
}

// TestLookupLockout: ten failures lock a reference for an hour; only
// failures count, and a success clears them.
func TestLookupLockout(t *testing.T) {
	w, ref := cancelWorld(t, "2026-12-30", "2027-01-02")
	ctx := context.Background()
	look := func(last4 string) string {
		_, err := w.lookup(ctx, web, args("reservation_number", ref, "phone_last4", last4))
		return refusalText(err)
	}
	const notFound = "no reservation found. Call +1 303 555 0111."
	for range 9 {
		if got := look("1234"); got != notFound {
			t.Fatal(got)
		}
	}
	if got := look("0199"); got != "" {
		t.Fatalf("ninth failure locked: %q", got)
	}
	for range 10 {
		look("1234")
	}
	if got := look("0199"); got != notFound {
		t.Fatalf("locked reference answered: %q", got)
	}
	absent := "RIV-00000000000000AB"
	_, err := w.lookup(ctx, web, args("reservation_number", absent, "phone_last4", "0199"))
	if refusalText(err) != notFound {
		t.Fatalf("absent reference = %q; must match the wrong-digits answer", refusalText(err))
	}
	w.clock.Advance(time.Hour)
	if got := look("0199"); got != "" {
		t.Fatalf("after an hour = %q", got)
	}
}

// openCancellation books the usual stay, lets a minute pass and opens its
// cancellation: the reference, the cancel_id and the code mailed for it.
func (w *world) openCancellation() (ref, cancelID, code string) {
	w.t.Helper()
	ref = w.book(stayArgs())
	w.clock.Advance(time.Minute)
	c1, got := cancelStep1(w, ref)
	if got != "" {
		w.t.Fatal(got)
	}
	return ref, c1.CancelID, w.lastCode("ada@example.com")
}
