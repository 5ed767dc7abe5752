package payment

import (
	"context"
	"time"
)

// What ended a reservation's claim on its payment (Settlement.Why).
const (
	// SettledCancellation is a cancellation by the guest or staff, under
	// the unit's cancellation policy.
	SettledCancellation = "cancellation"
	// SettledReturned is a request staff declined or the guest withdrew
	// before staff answered: everything goes back.
	SettledReturned = "returned"
	// SettledNoShow is a guest who never came, under the unit's no-show
	// rule.
	SettledNoShow = "no-show"
	// SettledNoBooking is money taken for a reservation that was never
	// written, is gone, or had ended before the money arrived: all of it
	// goes back.
	SettledNoBooking = "no-booking"
)

// Settlement is what the end of a reservation did with its payment, as
// the ledger recorded it when it happened. Amounts are minor units.
type Settlement struct {
	Why string    `json:"why"`
	At  time.Time `json:"at"`
	// Kept is what the rule kept of what was paid: the late fee it
	// covers, or a no-show's deposit.
	Kept int64 `json:"kept"`
	// Owed is the part of a late fee larger than what was paid: shown
	// to staff and the guest, never charged.
	Owed int64 `json:"owed,omitempty"`
}

// Waiver is a late-cancellation fee staff waived: Refund of what was
// kept went back, and Owed is no longer owed. A waiver made in Advance,
// before the reservation ended, makes a later cancellation take no fee
// whichever door cancels it.
type Waiver struct {
	By      string    `json:"by"`
	Note    string    `json:"note"`
	At      time.Time `json:"at"`
	Refund  int64     `json:"refund"`
	Owed    int64     `json:"owed,omitempty"`
	Advance bool      `json:"advance,omitempty"`
}

// settle records s on payment id unless a settlement is recorded
// already: a reservation ends once, and the first record stands.
func (l *Ledger) settle(ctx context.Context, id string, s Settlement) (Payment, error) {
	return l.update(ctx, id, func(p *Payment) (bool, error) {
		if p.Settled != nil || p.State != StatePaid {
			return false, nil
		}
		s.At = s.At.UTC()
		p.Settled = &s
		return true, nil
	})
}

// FeeKept is the late-cancellation fee p keeps now: what its
// cancellation kept, less a waiver, never more than what is left
// unrefunded.
func (p Payment) FeeKept() int64 {
	if p.Settled == nil || p.Settled.Why != SettledCancellation {
		return 0
	}
	fee := p.Settled.Kept
	if p.Waiver != nil {
		fee -= p.Waiver.Refund
	}
	return max(min(fee, p.Amount-p.Refunded()), 0)
}

// Owed is the part of p's late fee its payment did not cover and that
// was not waived: shown, never charged.
func (p Payment) Owed() int64 {
	if p.Settled == nil || p.Waiver != nil {
		return 0
	}
	return p.Settled.Owed
}
