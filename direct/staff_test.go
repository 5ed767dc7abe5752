package direct

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/golden"
	"frontdesk/reservation"
	"frontdesk/store"
)

func livePlaces(t *testing.T, w *world, scope string) int {
	t.Helper()
	n, err := reservation.Live(context.Background(), w.st, scope, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStaffDecisions moves reservations through staff decisions: each
// frees what it should in the same transaction, records who decided, and
// mails the guest the bytes pinned in staff-mails.txt.
func TestStaffDecisions(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	confirmed := w.book(stayArgs())
	if livePlaces(t, w, scopeLocation("riverside")) != 1 || livePlaces(t, w, scopeGroup) != 1 {
		t.Fatal("a new reservation holds no pending place")
	}
	r, sent, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: confirmed, To: reservation.Confirmed, By: "ann"})
	if err != nil || !sent || r.State != reservation.Confirmed || !r.Held {
		t.Fatalf("confirm = %+v, sent %v, %v", r, sent, err)
	}
	if livePlaces(t, w, scopeLocation("riverside")) != 0 || livePlaces(t, w, scopeGroup) != 0 {
		t.Fatal("a confirmed reservation still counts as pending")
	}
	if freeDoubles(t, w) != 1 {
		t.Fatal("confirming released the room")
	}
	last := r.Audit[len(r.Audit)-1]
	if last.By != "ann" || last.What != "reserved→confirmed" || !last.At.Equal(testNow) {
		t.Fatalf("audit = %+v", r.Audit)
	}
	// The guest's own lookup reads the new state.
	lookup, err := w.lookup(ctx, web, args("reservation_number", confirmed, "phone_last4", "0199"))
	if err != nil || lookup.Status != "confirmed" {
		t.Fatalf("lookup = %+v, %s", lookup, refusalText(err))
	}

	declined := w.book(stayArgs("email", "grace@example.com", "guest_name", "Grace Hopper"))
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: declined, To: reservation.Declined, By: "ann", Note: "double booked by phone"}); err != nil {
		t.Fatal(err)
	}
	if freeDoubles(t, w) != 1 || livePlaces(t, w, scopeLocation("riverside")) != 0 {
		t.Fatalf("decline left %d doubles free and %d pending", freeDoubles(t, w), livePlaces(t, w, scopeLocation("riverside")))
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: confirmed, To: reservation.Cancelled, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if freeDoubles(t, w) != 2 {
		t.Fatal("a staff cancellation kept the room")
	}

	// Refused moves change nothing.
	for _, d := range []reservation.Decision{
		{Reference: declined, To: reservation.Confirmed},
		{Reference: confirmed, To: reservation.Completed},
	} {
		before, _ := w.svc.getBooked(ctx, d.Reference)
		_, _, err := w.svc.core.Decide(ctx, d)
		if !errors.Is(err, reservation.ErrIllegal) {
			t.Fatalf("%s to %s = %v, want an illegal transition", d.Reference, d.To, err)
		}
		after, _ := w.svc.getBooked(ctx, d.Reference)
		if after.Version != before.Version {
			t.Fatalf("a refused move changed %s", d.Reference)
		}
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: "RIV-0000000000000000", To: reservation.Confirmed}); !errors.Is(err, reservation.ErrNoReservation) {
		t.Fatalf("unknown reference = %v", err)
	}

	var mails strings.Builder
	for _, m := range w.messages() {
		if !strings.HasPrefix(m.Text, "Staff at ") {
			continue // the booking mails are pinned by flow-mails.txt
		}
		fmt.Fprintf(&mails, "=== To: %s\nFrom: %s\nReply-To: %s\nSubject: %s\n\n%s\n", strings.Join(m.To, ", "), m.From, m.ReplyTo, m.Subject, m.Text)
	}
	golden.Check(t, "staff-mails.txt", []byte(mails.String()))

	list, err := w.svc.Reservations(ctx, store.ReservationFilter{Location: "riverside", States: []string{"cancelled", "declined"}, Limit: 10})
	if err != nil || len(list) != 2 {
		t.Fatalf("staff list = %d rows, %v", len(list), err)
	}
}

// TestDemoKeepsTakingBookings: a location ceiling of three pending chat
// reservations (the specification's worked value) no longer stops chat
// booking for good. With
// staff confirming each, one property takes a fourth, tenth and
// hundredth booking; without staff, it takes a fourth once the first
// stays have ended.
func TestDemoKeepsTakingBookings(t *testing.T) {
	threePending := func(c *config.Config) { c.Limits.LocationPending = 3 }
	t.Run("staff confirm", func(t *testing.T) {
		w := newWorld(t, threePending)
		ctx := context.Background()
		for i := range 100 {
			w.clock.Advance(2 * time.Hour) // inside every mail budget
			in := mustDate("2027-01-01").AddDays(i)
			ref := w.book(stayArgs("roomtype", "single", "checkin", in.String(), "checkout", in.AddDays(1).String(),
				"email", fmt.Sprintf("guest%d@example.com", i)))
			if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Confirmed, By: "ann"}); err != nil {
				t.Fatalf("booking %d: %v", i+1, err)
			}
		}
		list, err := w.svc.Reservations(ctx, store.ReservationFilter{Location: "riverside", States: []string{"confirmed"}, Limit: 1000})
		if err != nil || len(list) != 100 {
			t.Fatalf("%d confirmed reservations, %v; want 100", len(list), err)
		}
	})
	t.Run("stays end", func(t *testing.T) {
		w := newWorld(t, threePending)
		ctx := context.Background()
		for i := range 3 {
			w.book(stayArgs("roomtype", "single", "checkin", "2026-12-01", "checkout", "2026-12-03",
				"email", fmt.Sprintf("guest%d@example.com", i)))
		}
		_, err := w.start(ctx, web, stayArgs("roomtype", "single", "checkin", "2026-12-10", "checkout", "2026-12-12", "email", "late@example.com"))
		if !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused while staff confirm existing reservations.") {
			t.Fatalf("fourth while three pending = %q", refusalText(err))
		}
		w.clock.Advance(5 * 24 * time.Hour) // past the departure day of all three
		w.book(stayArgs("roomtype", "single", "checkin", "2026-12-10", "checkout", "2026-12-12", "email", "late@example.com"))
	})
}
