package direct

import (
	"context"
	"errors"
	"testing"

	"frontdesk/reservation"
	"frontdesk/store"
)

// TestBookForOtherDoors: a platform's timed booking holds its slot with
// the reservation, the next one for the same slot is refused whole, a
// form request holds nothing until staff accept it, and accepting it
// when the units are gone changes nothing.
func TestBookForOtherDoors(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	slot := []string{"2026-12-10T10:00"}
	usp, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "airport", Unit: "shuttle", Slots: slot, Guests: 2,
		Source: reservation.USP("acme"), Total: 2500, Kind: reservation.KindBooking, By: "usp:acme"})
	if err != nil || usp.State != reservation.Reserved || !usp.Held {
		t.Fatalf("USP booking = %+v, %v", usp, err)
	}
	if _, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "airport", Unit: "shuttle", Slots: slot, Source: reservation.USP("acme"), Kind: reservation.KindBooking}); !errors.Is(err, reservation.ErrUnitTaken) {
		t.Fatalf("second booking of the one shuttle seat = %v, want reservation.ErrUnitTaken", err)
	}
	form, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "airport", Unit: "shuttle", Slots: slot, Source: reservation.SourceForm, By: "guest"})
	if err != nil || form.State != reservation.Requested || form.Held {
		t.Fatalf("form request = %+v, %v", form, err)
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: form.Reference, To: reservation.Confirmed, By: "ann"}); !errors.Is(err, reservation.ErrUnitTaken) {
		t.Fatalf("accepting a request for a taken slot = %v, want reservation.ErrUnitTaken", err)
	}
	if got, _ := w.svc.getBooked(ctx, form.Reference); got.State != reservation.Requested || got.Version != 1 {
		t.Fatalf("a refused acceptance changed the request: %+v", got.Reservation)
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: usp.Reference, To: reservation.Cancelled, By: "usp:acme"}); err != nil {
		t.Fatal(err)
	}
	accepted, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: form.Reference, To: reservation.Confirmed, By: "ann"})
	if err != nil || !accepted.Held {
		t.Fatalf("accepting the request once the slot is free = %+v, %v", accepted, err)
	}
	counts, _ := w.st.Counts(ctx, "airport", "2026-12-10", "2026-12-11")
	if len(counts) != 1 || counts[0].Held != 1 {
		t.Fatalf("counts = %v, want the one seat held by the accepted request", counts)
	}
	list, _ := w.svc.Reservations(ctx, store.ReservationFilter{Source: "usp:acme", Limit: 10})
	if len(list) != 1 || list[0].State != reservation.Cancelled {
		t.Fatalf("the platform's reservations = %+v", list)
	}
	if _, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "airport", Unit: "sauna", Slots: slot, Source: reservation.SourceStaff}); err == nil {
		t.Fatal("a unit the business does not sell was booked")
	}
}
