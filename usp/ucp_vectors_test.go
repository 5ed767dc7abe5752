package usp_test

import (
	"context"
	"fmt"
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

// Flow vectors 106 and 107 through the UCP checkout (§7.6.1): the
// profile declares UCP's payment terms extension; a deposit service's
// checkout totals the whole price and offers one selected term, the
// business's deposit now (the fixed amount, or the percentage of the
// price) and the balance at the slot's start; complete_checkout takes
// only the immediate amount (the whole total is refused and records
// nothing), and the order carries the accepted term.
func TestFlowVectors106And107UCPCheckout(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		if caps := w.UCPProfile().UCP.Capabilities; len(caps[usp.CapabilityPaymentTerms]) != 1 {
			t.Fatalf("the profile does not declare payment terms: %v", caps)
		}
		for _, c := range []struct{ vector, service, day string }{
			{"106-ucp-native-fixed-deposit", "svc_airport_install", "2026-03-03"},
			{"107-ucp-native-percentage-deposit", "svc_airport_consult", "2026-03-04"},
		} {
			t.Run(c.vector, func(t *testing.T) {
				v := vector(t, c.vector)
				then := v["then"].(map[string]any)
				want := v["checkout"].(map[string]any)["payment"].(map[string]any)["terms"].([]any)[0].(map[string]any)["schedules"].([]any)
				s := w.slot(t, c.service, c.day)
				total := int64(then["checkout_total"].(float64))
				in := shuttleCheckout(s, total)
				in.LineItems[0].Item.ID = c.service
				status, co := w.ucpREST(t, http.MethodPost, "/checkout-sessions", "", in)
				if status != http.StatusCreated || co.Status != "ready_for_complete" || co.Payment == nil || len(co.Payment.Terms) != 1 ||
					co.Payment.SelectedTermID != then["accepted_term_id"] || co.Payment.Terms[0].ID != then["accepted_term_id"] {
					t.Fatalf("create_checkout = %d %+v", status, co)
				}
				if co.Totals[len(co.Totals)-1].Amount != total {
					t.Fatalf("checkout total = %+v, want %d", co.Totals, total)
				}
				got := co.Payment.Terms[0].Schedules
				var sum int64
				if len(got) != len(want) {
					t.Fatalf("schedules = %+v, want %v", got, want)
				}
				for i, sc := range got {
					sum += sc.Amount
					ws := want[i].(map[string]any)
					if sc.Type != ws["type"] || float64(sc.Amount) != ws["amount"] {
						t.Fatalf("schedule %d = %+v, want %v", i, sc, ws)
					}
				}
				if sum != total || got[0].DueAt != "" || got[1].DueAt != s.Start {
					t.Fatalf("schedules = %+v, want %v summing to %d, the balance due at %s", got, want, total, s.Start)
				}
				// The whole total is the wrong answer: nothing is recorded.
				whole, err := w.CompleteCheckout(ctx, w.call, co.ID, reported("pi_whole", fmt.Sprint(total)))
				if err != nil || outcome(t, whole.Messages) != "payment_amount_mismatch" || whole.Order != nil {
					t.Fatalf("completing with the whole total = %+v, %v", whole, err)
				}
				now := fmt.Sprint(then["collected_now"])
				pay := reported("pi_"+c.service, now)
				pay.Payment.Instruments[0].Credential.Status = "deposit_paid"
				status, done := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+co.ID+"/complete", "", pay)
				if status != http.StatusOK || done.Status != "completed" || done.Order == nil || done.Order.Payment == nil ||
					done.Order.Payment.AcceptedTerm.ID != then["accepted_term_id"] || len(done.Order.Payment.AcceptedTerm.Schedules) != len(want) {
					t.Fatalf("complete_checkout = %d %+v", status, done)
				}
				b := w.get(t, co.Booking.BookingID)
				if fmt.Sprint(b.Payment.DepositAmount) != now || b.Payment.Status != "deposit_paid" || b.Payment.Amount != total {
					t.Fatalf("booking payment = %+v, want %s of %d taken", b.Payment, now, total)
				}
			})
		}
	})
}
