package direct

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"frontdesk/config"
	"frontdesk/reservation"
	"frontdesk/store"
)

// TestNeverOversellNorHoldForEnded: random interleavings of every door
// (chat bookings and guest cancellations, form requests, staff decisions
// on anything, staff-made reservations, a platform's tentative holds
// that it converts, releases or lets expire), sweeps and the passing of
// time never hold more doubles than Riverside has, never leave units held
// by a reservation that has ended, nor a held reservation without its
// units; a staff decision on a hold is always refused, and a hold past
// its expiry holds nothing once the platform's deadlines ran.
func TestNeverOversellNorHoldForEnded(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(t, func(c *config.Config) {
			raiseMailLimits(c)
			c.Limits.PortfolioPending, c.Limits.LocationPending = 50, 50
		})
		ctx := context.Background()
		var refs, holds []string
		nights := []string{"2026-12-10", "2026-12-11", "2026-12-12"}
		for step := range rapid.IntRange(5, 20).Draw(rt, "steps") {
			switch rapid.IntRange(0, 9).Draw(rt, "action") {
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
			case 2: // staff decide anything, allowed or not, holds too
				if len(refs)+len(holds) == 0 {
					continue
				}
				to := rapid.SampledFrom(reservation.States()).Draw(rt, "to")
				ref := rapid.SampledFrom(append(slices.Clone(refs), holds...)).Draw(rt, "ref")
				before, _ := reservation.Get(ctx, w.st, ref)
				_, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: ref, To: to, By: "ann"})
				if before.State == reservation.OnHold && reservation.ErrorCode(err) != reservation.CodeIllegalTransition {
					rt.Fatalf("staff %s on hold %s = %v, want refused", to, ref, err)
				}
			case 3:
				w.sweep()
			case 5: // a form request, holding nothing until staff accept it
				n := rapid.IntRange(0, 2).Draw(rt, "night")
				r, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "double", Slots: nights[n : n+1],
					Contact: reservation.Contact{Email: fmt.Sprintf("f%d@example.com", step)}, Source: reservation.SourceForm})
				if err != nil {
					rt.Fatal(err)
				}
				refs = append(refs, r.Reference)
			case 4:
				w.clock.Advance(time.Duration(rapid.IntRange(1, 3*24*60).Draw(rt, "minutes")) * time.Minute)
			case 6: // a platform holds a night for ten minutes
				n := rapid.IntRange(0, 2).Draw(rt, "night")
				r, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "double", Slots: nights[n : n+1], Source: reservation.USP("acme"),
					Kind: reservation.KindHold, Expires: w.clock.Now().Add(10 * time.Minute), By: "usp:acme"})
				if err == nil {
					holds = append(holds, r.Reference)
				} else if !errors.Is(err, reservation.ErrUnitTaken) {
					rt.Fatal(err)
				}
			case 7: // the platform converts or releases one of its holds
				if len(holds) == 0 {
					continue
				}
				r, err := reservation.Get(ctx, w.st, rapid.SampledFrom(holds).Draw(rt, "hold"))
				if err != nil {
					rt.Fatal(err)
				}
				c := reservation.Change{Read: r, By: "usp:acme", At: w.clock.Now()}
				if rapid.Bool().Draw(rt, "convert") {
					_, err = w.svc.Desk().Convert(ctx, c, reservation.Reserved)
				} else {
					_, err = w.svc.Desk().Release(ctx, c)
				}
				if err != nil && reservation.ErrorCode(err) != reservation.CodeIllegalTransition {
					rt.Fatal(err) // only a hold that ended or lapsed is refused
				}
			case 8: // the platform's deadlines: every lapsed hold expires
				expireHolds(rt, w, holds)
			case 9: // staff book a guest on the phone
				n := rapid.IntRange(0, 2).Draw(rt, "night")
				r, err := w.svc.core.Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "double", Slots: nights[n : n+1], Source: reservation.SourceStaff,
					Contact: reservation.Contact{Name: "Walk In", Phone: "+1 303 555 0100"}, Kind: reservation.KindConfirmed, By: "ann"})
				if err == nil {
					refs = append(refs, r.Reference)
				} else if !errors.Is(err, reservation.ErrUnitTaken) {
					rt.Fatal(err)
				}
			}
			checkHeldMatchesIndex(rt, w)
		}
	})
}

// expireHolds ends every hold past its expiry, as the platform's
// deadlines do, and checks none is left holding.
func expireHolds(rt *rapid.T, w *world, holds []string) {
	ctx := context.Background()
	now := w.clock.Now()
	for _, ref := range holds {
		r, err := reservation.Get(ctx, w.st, ref)
		if err != nil {
			rt.Fatal(err)
		}
		if r.State != reservation.OnHold || now.Before(r.HoldExpires) {
			continue
		}
		if _, err := w.svc.Desk().ExpireHold(ctx, reservation.Change{Read: r, By: "sweep", At: now}); err != nil {
			rt.Fatal(err)
		}
		if r, _ := reservation.Get(ctx, w.st, ref); r.Held {
			rt.Fatalf("lapsed hold %s still holds", ref)
		}
	}
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
