package payment

import (
	"context"
	"fmt"

	"frontdesk/reservation"
	"frontdesk/store"
)

// ReasonNoShow is the reason of the refund a no-show's rule makes, once
// per payment.
const ReasonNoShow = "no-show"

// AttachNoShows makes the ledger apply the unit's no-show rule, as a
// consumer of desk's outbox, when a paid reservation is marked a
// no-show, whichever door marks it: the payment is kept (the default),
// or returned when the unit's policy says no_show_refund. The
// settlement is recorded first and the refund is made once per payment
// (RefundOnce), so an event offered again changes nothing; a provider
// that does not answer leaves the event to the next pass.
func (l *Ledger) AttachNoShows(desk *reservation.Desk, policies Policies, currency string) {
	desk.Consume("payment-no-show", func(ctx context.Context, e reservation.StoredEvent) ([]store.Write, error) {
		if e.To != reservation.NoShow || e.From.Terminal() || l.provider == nil {
			return nil, nil
		}
		return nil, l.settleNoShow(ctx, e, policies, currency)
	})
}

func (l *Ledger) settleNoShow(ctx context.Context, e reservation.StoredEvent, policies Policies, currency string) error {
	paid, p, err := l.Paid(ctx, e.Reference)
	if err != nil || paid == 0 {
		return err
	}
	_, unit, ok := policies(e.Location, e.Unit)
	if !ok {
		return fmt.Errorf("payment: no-show of %s: unit %s/%s not found", e.Reference, e.Location, e.Unit)
	}
	t, err := unit.Policy.Terms(currency)
	if err != nil {
		return fmt.Errorf("payment: no-show of %s: terms: %w", e.Reference, err)
	}
	// What a manual refund already returned is not returned twice.
	refund := min(t.NoShowRefund(paid), p.Amount-p.Refunded()+refundedFor(p, ReasonNoShow))
	if p, err = l.settle(ctx, p.ID, Settlement{Why: SettledNoShow, At: e.At, Kept: paid - refund}); err != nil {
		return err
	}
	if p.Settled == nil || p.Settled.Why != SettledNoShow || refund <= 0 {
		return nil
	}
	_, err = l.RefundOnce(ctx, p.ID, ReasonNoShow, refund)
	return err
}
