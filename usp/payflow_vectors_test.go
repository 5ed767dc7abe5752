package usp_test

import (
	"context"
	"testing"
	"time"

	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/usp"
)

// resolution is the permitted resolution of flow vector 104 whose
// booking_status is status.
func resolution(t *testing.T, v map[string]any, status string) map[string]any {
	t.Helper()
	for _, r := range v["then"].(map[string]any)["permitted_resolutions"].([]any) {
		if m := r.(map[string]any); m["booking_status"] == status {
			return m
		}
	}
	t.Fatalf("flow vector 104 has no resolution with booking_status %q", status)
	return nil
}

// Flow vector 104, in Standalone Mode: the provider takes the money and
// the booking write does not follow (the process dies between them, so
// the ledger's hook never runs). The booking keeps its slot and stays
// requires_action, never confirmed without the write; the sweep then
// retries the write and confirms it (the first resolution). The event
// delivered again is applied once: no second payment. When the booking
// no longer waits for the money (its checkout was abandoned while the
// provider's page stayed open), the charge is reversed (the second
// resolution).
func TestFlowVector104ChargeWithoutBooking(t *testing.T) {
	v := vector(t, "104-charge-without-booking")
	retry, reverse := resolution(t, v, "confirmed"), resolution(t, v, "pending")
	if retry["charge_reversed"] != false || reverse["charge_reversed"] != true {
		t.Fatalf("vector resolutions changed: %v / %v", retry, reverse)
	}
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
		w.open(t, continuePath(t, b))
		// The charge lands in a ledger whose process has no booking
		// hook: the write after the charge never happens.
		crashed := payLedger(t, w.Store, w.api, w.Clock)
		w.Clock.Advance(time.Second)
		if out := w.pay(t, crashed, "evt_104", b.ID); !out.Applied {
			t.Fatalf("charge = %+v", out)
		}
		r, err := reservation.Get(ctx, w.Store, b.ID)
		if err != nil || r.State != reservation.Reserved {
			t.Fatalf("after the charge alone the booking is %v (%v), want it still waiting", r.State, err)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID == b.Slot.ID {
			t.Fatal("the paid booking's slot was released before the write settled (A5)")
		}
		// The sweep, past the payment window even, retries the write.
		w.Clock.Advance(usp.PaymentWindow)
		if _, _, _, err := w.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		got := w.get(t, b.ID)
		if got.Status != retry["booking_status"] || got.Payment.Status != "paid" || got.Payment.TransactionID != "pi_evt_104" {
			t.Fatalf("after the sweep = %s, %+v", got.Status, got.Payment)
		}
		// The event again, to the live process: applied once (A4).
		if out := w.pay(t, w.ledger, "evt_104", b.ID); out.Applied {
			t.Fatal("the event was applied twice")
		}
		if p, err := w.ledger.Latest(ctx, b.ID); err != nil || p.Refunded() != 0 {
			t.Fatalf("the confirmed booking's payment = %+v, %v; want it kept", p, err)
		}

		// The second resolution: the money arrives for a booking that
		// no longer waits for it, and goes back.
		late := w.book(t, "svc_airport_shuttle", "2026-03-03", nil)
		w.open(t, continuePath(t, late))
		if _, err := w.CancelBooking(ctx, w.call, late.ID, usp.CancelRequest{}); err != nil {
			t.Fatal(err)
		}
		w.pay(t, w.ledger, "evt_104_late", late.ID)
		p, err := w.ledger.Latest(ctx, late.ID)
		if err != nil || p.State != payment.StatePaid || p.Refunded() != p.Amount {
			t.Fatalf("late charge = %+v, %v; want it refunded in full", p, err)
		}
		if got := w.get(t, late.ID); got.Status != "canceled" {
			t.Fatalf("late charge revived the booking: %s", got.Status)
		}
		// The same with the process stopped before the refund: the
		// sweep finds the unmatched charge and refunds it (A6).
		lost := w.book(t, "svc_airport_shuttle", "2026-03-04", nil)
		w.open(t, continuePath(t, lost))
		if _, err := w.CancelBooking(ctx, w.call, lost.ID, usp.CancelRequest{}); err != nil {
			t.Fatal(err)
		}
		w.pay(t, crashed, "evt_104_lost", lost.ID)
		if p, _ := w.ledger.Latest(ctx, lost.ID); p.Refunded() != 0 {
			t.Fatalf("refunded before the sweep: %+v", p)
		}
		if _, _, _, err := w.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := w.ledger.Latest(ctx, lost.ID); err != nil || p.Refunded() != p.Amount {
			t.Fatalf("after the sweep = %+v, %v; want the unmatched charge refunded", p, err)
		}
		if p, _ := w.ledger.Latest(ctx, b.ID); p.Refunded() != 0 {
			t.Fatalf("the sweep refunded the confirmed booking's payment: %+v", p)
		}
	})
}

// Flow vector 105 (abandoned checkout), in Standalone Mode: the
// platform cancels a booking still waiting for its payment. It reads as
// canceled with the vector's reason_code and canceled_by, canceled_at
// the instant of the cancellation and the same on a later read, its
// slot is free, and a confirm is invalid_transition in messages[] (a
// business outcome, HTTP 200) with the booking unchanged.
func TestFlowVector105AbandonedCheckout(t *testing.T) {
	v := vector(t, "105-cancel-checkout-abandoned-booking")
	then := v["then"].(map[string]any)
	want := then["cancellation"].(map[string]any)
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
		if b.Status != "requires_action" {
			t.Fatalf("created %s", b.Status)
		}
		w.Clock.Advance(5 * time.Minute)
		cancelled := w.Clock.Now()
		if _, err := w.CancelBooking(ctx, w.call, b.ID, usp.CancelRequest{}); err != nil {
			t.Fatal(err)
		}
		w.Clock.Advance(time.Second)
		first := w.get(t, b.ID)
		c := first.Cancellation
		if first.Status != then["usp_visible_booking_status"] || c == nil || c.ReasonCode != want["reason_code"] || c.CanceledBy != want["canceled_by"] ||
			!mustTime(t, c.CanceledAt).Equal(cancelled) || c.Fee != 0 || c.RefundAmount != 0 || len(first.Actions) != 0 {
			t.Fatalf("after cancel = %s, %+v", first.Status, c)
		}
		w.Clock.Advance(time.Minute)
		conf, err := w.ConfirmBooking(ctx, w.staff(), b.ID)
		if err != nil || outcome(t, conf.Messages) != then["confirm_outcome_code"] || conf.Booking.Revision != first.Revision {
			t.Fatalf("confirm = %+v, %v", conf, err)
		}
		w.Clock.Advance(4 * time.Minute)
		if second := w.get(t, b.ID); second.Cancellation.CanceledAt != c.CanceledAt {
			t.Fatalf("canceled_at moved: %s, then %s", c.CanceledAt, second.Cancellation.CanceledAt)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID != b.Slot.ID {
			t.Fatal("the abandoned booking's slot is not free")
		}
	})
}

// Flow vector 105 (confirmation-mode guard), the paid case: an auto
// booking left unpaid is not confirmable by the business, and nothing
// changes; its variants: a manual booking pending for staff (paid) is
// confirmed, and confirming a confirmed auto booking returns it as it
// is.
func TestFlowVector105GuardOnUnpaidBookings(t *testing.T) {
	v := vector(t, "105-confirmation-mode-guard")
	then := v["then"].(map[string]any)
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_install", "2026-03-03", nil)
		conf, err := w.ConfirmBooking(ctx, w.staff(), b.ID)
		if err != nil || outcome(t, conf.Messages) != then["outcome_code"] || conf.Booking.Revision != b.Revision || conf.Booking.Status != "requires_action" {
			t.Fatalf("confirm of an unpaid auto booking = %+v, %v", conf, err)
		}
		paid := func(id, amount string) {
			t.Helper()
			if _, err := w.ConfirmPayment(ctx, w.call, id, usp.ConfirmPaymentRequest{PaymentResult: &usp.PaymentResult{Status: "deposit_paid", TransactionID: "txn_" + id, AmountPaid: []byte(amount), Currency: "USD"}}); err != nil {
				t.Fatal(err)
			}
		}
		paid(b.ID, "1000")
		first, err := w.ConfirmBooking(ctx, w.staff(), b.ID)
		again, err2 := w.ConfirmBooking(ctx, w.staff(), b.ID)
		if err != nil || err2 != nil || first.Booking.Status != "confirmed" || again.Booking.Revision != first.Booking.Revision {
			t.Fatalf("confirm of a confirmed auto booking = %+v / %+v (%v, %v)", first, again, err, err2)
		}
		m := w.book(t, "svc_airport_consult", "2026-03-04", nil)
		paid(m.ID, "4000")
		if got := w.get(t, m.ID); got.Status != "pending" {
			t.Fatalf("a paid manual booking is %s, want pending for staff", got.Status)
		}
		conf, err = w.ConfirmBooking(ctx, w.staff(), m.ID)
		if err != nil || conf.Booking.Status != "confirmed" {
			t.Fatalf("manual confirm = %+v, %v", conf, err)
		}
		// A paid manual booking staff decline is returned all it paid.
		d := w.book(t, "svc_airport_consult", "2026-03-05", nil)
		paid(d.ID, "4000")
		if _, _, err := w.Bookings.Core().Decide(ctx, reservation.Decision{Reference: d.ID, To: reservation.Declined, By: "desk"}); err != nil {
			t.Fatal(err)
		}
		if got := w.get(t, d.ID); got.Status != "canceled" || got.Cancellation.RefundAmount != 4000 || got.Cancellation.Fee != 0 || got.Payment.Status != "refunded" {
			t.Fatalf("declined paid booking = %s, %+v, %+v", got.Status, got.Cancellation, got.Payment)
		}
	})
}

// Flow vectors 106 and 107, in Standalone Mode: the catalog publishes
// the deposit as the vectors' catalog_deposit, and the business, not the
// platform, computes the amount due now: the fixed deposit, or the
// percentage of the price; the payment's amount is the whole price.
func TestFlowVectors106And107Deposits(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		for _, c := range []struct{ vector, service, day string }{
			{"106-ucp-native-fixed-deposit", "svc_airport_install", "2026-03-03"},
			{"107-ucp-native-percentage-deposit", "svc_airport_consult", "2026-03-04"},
		} {
			t.Run(c.vector, func(t *testing.T) {
				v := vector(t, c.vector)
				then := v["then"].(map[string]any)
				dep := v["catalog_deposit"].(map[string]any)
				svc, err := w.GetService(ctx, usp.Call{}, c.service)
				if err != nil {
					t.Fatal(err)
				}
				d := svc.Service.Pricing.Deposit
				if d == nil || d.Type != dep["type"] || float64(d.Value) != dep["value"] || svc.Service.Policies.PaymentTiming != "deposit_required" {
					t.Fatalf("catalog deposit = %+v, want %v", d, dep)
				}
				b := w.book(t, c.service, c.day, nil)
				p := b.Payment
				if float64(p.AmountDue) != then["collected_now"] || float64(p.Amount) != then["checkout_total"] || b.Actions[0].PaymentContext.AmountDue != p.AmountDue {
					t.Fatalf("payment = %+v, want %v due now of %v", p, then["collected_now"], then["checkout_total"])
				}
			})
		}
	})
}
