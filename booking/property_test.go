package booking

import (
	"context"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"frontdesk/config"
	"frontdesk/reservation"
	"frontdesk/store"
)

// TestNeverOversellNorHoldForEnded: random interleavings of bookings,
// form requests, guest cancellations, staff decisions, sweeps and the
// passing of time
// never hold more doubles than Riverside has, and never leave units held
// by a reservation that has ended, nor a held reservation without its
// units.
func TestNeverOversellNorHoldForEnded(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(t, func(c *config.Config) {
			raiseMailLimits(c)
			c.Limits.PortfolioPending, c.Limits.LocationPending = 50, 50
		})
		ctx := context.Background()
		var refs []string
		nights := []string{"2026-12-10", "2026-12-11", "2026-12-12"}
		for step := range rapid.IntRange(5, 15).Draw(rt, "steps") {
			switch rapid.IntRange(0, 5).Draw(rt, "action") {
			case 0: // a guest books one or two nights
				in := rapid.IntRange(0, 2).Draw(rt, "checkin")
				out := rapid.IntRange(in+1, 3).Draw(rt, "checkout")
				email := fmt.Sprintf("g%d@example.com", step)
				checkout := "2026-12-13"
				if out < 3 {
					checkout = nights[out]
				}
				res, err := w.start(ctx, web, stayArgs("email", email, "checkin", nights[in], "checkout", checkout))
				if err != nil {
					continue // no room free, or a limit: nothing held
				}
				conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(email)))
				if err == nil {
					refs = append(refs, conf.ReservationNumber)
				}
			case 1: // a guest cancels in two steps
				if len(refs) == 0 {
					continue
				}
				ref := rapid.SampledFrom(refs).Draw(rt, "ref")
				r, err := w.svc.getBooked(ctx, ref)
				if err != nil {
					rt.Fatal(err)
				}
				c1, err := w.cancel(ctx, web, args("reservation_number", ref, "phone_last4", "0199"))
				if err != nil {
					continue // outside office hours, past the cutoff, or ended
				}
				w.cancel(ctx, web, args("cancel_id", c1.CancelID, "code", w.lastCode(r.Contact.Email)))
			case 2: // staff decide anything, allowed or not
				if len(refs) == 0 {
					continue
				}
				to := rapid.SampledFrom(reservation.States()).Draw(rt, "to")
				w.svc.Decide(ctx, Decision{Reference: rapid.SampledFrom(refs).Draw(rt, "ref"), To: to, By: "ann"})
			case 3:
				w.sweep()
			case 5: // a form request, holding nothing until staff accept it
				n := rapid.IntRange(0, 2).Draw(rt, "night")
				r, err := w.svc.Book(ctx, BookRequest{Location: "riverside", Unit: "double", Slots: nights[n : n+1],
					Contact: reservation.Contact{Email: fmt.Sprintf("f%d@example.com", step)}, Source: reservation.SourceForm})
				if err != nil {
					rt.Fatal(err)
				}
				refs = append(refs, r.Reference)
			case 4:
				w.clock.Advance(time.Duration(rapid.IntRange(1, 3*24*60).Draw(rt, "minutes")) * time.Minute)
			}
			checkHeldMatchesIndex(rt, w)
		}
	})
}

// checkHeldMatchesIndex compares every night's held doubles with the
// reservations that say they hold one.
func checkHeldMatchesIndex(rt *rapid.T, w *world) {
	ctx := context.Background()
	rows, err := reservation.List(ctx, w.st, store.ReservationFilter{Limit: 1000})
	if err != nil {
		rt.Fatal(err)
	}
	want := map[string]int{}
	for _, r := range rows {
		if r.Held != r.State.HoldsUnits() {
			rt.Fatalf("%s is %s with held %v", r.Reference, r.State, r.Held)
		}
		if r.Held {
			for _, n := range r.Slots {
				want[n]++
			}
		}
	}
	counts, err := w.st.Counts(ctx, "riverside", "2026-12-01", "2027-01-01")
	if err != nil {
		rt.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range counts {
		if c.Unit == "double" {
			got[c.Slot] = c.Held
		}
		if c.Held > 2 {
			rt.Fatalf("%s holds %d of 2 doubles", c.Slot, c.Held)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		rt.Fatalf("index holds %v, reservations hold %v", got, want)
	}
}
