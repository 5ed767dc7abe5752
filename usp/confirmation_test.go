package usp_test

import (
	"context"
	"testing"

	"frontdesk/reservation"
	"frontdesk/usp"
)

// TestAutoAndManualServicesSideBySide: in the demo the shuttle is
// confirmation_mode auto and the rooms manual. A shuttle booking is
// confirmed in the create's one write (directly or from a hold), with no
// deadline and nothing for staff to decide, and confirming it again
// answers it unchanged; a room booking stays pending until staff confirm
// it. Service and booking both carry the mode; on both engines.
func TestAutoAndManualServicesSideBySide(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			sideBySide(t, benchOn(t, engine))
		})
	}
}

func sideBySide(t *testing.T, b *bench) {
	ctx := context.Background()
	modes := map[string]string{}
	list, err := b.ListServices(ctx, usp.Call{}, usp.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Services {
		modes[s.ID] = s.Policies.ConfirmationMode
	}
	if modes["svc_airport_shuttle"] != "auto" || modes["svc_riverside_double"] != "manual" {
		t.Fatalf("confirmation modes = %v, want the shuttle auto and rooms manual", modes)
	}

	shuttle := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	auto, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: shuttle.ServiceID, SlotID: shuttle.ID, Buyer: ada})
	if err != nil || auto.Booking == nil {
		t.Fatal(err)
	}
	if k := auto.Booking; k.Status != "confirmed" || k.ConfirmationMode != "auto" || k.ExpiresAt != "" || k.Revision != "v1" || len(auto.Messages) != 0 {
		t.Fatalf("auto booking = %+v %v, want confirmed at v1 in the create's write, without a deadline or note", k, auto.Messages)
	}
	check(t, "Booking", auto.Booking)
	r, err := reservation.Get(ctx, b.Store, auto.Booking.ID)
	if err != nil || r.State != reservation.Confirmed || !r.Held || r.Version != 1 {
		t.Fatalf("core reservation = %+v, %v; want confirmed, holding its seat, written once", r, err)
	}
	again, err := b.ConfirmBooking(ctx, b.staff(), auto.Booking.ID)
	if err != nil || again.Booking.Revision != auto.Booking.Revision || len(again.Messages) != 0 {
		t.Fatalf("confirming an auto booking: %+v, %v; want it unchanged", again, err)
	}

	// From a hold: the conversion confirms it in the same write.
	next := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{ServiceID: next.ServiceID, SlotID: next.ID})
	if err != nil || h.Hold == nil {
		t.Fatal(err)
	}
	conv, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: next.ServiceID, SlotID: next.ID, HoldID: h.Hold.ID, Buyer: ada})
	if err != nil || conv.Booking == nil || conv.Booking.Status != "confirmed" || conv.Booking.ConfirmationMode != "auto" {
		t.Fatalf("auto booking from a hold: %+v, %v", conv, err)
	}

	room := b.slot(t, "svc_riverside_double", "2026-03-10")
	manual, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: room.ServiceID, SlotID: room.ID, Buyer: ada})
	if err != nil || manual.Booking == nil {
		t.Fatal(err)
	}
	if k := manual.Booking; k.Status != "pending" || k.ConfirmationMode != "manual" || k.ExpiresAt == "" || outcomeCode(manual.Messages) != "manual_confirmation" {
		t.Fatalf("manual booking = %+v %v, want pending with a deadline", k, manual.Messages)
	}
	done, err := b.ConfirmBooking(ctx, b.staff(), manual.Booking.ID)
	if err != nil || done.Booking.Status != "confirmed" || done.Booking.ConfirmationMode != "manual" {
		t.Fatalf("staff confirm of the manual booking: %+v, %v", done, err)
	}
}

// outcomeCode is the code of the first message.
func outcomeCode(msgs []usp.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[0].Code
}

// TestConfirmPaymentWithoutPayments: confirm-payment is legal from
// requires_action only (§5.1.1), which no booking here reaches, so a
// well-formed callback answers the booking unchanged with
// invalid_transition; a malformed payment_result is refused.
func TestConfirmPaymentWithoutPayments(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	made, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || made.Booking == nil {
		t.Fatal(err)
	}
	paid := &usp.PaymentResult{Status: "paid", TransactionID: "txn_1", AmountPaid: []byte("2500"), Currency: "USD"}
	res, err := b.ConfirmPayment(ctx, b.call, made.Booking.ID, usp.ConfirmPaymentRequest{PaymentResult: paid})
	if err != nil || outcomeCode(res.Messages) != "invalid_transition" || res.Booking.Revision != made.Booking.Revision {
		t.Fatalf("confirm-payment: %+v, %v; want the booking unchanged with invalid_transition", res, err)
	}
	check(t, "Booking", res.Booking)
	for _, c := range []struct {
		name string
		in   *usp.PaymentResult
		code usp.Code
	}{
		{"no payment_result", nil, usp.CodeInvalidRequest},
		{"a refund status", &usp.PaymentResult{Status: "refunded", TransactionID: "t", AmountPaid: []byte("1"), Currency: "USD"}, usp.CodeValidation},
		{"a fractional amount", &usp.PaymentResult{Status: "paid", TransactionID: "t", AmountPaid: []byte("12.5"), Currency: "USD"}, usp.CodeValidation},
		{"a currency name", &usp.PaymentResult{Status: "paid", TransactionID: "t", AmountPaid: []byte(`"100"`), Currency: "dollars"}, usp.CodeValidation},
	} {
		if got := code(t, firstErr(b.ConfirmPayment(ctx, b.call, made.Booking.ID, usp.ConfirmPaymentRequest{PaymentResult: c.in}))); got != c.code {
			t.Errorf("%s: %s, want %s", c.name, got, c.code)
		}
	}
}
