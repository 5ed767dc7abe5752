package usp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/usp"
)

// vector reads one flow vector of the newer text, so that a test fails
// when the vector it stands for disappears or changes its verdict.
func vector(t *testing.T, id string) map[string]any {
	t.Helper()
	raw, ok := uspspec.FlowVectors(t)[id]
	if !ok {
		t.Fatalf("flow vector %s is missing", id)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// inBothModes runs f on a bench in each USP mode: the scheduling flows
// are the same in Standalone and UCP-native mode (§7.1).
func inBothModes(t *testing.T, f func(t *testing.T, b *bench)) {
	for _, mode := range []string{config.USPStandalone, config.USPUCPNative} {
		t.Run(mode, func(t *testing.T) {
			b := newBenchIn(t, mode)
			if ucp := b.ProfileLocation() == usp.UCPProfilePath; ucp != (mode == config.USPUCPNative) {
				t.Fatalf("the %s bench publishes %s", mode, b.ProfileLocation())
			}
			f(t, b)
		})
	}
}

// Flow vector 101, the business's part: a hold lapses while the slot
// stays free. Converting it is hold_expired (not slot_unavailable), no
// booking is made, the slot's place is back, and the platform may hold it
// again. (The checkout and charge steps are UCP-native; nothing is
// charged here.)
func TestFlowVector101HoldExpiredSlotStillFree(t *testing.T) {
	v := vector(t, "101-hold-expiry-during-checkout")
	inBothModes(t, func(t *testing.T, b *bench) {
		ctx := context.Background()
		s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
		h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
		if err != nil || h.Hold == nil {
			t.Fatal(err)
		}
		b.Clock.Advance(usp.HoldTTL + 60e9) // the vector converts a minute after the lapse
		res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: h.Hold.ID, Buyer: ada})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := outcome(t, res.Messages), v["outcome_code"]; got != want || res.Booking != nil {
			t.Fatalf("outcome %q with booking %v, want %v and none", got, res.Booking, want)
		}
		if got := b.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID != s.ID {
			t.Fatal("the lapsed hold's slot is not free again")
		}
		again, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
		if err != nil || again.Hold == nil {
			t.Fatalf("re-hold, as the vector's retry guidance says: %+v, %v", again, err)
		}
	})
}

// Flow vector 102: two platforms race for the last place of a slot that
// takes several; the place is taken at hold time, so exactly one hold is
// made and the other is slot_unavailable. The appointment variant: a
// second hold on a held slot is refused too.
func TestFlowVector102ConcurrentHoldsOneSlot(t *testing.T) {
	v := vector(t, "102-concurrent-holds-one-slot")
	inBothModes(t, func(t *testing.T, b *bench) {
		ctx := context.Background()
		// Riverside has three singles; two are held already, one is left.
		s := b.slot(t, "svc_riverside_single", "2026-03-20")
		two := 2
		if h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID, Spots: &two}); err != nil || h.Hold == nil {
			t.Fatal(err)
		}
		const racers = 6
		results := make([]*usp.HoldResult, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				res, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
				if err != nil {
					t.Error(err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			switch {
			case r == nil:
			case r.Hold != nil:
				won++
			case outcome(t, r.Messages) != v["outcome_code"]:
				t.Errorf("loser: %+v", r.Messages)
			}
		}
		if won != 1 {
			t.Fatalf("%d holds on the last place, want 1", won)
		}
		// Appointment variant.
		shuttle := b.slot(t, "svc_airport_shuttle", "2026-03-20")
		if h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: shuttle.ID, ServiceID: shuttle.ServiceID}); err != nil || h.Hold == nil {
			t.Fatal(err)
		}
		second, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: shuttle.ID, ServiceID: shuttle.ServiceID})
		if err != nil || outcome(t, second.Messages) != "slot_unavailable" {
			t.Fatalf("second appointment hold: %+v, %v", second, err)
		}
		// Expiry variant: the place comes back and a retry is accepted.
		b.Clock.Advance(usp.HoldTTL)
		retry, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: shuttle.ID, ServiceID: shuttle.ServiceID})
		if err != nil || retry.Hold == nil {
			t.Fatalf("retry after expiry: %+v, %v", retry, err)
		}
	})
}

// Flow vector 105 (confirmation-mode guard), manual variants: newBench
// makes every service manual, so the business confirms a pending booking,
// and confirming a confirmed one returns it unchanged. A platform's
// credential never confirms. (The auto variant, an auto booking
// confirmed again, is in TestAutoAndManualServicesSideBySide.)
func TestFlowVector105ConfirmationModeGuard(t *testing.T) {
	v := vector(t, "105-confirmation-mode-guard")
	if v["outcome_code"] != "invalid_transition" {
		t.Fatalf("vector outcome = %v", v["outcome_code"])
	}
	inBothModes(t, func(t *testing.T, b *bench) {
		ctx := context.Background()
		s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
		res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
		if err != nil || res.Booking.ConfirmationMode != "manual" {
			t.Fatal(err)
		}
		if c := code(t, firstErr(b.ConfirmBooking(ctx, b.call, res.Booking.ID))); c != usp.CodeAuthenticationRequired {
			t.Fatalf("platform confirm: %s", c)
		}
		first, err := b.ConfirmBooking(ctx, b.staff(), res.Booking.ID)
		if err != nil || first.Booking.Status != "confirmed" || len(first.Messages) != 0 {
			t.Fatalf("manual pending confirm: %+v, %v", first, err)
		}
		again, err := b.ConfirmBooking(ctx, b.staff(), res.Booking.ID)
		if err != nil || again.Booking.Revision != first.Booking.Revision {
			t.Fatalf("confirm of a confirmed booking changed it: %+v, %v", again, err)
		}
	})
}

// Flow vector 105 (abandoned booking), the business's part: a cancelled
// booking reads as canceled with a canceled_at that does not move between
// reads, its place is back, and confirming it is invalid_transition in
// messages[] with the booking unchanged.
func TestFlowVector105CancelledBookingStaysCancelled(t *testing.T) {
	v := vector(t, "105-cancel-checkout-abandoned-booking")
	inBothModes(t, func(t *testing.T, b *bench) {
		ctx := context.Background()
		s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
		res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.CancelBooking(ctx, b.call, res.Booking.ID, usp.CancelRequest{}); err != nil {
			t.Fatal(err)
		}
		first, err := b.GetBooking(ctx, b.call, res.Booking.ID)
		if err != nil {
			t.Fatal(err)
		}
		b.Clock.Advance(5 * 60e9)
		second, err := b.GetBooking(ctx, b.call, res.Booking.ID)
		if err != nil || second.Booking.Cancellation.CanceledAt != first.Booking.Cancellation.CanceledAt || second.Booking.Status != "canceled" {
			t.Fatalf("second read: %+v, %v", second.Booking, err)
		}
		conf, err := b.ConfirmBooking(ctx, b.staff(), res.Booking.ID)
		if err != nil || outcome(t, conf.Messages) != v["outcome_code"] || conf.Booking.Revision != second.Booking.Revision {
			t.Fatalf("confirm of a cancelled booking: %+v, %v", conf, err)
		}
		if got := b.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID != s.ID {
			t.Fatal("the cancelled booking's slot is not free")
		}
	})
}
