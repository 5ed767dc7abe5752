package payment

import (
	"context"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/reservation"
	"frontdesk/store"
)

// ReasonCancellation is the reason of the refund a cancellation makes:
// one per payment, however often the cancellation is offered.
const ReasonCancellation = "cancellation"

// CancelSettlement is what a cancellation at one instant does with what
// was paid for a reservation.
type CancelSettlement struct {
	Paid   int64 // taken by the provider; 0 when nothing was
	Refund int64 // returned of Paid
	Kept   int64 // Paid less Refund
	// Owed is the part of the late fee that Paid does not cover: shown
	// to the guest and staff, never charged here.
	Owed int64
}

// Settle is what cancelling at now does with paid under terms for a
// booking that starts at start.
func Settle(t business.Terms, paid int64, start, now time.Time) CancelSettlement {
	refund := t.CancelRefund(paid, start, now)
	return CancelSettlement{Paid: paid, Refund: refund, Kept: paid - refund, Owed: max(t.CancelFee(start, now)-paid, 0)}
}

// SettlePayment is Settle for the payment p of the booking: a fee staff
// waived in advance is not taken, so all that was paid goes back. Every
// door that states or makes a cancellation's refund reads it here.
func SettlePayment(t business.Terms, p Payment, paid int64, start, now time.Time) CancelSettlement {
	if p.FeeWaivedInAdvance() {
		return CancelSettlement{Paid: paid, Refund: paid}
	}
	return Settle(t, paid, start, now)
}

// CancelFee is the late fee cancelling at now takes of the booking paid
// by p: none once staff waived it in advance.
func CancelFee(t business.Terms, p Payment, start, now time.Time) int64 {
	if p.FeeWaivedInAdvance() {
		return 0
	}
	return t.CancelFee(start, now)
}

// Paid is what the provider took for reference and kept so far: the
// latest payment when it is paid, less what was refunded of it, and the
// payment itself; a zero Payment when nothing was paid.
func (l *Ledger) Paid(ctx context.Context, reference string) (int64, Payment, error) {
	p, err := l.Latest(ctx, reference)
	if ErrorCode(err) == CodeNotFound {
		return 0, Payment{}, nil
	}
	if err != nil || p.State != StatePaid {
		return 0, Payment{}, err
	}
	return p.Amount, p, nil
}

// Policies finds the location and unit a reservation was booked in.
type Policies func(location, unit string) (business.Location, business.Unit, bool)

// AttachCancellations makes the ledger refund, as a consumer of desk's
// outbox, what the unit's cancellation policy returns when a paid
// reservation is cancelled, whichever door cancelled it: all of it
// inside the free window, what was paid less the late fee after it. A
// paid request staff decline, or the guest withdraws before staff
// answer, is refunded in full.
// The refund is judged at the cancellation's own instant, so an event
// offered again judges it the same, and it is made once per payment
// (RefundOnce); a provider that does not answer leaves the event to the
// next pass.
func (l *Ledger) AttachCancellations(desk *reservation.Desk, policies Policies, currency string) {
	desk.Consume("payment-cancellation", func(ctx context.Context, e reservation.StoredEvent) ([]store.Write, error) {
		if (e.To != reservation.Cancelled && e.To != reservation.Declined) || e.From.Terminal() || l.provider == nil {
			return nil, nil
		}
		return nil, l.refundCancellation(ctx, e, policies, currency)
	})
}

func (l *Ledger) refundCancellation(ctx context.Context, e reservation.StoredEvent, policies Policies, currency string) error {
	paid, p, err := l.Paid(ctx, e.Reference)
	if err != nil || paid == 0 {
		return err
	}
	s := CancelSettlement{Paid: paid, Refund: paid}
	why, reason := SettledReturned, ReasonCancellation
	switch {
	case p.PaidAt.After(e.At):
		// The money arrived after the reservation ended: it paid for
		// nothing, so all of it goes back, as the sweep returns it.
		why, reason = SettledNoBooking, ReasonNoBooking
	case e.To == reservation.Cancelled && e.From != reservation.Requested && !e.Lapsed:
		// A declined request is refunded in full: the business, not the
		// guest, ended it; so is a withdrawn one, which held nothing, and
		// a booking that lapsed because no one at the business decided
		// on it in time.
		if s, err = cancelSettlement(e, p, paid, policies, currency); err != nil {
			return err
		}
		why = SettledCancellation
	}
	if p, err = l.settle(ctx, p.ID, Settlement{Why: why, At: e.At, Kept: s.Kept, Owed: s.Owed}); err != nil {
		return err
	}
	if s.Refund == 0 || p.Settled == nil || p.Settled.Why != why {
		return nil // nothing to return, or the sweep settled it first
	}
	// What a manual refund already returned is not returned twice; the
	// cancellation's own refund, when recorded, is finished as it is.
	amount := min(s.Refund, p.Amount-p.Refunded()+refundedFor(p, reason))
	if amount <= 0 {
		return nil
	}
	_, err = l.RefundOnce(ctx, p.ID, reason, amount)
	return err
}

// refundedFor is what p already returned for reason.
func refundedFor(p Payment, reason string) int64 {
	var n int64
	for _, r := range p.Refunds {
		if r.Reason == reason {
			n += r.Amount
		}
	}
	return n
}

// cancelSettlement reads the unit's terms and the stay's start for e.
func cancelSettlement(e reservation.StoredEvent, p Payment, paid int64, policies Policies, currency string) (CancelSettlement, error) {
	loc, unit, ok := policies(e.Location, e.Unit)
	if !ok || len(e.Slots) == 0 {
		return CancelSettlement{}, fmt.Errorf("payment: cancellation of %s: unit %s/%s not found", e.Reference, e.Location, e.Unit)
	}
	t, err := unit.Policy.Terms(currency)
	if err != nil {
		return CancelSettlement{}, fmt.Errorf("payment: cancellation of %s: terms: %w", e.Reference, err)
	}
	start, err := loc.StartOf(unit, e.Slots[0])
	if err != nil {
		return CancelSettlement{}, fmt.Errorf("payment: cancellation of %s: %w", e.Reference, err)
	}
	return SettlePayment(t, p, paid, start, e.At), nil
}
