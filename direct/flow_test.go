package direct

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
	"frontdesk/message"
)

// TestWholeFlow books, looks up and cancels one stay, and pins every
// answer and every mail byte for byte.
func TestWholeFlow(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	var log strings.Builder
	note := func(step string, v any, err error) {
		if err != nil {
			fmt.Fprintf(&log, "== %s: REFUSED\n%s\n", step, refusalText(err))
			return
		}
		fmt.Fprintf(&log, "== %s\n%s\n", step, mustJSON(v))
	}

	start, err := w.start(ctx, web, stayArgs("guests", 2.0, "notes", "Arriving late, see www.example.com/map"))
	note("start", start, err)
	if err != nil {
		t.Fatal(refusalText(err))
	}
	again, err := w.start(ctx, web, stayArgs("guests", 2.0, "notes", "Arriving late, see www.example.com/map"))
	note("identical start", again, err)
	if again.BookingID != start.BookingID || len(w.messages()) != 1 {
		t.Fatalf("identical start made id %s and %d mails", again.BookingID, len(w.messages()))
	}
	code := w.lastCode("ada@example.com")
	conf, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", code))
	note("confirm", conf, err)
	if err != nil {
		t.Fatal(refusalText(err))
	}
	replay, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", code))
	note("confirm replay", replay, err)
	if err != nil || replay.ReservationNumber != conf.ReservationNumber {
		t.Fatalf("replay = %v, %v", replay, refusalText(err))
	}
	free, _ := w.svc.inv.FreeNights(ctx, w.cfg.Locations[0], mustDate("2026-12-30"), 3)
	if got := freeOf(free, "double"); got != 1 {
		t.Fatalf("doubles free after booking = %d, want 1", got)
	}
	look, err := w.lookup(ctx, web, args("reservation_number", conf.ReservationNumber, "phone_last4", "0199"))
	note("get_booking", look, err)
	w.clock.Advance(time.Minute) // mail of each step sorts after the last
	c1, err := w.cancel(ctx, web, args("reservation_number", conf.ReservationNumber, "phone_last4", "0199"))
	note("cancel step 1", c1, err)
	if err != nil {
		t.Fatal(refusalText(err))
	}
	cancelCode := w.lastCode("ada@example.com")
	c2, err := w.cancel(ctx, web, args("cancel_id", c1.CancelID, "code", cancelCode))
	note("cancel step 2", c2, err)
	if err != nil || c2.Status != "cancelled" {
		t.Fatalf("cancel = %v, %v", c2, refusalText(err))
	}
	c3, err := w.cancel(ctx, web, args("cancel_id", c1.CancelID, "code", cancelCode))
	note("cancel replay", c3, err)
	if err != nil || mustJSON(c3) != mustJSON(c2) {
		t.Fatalf("cancel replay = %v, %v", c3, refusalText(err))
	}
	free, _ = w.svc.inv.FreeNights(ctx, w.cfg.Locations[0], mustDate("2026-12-30"), 3)
	if got := freeOf(free, "double"); got != 2 {
		t.Fatalf("doubles free after cancelling = %d, want 2", got)
	}
	replay, err = w.confirm(ctx, web, args("booking_id", start.BookingID, "code", code))
	note("confirm replay after cancel", replay, err)

	golden.Check(t, "flow-answers.txt", []byte(log.String()))
	var mails strings.Builder
	for _, m := range w.messages() {
		fmt.Fprintf(&mails, "=== To: %s\nFrom: %s\nReply-To: %s\nSubject: %s\n\n%s\n", strings.Join(m.To, ", "), m.From, m.ReplyTo, m.Subject, m.Text)
	}
	golden.Check(t, "flow-mails.txt", []byte(mails.String()))
}

func mustDate(s string) civil.Date {
	d, err := civil.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestResendKeepsExpiryAndLimits(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	start, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	first := w.lastCode("ada@example.com")
	_, err = w.start(ctx, web, args("booking_id", start.BookingID))
	if got := refusalText(err); !strings.HasPrefix(got, "Wait 60 seconds between verification emails.") {
		t.Fatalf("early resend = %q", got)
	}
	w.clock.Advance(61 * time.Second)
	res, err := w.start(ctx, web, args("booking_id", start.BookingID))
	if err != nil || res.CodeExpiresAt != start.CodeExpiresAt {
		t.Fatalf("resend = %+v, %v; want the original expiry %s", res, refusalText(err), start.CodeExpiresAt)
	}
	second := w.lastCode("ada@example.com")
	w.clock.Advance(61 * time.Second)
	if _, err := w.start(ctx, web, args("booking_id", start.BookingID)); err != nil {
		t.Fatal(refusalText(err))
	}
	w.clock.Advance(61 * time.Second)
	_, err = w.start(ctx, web, args("booking_id", start.BookingID))
	if got := refusalText(err); !strings.HasPrefix(got, "Only two code resends are allowed per booking intent.") {
		t.Fatalf("third resend = %q", got)
	}
	third := w.lastCode("ada@example.com")
	for _, old := range []string{first, second} {
		if old == third {
			continue
		}
		_, err = w.confirm(ctx, web, args("booking_id", start.BookingID, "code", old))
		if got := refusalText(err); !strings.HasPrefix(got, "Incorrect or expired verification code.") {
			t.Fatalf("replaced code = %q", got)
		}
	}
	if _, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", third)); err != nil {
		t.Fatalf("current code refused: %s", refusalText(err))
	}
}

func TestWrongCodesEndTheIntent(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	start, _ := w.start(ctx, web, stayArgs())
	code := w.lastCode("ada@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for i := range wrongTries {
		_, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", wrong))
		if !strings.HasPrefix(refusalText(err), "Incorrect or expired verification code.") {
			t.Fatalf("try %d: %q", i, refusalText(err))
		}
	}
	_, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", code))
	if got, want := refusalText(err), "Booking intent expired or unavailable. Call +1 303 555 0111."; got != want {
		t.Fatalf("after five wrong codes = %q, want %q", got, want)
	}
}

func TestExpiredIntent(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	start, _ := w.start(ctx, web, stayArgs())
	code := w.lastCode("ada@example.com")
	w.clock.Advance(codeLifetime)
	_, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", code))
	want := "Booking intent expired or unavailable. The booking form is available, or call +1 303 555 0111.\nhttp://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"
	if got := refusalText(err); got != want {
		t.Fatalf("expired = %q, want %q", got, want)
	}
}

// TestFailedNoticeKeepsTheReservation: the guest's reservation email fails;
// the room stays held, the notice stays queued for a retry, and the answer
// says what was not delivered.
func TestFailedNoticeKeepsTheReservation(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	res, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	code := w.lastCode("ada@example.com")
	w.mail.failNext(fmt.Errorf("mailbox full: %w", errNotSentForTest))
	conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
	if err != nil {
		t.Fatal(refusalText(err))
	}
	if !strings.HasSuffix(conf.Message, "The confirmation email could not be sent yet; it will be retried, and staff have the reservation.") {
		t.Fatalf("message = %q", conf.Message)
	}
	if !reservationHeld(t, w, conf.ReservationNumber) || freeDoubles(t, w) != 1 {
		t.Fatal("a failed notice undid the reservation")
	}
	n, _, err := getJSON[notice](ctx, w.st, kindNotice, noticeID(conf.ReservationNumber, "reserved", "guest"))
	if err != nil || n.State != noticeFailed || !n.NextAt.Equal(testNow.Add(15*time.Minute)) || n.Attempts != 1 {
		t.Fatalf("guest notice = %+v, %v", n, err)
	}
	staff, _, _ := getJSON[notice](ctx, w.st, kindNotice, noticeID(conf.ReservationNumber, "reserved", "staff"))
	if staff.State != noticeSent {
		t.Fatalf("staff notice = %s", staff.State)
	}
}

// TestMailOutageIsNotARejectedAddress: a code email that did not leave
// because the provider was down or refused the login is answered as an
// outage, never as a refused address; only a refused recipient gets the
// address sentence. Either way the charge is refunded and nothing stays
// open.
func TestMailOutageIsNotARejectedAddress(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.mail.failNext(fmt.Errorf("535 authentication failed: %w", message.ErrNotSent))
	_, err := w.start(ctx, web, stayArgs())
	if got := refusalText(err); !strings.HasPrefix(got, "This booking cannot be checked right now.") {
		t.Fatalf("outage answered %q", got)
	}
	w.mail.failNext(fmt.Errorf("550 no such user: %w: %w", message.ErrNotSent, message.ErrRecipientRefused))
	_, err = w.start(ctx, web, stayArgs())
	if got := refusalText(err); !strings.HasPrefix(got, "The email address was not accepted.") {
		t.Fatalf("refused recipient answered %q", got)
	}
	if _, err := w.start(ctx, web, stayArgs()); err != nil {
		t.Fatalf("a start after both failures: %v", refusalText(err))
	}
}
