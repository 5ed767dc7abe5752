package referral

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/orp"
	"frontdesk/reservation"
	"frontdesk/store"
)

// TestRefusedRefundDoesNotHoldLaterEnds: the ORP host refuses the refund
// of one booking at every pass (its sale is not on the host, as after
// the host's records were restored from an older copy than the
// ledger's), and the ledger's later end still settles: the refused event
// is set aside at its fifth counted failure, with the host's refusal as
// its error, and the booking stays counted for staff to look at. Before
// the setting aside, the later end waits behind it.
func TestRefusedRefundDoesNotHoldLaterEnds(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		clk := clock.NewFixed(at)
		h, err := orp.New(orp.Options{Store: st, Clock: clk, Rand: random.Seeded([32]byte{1}), Origin: "https://riverside.example"})
		if err != nil {
			t.Fatal(err)
		}
		payer := func(ctx context.Context) (string, error) {
			p, err := h.BusinessParty(ctx)
			if err != nil {
				return "", err
			}
			return p.ID, nil
		}
		desk := reservation.NewDesk(st)
		desk.Outbox(reservation.OutboxOptions{Clock: clk})
		New(Options{Host: h, Payer: payer, Currency: "USD", Store: st}).Attach(desk, st)

		counted, _ := json.Marshal(Booking{Deal: "d1", Obligation: "commission", Door: "form", Total: 20000, Currency: "USD", State: StateCounted, At: at})
		end := map[string]func(reservation.Change) (reservation.Reservation, error){
			// Declined: a refund, which the host refuses.
			"RIV-1": func(c reservation.Change) (reservation.Reservation, error) {
				return desk.Decide(ctx, c, reservation.Declined)
			},
			// Cancelled once the stay began: final, no host call.
			"RIV-2": func(c reservation.Change) (reservation.Reservation, error) { return desk.Cancel(ctx, c) },
		}
		for _, ref := range []string{"RIV-1", "RIV-2"} {
			r, err := desk.Create(ctx, reservation.New{Kind: reservation.KindBooking, Reference: ref,
				Unit:  reservation.Unit{Location: "riverside", Type: "double", Capacity: 2},
				Slots: []string{"2026-12-01", "2026-12-02"}, Source: reservation.SourceForm, By: "guest", At: at, Guests: 1, Total: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Create(ctx, store.Record{Kind: kindBooking, Key: ref, Value: counted, UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if _, err := end[ref](reservation.Change{Read: r, By: "staff", At: at.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}

		for pass := 1; pass < 5; pass++ {
			clk.Advance(time.Minute)
			err := desk.Relay(ctx)
			if _, refused := errors.AsType[*orp.Error](err); !refused {
				t.Fatalf("pass %d = %v, want the host's refusal", pass, err)
			}
			if state := bookingState(t, st, "RIV-2"); state != StateCounted {
				t.Fatalf("pass %d: RIV-2 is %s before RIV-1 was set aside", pass, state)
			}
		}
		clk.Advance(time.Minute)
		if err := desk.Relay(ctx); err != nil {
			t.Fatalf("the pass that sets RIV-1's end aside = %v", err)
		}
		if state := bookingState(t, st, "RIV-2"); state != StateFinal {
			t.Fatalf("RIV-2 after RIV-1 was set aside: %s, want %s", state, StateFinal)
		}
		if state := bookingState(t, st, "RIV-1"); state != StateCounted {
			t.Fatalf("RIV-1, refused: %s, want %s", state, StateCounted)
		}
		aside, err := desk.SetAsideEvents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(aside) != 1 || aside[0].Consumer != "referral" || aside[0].Reference != "RIV-1" || aside[0].Attempts != 5 ||
			!strings.Contains(aside[0].Error, "No sale with this id was reported.") {
			t.Fatalf("set aside %+v, want RIV-1's end with the host's refusal", aside)
		}
	})
}
