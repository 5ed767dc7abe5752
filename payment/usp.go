package payment

import (
	"context"
	"sync"
	"time"
)

// PaidHook hears of a payment the provider reported paid, after the
// ledger recorded it. It is told once per event that marked the payment
// paid; what it does with the payment is its own, and a failure is its
// own to log: the payment stays paid, and the hook's owner finds it again
// in its sweep (Paid, Latest).
type PaidHook func(ctx context.Context, p Payment)

// hooks are the PaidHooks of a ledger.
type hooks struct {
	mu   sync.Mutex
	paid []PaidHook
}

// OnPaid registers h, for a door that waits on payments of its own
// references, such as a USP booking in requires_action.
func (l *Ledger) OnPaid(h PaidHook) {
	l.hooks.mu.Lock()
	defer l.hooks.mu.Unlock()
	l.hooks.paid = append(l.hooks.paid, h)
}

// tellPaid runs the hooks for the payment id, read after its change
// committed.
func (l *Ledger) tellPaid(ctx context.Context, id string) {
	l.hooks.mu.Lock()
	hs := append([]PaidHook(nil), l.hooks.paid...)
	l.hooks.mu.Unlock()
	if len(hs) == 0 {
		return
	}
	p, err := l.Get(ctx, id)
	if err != nil || p.State != StatePaid {
		return // the sweep of the hook's owner reads it again
	}
	for _, h := range hs {
		h(ctx, p)
	}
}

// RefundUnmatched returns what is left of a paid payment that nothing
// is waiting for any more (a booking that expired or was cancelled while
// its page was open, or one paid twice), once, as the sweep returns money
// without a booking (ReasonNoBooking): the two never both refund it.
func (l *Ledger) RefundUnmatched(ctx context.Context, id string) (Payment, error) {
	if _, err := l.refundNoBooking(ctx, id, l.clock.Now()); err != nil {
		return Payment{}, err
	}
	return l.Get(ctx, id)
}

// PaidSince lists the payments paid at or after since that still hold
// money (not refunded in full), among up to limit payments after the id
// after, and the id to continue after; "" when none are left. A door's
// sweep reads it to settle payments its hook did not hear of.
func (l *Ledger) PaidSince(ctx context.Context, since time.Time, after string, limit int) (out []Payment, next string, err error) {
	return l.page(ctx, after, limit, func(p Payment) bool {
		return p.State == StatePaid && !p.PaidAt.Before(since) && p.Refunded() < p.Amount
	})
}
