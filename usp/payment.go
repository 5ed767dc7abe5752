package usp

import (
	"context"
	"encoding/json"
	"regexp"
)

// PaymentResult is the payment_result of confirm-payment (§5.3.7).
type PaymentResult struct {
	Status         string          `json:"status"`
	Provider       string          `json:"provider,omitempty"`
	TransactionID  string          `json:"transaction_id"`
	AmountPaid     json.RawMessage `json:"amount_paid"`
	Currency       string          `json:"currency"`
	OrderReference string          `json:"order_reference,omitempty"`
}

// ConfirmPaymentRequest is usp_bookings_confirm_payment / POST
// /bookings/{booking_id}/confirm-payment.
type ConfirmPaymentRequest struct {
	PaymentResult *PaymentResult `json:"payment_result"`
}

var amountPattern = regexp.MustCompile(`^"?-?[0-9]+"?$`)

func (p *PaymentResult) check() error {
	if p == nil || p.Status == "" || p.TransactionID == "" || len(p.AmountPaid) == 0 || p.Currency == "" {
		return fail(CodeInvalidRequest, "payment_result needs status, transaction_id, amount_paid and currency.")
	}
	switch {
	case p.Status != "paid" && p.Status != "deposit_paid":
		return fail(CodeValidation, "payment_result.status must be paid or deposit_paid.")
	case !amountPattern.Match(p.AmountPaid):
		return fail(CodeValidation, "payment_result.amount_paid must be an integer amount in minor units.")
	case !currencyPattern.MatchString(p.Currency):
		return fail(CodeValidation, "payment_result.currency must be an ISO 4217 code such as USD.")
	}
	return nil
}

// ConfirmPayment is the platform's callback after a payment (§5.3.7). It
// is legal from requires_action only (§5.1.1); USP bookings take no
// payment through this door yet (the catalog's payment terms are paid
// on the guest site or at the property), so no booking ever requires
// action, and a well-formed call answers the booking unchanged with
// invalid_transition in messages[].
func (b *Business) ConfirmPayment(ctx context.Context, call Call, id string, in ConfirmPaymentRequest) (res *BookingResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_bookings_confirm_payment", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	if err := in.PaymentResult.check(); err != nil {
		return nil, err
	}
	res = &BookingResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	r, d, err := b.ownBooking(ctx, p, id)
	if err != nil {
		return nil, err
	}
	res.Booking = b.view(r, d)
	res.Messages = append(res.Messages, *outcomeMsg("invalid_transition", "This booking takes no payment: it is "+res.Booking.Status+", never requires_action, so there is no payment to confirm.", ""))
	return res, nil
}
