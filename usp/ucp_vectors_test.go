package usp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"frontdesk/usp"
)

// Flow vector 101 through the UCP checkout, step by step: the hold is
// taken into the checkout at create_checkout, and lapses (the checkout's
// places go back at its expires_at) with the slot still free;
// complete_checkout then records no payment, confirms nothing and
// answers hold_expired at HTTP 200, the checkout reading incomplete with
// booking_status pending. As the vector's retry guidance says, the
// platform holds the slot again and repeats complete_checkout on the
// same checkout, which then completes the booking created with it.
func TestFlowVector101UCPCheckoutHoldExpiry(t *testing.T) {
	v := vector(t, "101-hold-expiry-during-checkout")
	then := v["then"].(map[string]any)
	steps := v["when"].([]any)
	created := steps[0].(map[string]any)["result"].(map[string]any)
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		h, err := w.HoldSlot(ctx, w.call, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID})
		if err != nil || h.Hold == nil {
			t.Fatalf("hold = %+v, %v", h, err)
		}
		// create_checkout, with the hold.
		in := shuttleCheckout(s, 2500)
		in.Booking.HoldID = h.Hold.ID
		status, c := w.ucpREST(t, http.MethodPost, "/checkout-sessions", "", in)
		if status != http.StatusCreated || c.Status != created["status"] || c.Booking.BookingStatus != created["booking_status"] {
			t.Fatalf("create_checkout = %d %+v", status, c)
		}
		// hold_lapses: the business releases the places; no other buyer
		// takes the slot.
		w.Clock.Set(mustTime(t, c.ExpiresAt))
		if _, err := w.Expire(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := w.QueryAvailability(ctx, usp.Call{}, usp.QueryRequest{ServiceID: s.ServiceID, StartDate: "2026-03-02", EndDate: "2026-03-02"})
		// An appointment slot has one place, and it is offered again: the
		// vector's capacity.remaining of 1.
		if err != nil || len(res.Slots) == 0 || res.Slots[0].ID != s.ID || then["slot_capacity_remaining"] != float64(1) {
			t.Fatalf("slot after the lapse = %+v, %v", res, err)
		}
		// complete_checkout, a minute later.
		w.Clock.Advance(time.Minute)
		status, late := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+c.ID+"/complete", "", reported("tok_test_001", "2500"))
		if float64(status) != then["http_status"] || outcome(t, late.Messages) != then["outcome_code"] || late.Order != nil ||
			late.Status != then["checkout_status"] || late.Booking == nil || late.Booking.BookingStatus != then["booking_status"] {
			t.Fatalf("complete_checkout = %d %+v, want %v %v %v", status, late, then["http_status"], then["outcome_code"], then["checkout_status"])
		}
		// No charge recorded and no booking made (psp_charge_attempted and
		// booking_created false).
		b := w.get(t, c.Booking.BookingID)
		if then["psp_charge_attempted"] != false || then["booking_created"] != false ||
			b.Status != "pending" || b.Payment.TransactionID != "" || b.Payment.Status == "paid" {
			t.Fatalf("booking after a lapsed completion = %s %+v", b.Status, b.Payment)
		}
		if _, got := w.ucpREST(t, http.MethodGet, "/checkout-sessions/"+c.ID, "", nil); got.Status != then["checkout_status"] {
			t.Fatalf("get_checkout after the lapse = %+v", got)
		}
		// platform_may_retry: hold the slot again and repeat
		// complete_checkout on the same checkout.
		if then["platform_may_retry"] != true {
			t.Fatal("the vector no longer lets the platform retry")
		}
		h2, err := w.HoldSlot(ctx, w.call, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID})
		if err != nil || h2.Hold == nil {
			t.Fatalf("hold again = %+v, %v", h2, err)
		}
		status, done := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+c.ID+"/complete", "", reported("tok_test_001", "2500"))
		if status != http.StatusOK || done.Status != "completed" || done.Order == nil || done.Booking.BookingID != c.Booking.BookingID || done.Booking.BookingStatus != "confirmed" {
			t.Fatalf("retried complete_checkout = %d %+v", status, done)
		}
		if b := w.get(t, c.Booking.BookingID); b.Status != "confirmed" || b.Payment.TransactionID != "tok_test_001" {
			t.Fatalf("booking after the retry = %s %+v", b.Status, b.Payment)
		}
		// The hold was used up by the completion: the slot has no place left.
		res, err = w.QueryAvailability(ctx, usp.Call{}, usp.QueryRequest{ServiceID: s.ServiceID, StartDate: "2026-03-02", EndDate: "2026-03-02"})
		if err != nil || len(res.Slots) > 0 && res.Slots[0].ID == s.ID {
			t.Fatalf("slot after the completion = %+v, %v", res, err)
		}
	})
}

// A lapsed checkout that nobody completes ends: canceled by the
// platform as an abandoned checkout, or at its slot's start by the
// sweep; staff cannot accept it by hand, and it takes no fee.
func TestUCPLapsedCheckoutEnds(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		lapse := func(day string) *usp.Checkout {
			c := w.checkout(t, day)
			w.Clock.Set(mustTime(t, c.ExpiresAt))
			if _, err := w.Expire(ctx); err != nil {
				t.Fatal(err)
			}
			return c
		}
		c := lapse("2026-03-02")
		if conf, err := w.ConfirmBooking(ctx, w.staff(), c.Booking.BookingID); err != nil || outcome(t, conf.Messages) != "invalid_transition" || conf.Booking.Status != "pending" {
			t.Fatalf("staff confirm of a lapsed checkout = %+v, %v", conf, err)
		}
		cc, err := w.CancelCheckout(ctx, w.call, c.ID)
		if err != nil || cc.Status != "canceled" {
			t.Fatalf("cancel_checkout of a lapsed checkout = %+v, %v", cc, err)
		}
		if b := w.get(t, c.Booking.BookingID); b.Status != "canceled" || b.Cancellation.ReasonCode != "checkout_abandoned" || b.Cancellation.Fee != 0 {
			t.Fatalf("after cancel_checkout = %s %+v", b.Status, b.Cancellation)
		}
		c = lapse("2026-03-03")
		w.Clock.Set(mustTime(t, c.Booking.Slot.Start))
		if _, err := w.Expire(ctx); err != nil {
			t.Fatal(err)
		}
		if _, got := w.ucpREST(t, http.MethodGet, "/checkout-sessions/"+c.ID, "", nil); got.Status != "canceled" || got.Booking.BookingStatus != "canceled" {
			t.Fatalf("lapsed checkout at its slot's start = %+v", got)
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
