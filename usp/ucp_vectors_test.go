package usp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"frontdesk/usp"
)

// Flow vector 101 through the UCP checkout: the checkout's hold on its
// slot lapses (here, the checkout's own expiry, since create_checkout
// takes the hold into the checkout's booking) with the slot still free;
// complete_checkout then records no payment, confirms nothing, and
// answers hold_expired at HTTP 200 so the platform may hold the slot
// again. Unlike the vector, the lapsed checkout reads canceled, not
// incomplete: the platform checks out again rather than completing the
// same checkout.
func TestFlowVector101UCPCheckoutHoldExpiry(t *testing.T) {
	v := vector(t, "101-hold-expiry-during-checkout")
	then := v["then"].(map[string]any)
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		h, err := w.HoldSlot(ctx, w.call, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID})
		if err != nil || h.Hold == nil {
			t.Fatalf("hold = %+v, %v", h, err)
		}
		in := shuttleCheckout(s, 2500)
		in.Booking.HoldID = h.Hold.ID
		status, c := w.ucpREST(t, http.MethodPost, "/checkout-sessions", "", in)
		if status != http.StatusCreated || c.Status != "ready_for_complete" || c.Booking.BookingStatus != "pending" {
			t.Fatalf("create_checkout = %d %+v", status, c)
		}
		w.Clock.Advance(usp.PaymentWindow + time.Minute)
		status, late := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+c.ID+"/complete", "", reported("tok_test_001", "2500"))
		if float64(status) != then["http_status"] || outcome(t, late.Messages) != then["outcome_code"] || late.Order != nil {
			t.Fatalf("complete_checkout = %d %+v, want %v %v", status, late, then["http_status"], then["outcome_code"])
		}
		b := w.get(t, c.Booking.BookingID)
		if b.Status == "confirmed" || b.Payment.TransactionID != "" || b.Payment.Status == "paid" {
			t.Fatalf("booking after a lapsed completion = %s %+v", b.Status, b.Payment)
		}
		res, err := w.QueryAvailability(ctx, usp.Call{}, usp.QueryRequest{ServiceID: s.ServiceID, StartDate: "2026-03-02", EndDate: "2026-03-02"})
		// An appointment slot has one place, and it is offered again: the
		// vector's capacity.remaining of 1.
		if err != nil || len(res.Slots) == 0 || res.Slots[0].ID != s.ID || then["slot_capacity_remaining"] != float64(1) {
			t.Fatalf("slot after the lapse = %+v, %v", res, err)
		}
		// The platform may retry, as the vector says: hold again and check out.
		h2, err := w.HoldSlot(ctx, w.call, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID})
		if err != nil || h2.Hold == nil {
			t.Fatalf("hold again = %+v, %v", h2, err)
		}
		in.Booking.HoldID = h2.Hold.ID
		c2, err := w.CreateCheckout(ctx, w.call, in)
		if err != nil || c2.Status != "ready_for_complete" {
			t.Fatalf("checkout again = %+v, %v", c2, err)
		}
		if done, err := w.CompleteCheckout(ctx, w.call, c2.ID, reported("tok_test_001", "2500")); err != nil || done.Status != "completed" {
			t.Fatalf("retried checkout = %+v, %v", done, err)
		}
	})
}

// Flow vector 105 through the UCP checkout: after cancel_checkout the
// USP-visible booking is canceled with checkout_abandoned by system, a
// later confirm answers invalid_transition without a change, and its
// canceled_at never moves.
func TestFlowVector105UCPCancelCheckout(t *testing.T) {
	v := vector(t, "105-cancel-checkout-abandoned-booking")
	then := v["then"].(map[string]any)
	want := then["cancellation"].(map[string]any)
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		c := w.checkout(t, "2026-03-02")
		w.Clock.Advance(5 * time.Minute)
		cancelled := w.Clock.Now()
		if cc, err := w.CancelCheckout(ctx, w.call, c.ID); err != nil || cc.Status != "canceled" || (cc.Booking != nil && cc.Booking.BookingStatus == "pending") {
			t.Fatalf("cancel_checkout = %+v, %v", cc, err)
		}
		w.Clock.Advance(time.Second)
		first := w.get(t, c.Booking.BookingID)
		cn := first.Cancellation
		if first.Status != then["usp_visible_booking_status"] || cn == nil || cn.ReasonCode != want["reason_code"] || cn.CanceledBy != want["canceled_by"] ||
			!mustTime(t, cn.CanceledAt).Equal(cancelled) || cn.Fee != 0 || cn.RefundAmount != 0 {
			t.Fatalf("after cancel_checkout = %s, %+v", first.Status, cn)
		}
		conf, err := w.ConfirmBooking(ctx, w.staff(), first.ID)
		if err != nil || outcome(t, conf.Messages) != then["confirm_outcome_code"] || conf.Booking.Revision != first.Revision {
			t.Fatalf("confirm = %+v, %v", conf, err)
		}
		w.Clock.Advance(4 * time.Minute)
		if second := w.get(t, first.ID); second.Cancellation.CanceledAt != cn.CanceledAt {
			t.Fatalf("canceled_at moved: %s, then %s", cn.CanceledAt, second.Cancellation.CanceledAt)
		}
	})
}
