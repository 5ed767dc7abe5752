package direct

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/inventory"
	"frontdesk/inventory/inventorytest"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// seedStay stores a stay in the world. private: the stay belongs to the
// guest under test (same email and phone); otherwise to someone else. The
// index holds the same room either way, so public vacancy is identical.
func seedStay(t *testing.T, w *world, private bool, ref, checkin, checkout string) {
	t.Helper()
	ctx := context.Background()
	l := w.cfg.Locations[1] // Old Town Lodge: a different property from the requests
	unit, _ := l.Unit("single")
	in := mustDate(checkin)
	nights := in.DaysUntil(mustDate(checkout))
	if err := (inventorytest.Holder{Index: w.st}).Hold(ctx, ref, l, unit, inventory.Nights(in, nights), testNow); err != nil {
		t.Fatal(err)
	}
	if !private {
		return
	}
	mailbox, err := w.svc.keyed(ctx, testNow, "mailbox", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	seedReservation(t, w, reservation.Reservation{Reference: ref, Source: reservation.SourceChat, Location: l.Slug,
		Contact:    reservation.Contact{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+1 303 555 0199"},
		ContactKey: mailbox, Unit: "single", Slots: inventory.Nights(in, nights), Guests: 1, Total: 10000,
		Held: true, State: reservation.Reserved, CreatedAt: testNow})
}

// seedReservation stores a reservation row as it stands, without a hold
// of its own: the tests that seed one hold its units separately or not
// at all.
func seedReservation(t *testing.T, w *world, r reservation.Reservation) {
	t.Helper()
	if _, err := w.st.Apply(context.Background(), []store.Write{reservation.Create(r, testNow)}); err != nil {
		t.Fatal(err)
	}
}

// transcript runs the unproved calls of §18 and records every answer and
// every mail byte.
func transcript(t *testing.T, w *world) string {
	ctx := context.Background()
	var b strings.Builder
	say := func(step string, v any, err error) {
		if err != nil {
			fmt.Fprintf(&b, "%s: %s\n", step, refusalText(err))
		} else {
			fmt.Fprintf(&b, "%s: %s\n", step, mustJSON(v))
		}
	}
	res, err := w.start(ctx, web, stayArgs())
	say("start", res, err)
	again, err := w.start(ctx, web, stayArgs())
	say("identical start", again, err)
	w.clock.Advance(61 * time.Second)
	r2, err := w.start(ctx, web, args("booking_id", res.BookingID))
	say("resend", r2, err)
	_, err = w.confirm(ctx, web, args("booking_id", res.BookingID, "code", "000000"))
	say("wrong code", nil, err)
	changed, err := w.start(ctx, web, stayArgs("phone", "+44 20 7946 0018"))
	say("changed start", changed, err)
	w.clock.Advance(codeLifetime)
	_, err = w.confirm(ctx, web, args("booking_id", changed.BookingID, "code", w.lastCode("ada@example.com")))
	say("expired", nil, err)
	over, err := w.start(ctx, web, stayArgs("checkin", "2027-01-10", "checkout", "2027-01-12"))
	say("mailbox over its hourly limit", over, err)
	w.clock.Advance(time.Hour) // the hourly window moves on
	third, err := w.start(ctx, web, stayArgs("checkin", "2027-01-10", "checkout", "2027-01-12"))
	say("third start", third, err)
	if err == nil {
		for range wrongTries {
			_, err = w.confirm(ctx, web, args("booking_id", third.BookingID, "code", "000000"))
		}
		say("exhausted", nil, err)
	}
	w.mail.failNext(fmt.Errorf("provider down: %w", errNotSentForTest))
	_, err = w.start(ctx, web, stayArgs("checkin", "2027-02-10", "checkout", "2027-02-12"))
	say("rejected send", nil, err)
	fourth, err := w.start(ctx, web, stayArgs("checkin", "2027-03-10", "checkout", "2027-03-12"))
	say("after the refund", fourth, err)
	for _, m := range w.messages() {
		fmt.Fprintf(&b, "mail to=%v reply=%q subject=%q\n%s\n", m.To, m.ReplyTo, m.Subject, m.Text)
	}
	for _, key := range []string{"book-group", "book-location/riverside"} {
		fmt.Fprintf(&b, "admission %s: %d\n", key, admitted(t, w, key))
	}
	return b.String()
}

// TestPairedWorldsBeforeProof compares the same unproved calls with and
// without a stored stay for the caller's email and phone: every answer,
// mail and admission count must be the same bytes.
func TestPairedWorldsBeforeProof(t *testing.T) {
	empty := newWorld(t)
	seedStay(t, empty, false, "OTL-00000000000000AA", "2026-12-29", "2027-01-01")
	matching := newWorld(t)
	seedStay(t, matching, true, "OTL-00000000000000AA", "2026-12-29", "2027-01-01")
	a, b := transcript(t, empty), transcript(t, matching)
	if a != b {
		t.Fatalf("a stored stay changed unproved answers:\n--- without ---\n%s\n--- with ---\n%s", a, b)
	}
	if !strings.Contains(a, "mailbox over its hourly limit: This stay cannot be booked in chat.") {
		t.Fatalf("transcript did not reach the mailbox limit:\n%s", a)
	}
}

// TestPairedWorldsAfterProof: after proof, a stored stay under somebody
// else's email but the caller's phone changes nothing; the caller's own
// email does apply the contact rules.
func TestPairedWorldsAfterProof(t *testing.T) {
	run := func(w *world) string {
		ctx := context.Background()
		res, err := w.start(ctx, web, stayArgs("email", "grace@example.com"))
		if err != nil {
			t.Fatal(refusalText(err))
		}
		conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode("grace@example.com")))
		if err != nil {
			return refusalText(err)
		}
		return strings.ReplaceAll(mustJSON(conf), conf.ReservationNumber, "REF")
	}
	other := newWorld(t)
	seedStay(t, other, false, "OTL-00000000000000AA", "2026-12-29", "2027-01-01")
	phoneOnly := newWorld(t)
	seedStay(t, phoneOnly, true, "OTL-00000000000000AA", "2026-12-29", "2027-01-01") // ada's email, same phone as the caller
	if a, b := run(other), run(phoneOnly); a != b {
		t.Fatalf("a phone match changed the answer:\n%s\n%s", a, b)
	}
}

var errNotSentForTest = fmt.Errorf("rejected at RCPT: %w: %w", message.ErrNotSent, message.ErrRecipientRefused)

// TestContactRulesAfterProof exercises pending, overlap, completed-adjacent
// and chained intervals with one-night gaps; every refusal is the one
// sentence.
func TestContactRulesAfterProof(t *testing.T) {
	const sentence = "This stay cannot be booked in chat. Use the booking form or call +1 303 555 0111.\n"
	raise := func(c *config.Config) { c.Limits.LocationPending, c.Limits.PortfolioPending = 50, 50 }
	tests := []struct {
		name     string
		existing [][2]string // checkin, checkout of stays held by the same proved email
		state    reservation.State
		in, out  string
		refused  bool
	}{
		{"overlap", [][2]string{{"2026-12-29", "2026-12-31"}}, reservation.Confirmed, "2026-12-30", "2027-01-02", true},
		{"adjacent within the cap", [][2]string{{"2026-12-20", "2026-12-30"}}, reservation.Completed, "2026-12-30", "2027-01-02", false},
		{"two pending already", [][2]string{{"2027-03-01", "2027-03-02"}, {"2027-04-01", "2027-04-02"}}, reservation.Reserved, "2026-12-30", "2027-01-02", true},
		{"one-night gap joins past the cap", [][2]string{{"2026-12-02", "2026-12-29"}}, reservation.Confirmed, "2026-12-30", "2027-01-02", true},
		{"two-night gap does not join", [][2]string{{"2026-12-02", "2026-12-28"}}, reservation.Confirmed, "2026-12-30", "2027-01-02", false},
		{"chained through a gap", [][2]string{{"2026-12-01", "2026-12-15"}, {"2026-12-16", "2026-12-29"}}, reservation.Confirmed, "2026-12-30", "2027-01-05", true},
		{"cancelled rows do not count", [][2]string{{"2026-12-29", "2026-12-31"}}, reservation.Cancelled, "2026-12-30", "2027-01-02", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, raise)
			ctx := context.Background()
			mailbox, _ := w.svc.keyed(ctx, testNow, "mailbox", "ada@example.com")
			for i, s := range tt.existing {
				ref := fmt.Sprintf("OTL-00000000000000%02X", i)
				in := mustDate(s[0])
				seedReservation(t, w, reservation.Reservation{Reference: ref, Location: "oldtown", Source: reservation.SourceChat,
					Contact: reservation.Contact{Email: "ada@example.com"}, ContactKey: mailbox, Unit: "single",
					Slots: inventory.Nights(in, in.DaysUntil(mustDate(s[1]))), Held: tt.state.HoldsUnits(), State: tt.state, CreatedAt: testNow})
			}
			res, err := w.start(ctx, web, stayArgs("checkin", tt.in, "checkout", tt.out))
			if err != nil {
				t.Fatal(refusalText(err))
			}
			_, err = w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode("ada@example.com")))
			got := refusalText(err)
			if tt.refused != (got != "") {
				t.Fatalf("refused = %q, want refused %v", got, tt.refused)
			}
			if tt.refused && !strings.HasPrefix(got, sentence) {
				t.Fatalf("refusal = %q, want the fixed contact sentence", got)
			}
		})
	}
}

// TestReuseHeldReservation: the same proved email asking again for the
// same stay gets its existing reservation, not a second one.
func TestReuseHeldReservation(t *testing.T) {
	w := newWorld(t)
	first := w.book(stayArgs())
	w.clock.Advance(time.Minute)
	second := w.book(stayArgs("phone", "+1 720 555 0100"))
	if first != second {
		t.Fatalf("second booking made %s, want the held %s", second, first)
	}
}
