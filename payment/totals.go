package payment

import (
	"context"
	"time"
)

// Totals are the owner's money figures for the payments taken in a date
// range, in minor units: what was taken, what of it went back and what
// was kept, and of the kept, late-cancellation fees and no-shows'
// deposits. Owed is what late fees larger than the payment held left
// owed: shown, never charged.
type Totals struct {
	Payments int // payments taken in the range
	Taken    int64
	Refunded int64 // refunded, or being refunded, of what was taken
	Pending  int64 // of Refunded, not yet confirmed by the provider
	Kept     int64 // Taken less Refunded
	Fees     int64 // of Kept, late-cancellation fees
	NoShows  int64 // of Kept, no-shows' payments
	Owed     int64
	Waived   int // late fees staff waived
	Open     int // pages opened in the range and still unpaid
	Currency string
}

// Totals adds up the payments taken from from (inclusive) to to
// (exclusive), by the instant the provider took the money, so each
// payment and everything that happened to it later is counted once, in
// the range it was taken. It reads the ledger, a page at a time.
func (l *Ledger) Totals(ctx context.Context, from, to time.Time) (Totals, error) {
	var t Totals
	after := ""
	for {
		recs, err := l.records.List(ctx, kindPayment, "", after, sweepPage)
		if err != nil {
			return Totals{}, internal("payment totals", err)
		}
		for _, rec := range recs {
			p, err := decode(rec)
			if err != nil {
				return Totals{}, err
			}
			t.add(p, from, to)
		}
		if len(recs) < sweepPage {
			return t, nil
		}
		after = recs[len(recs)-1].Key
	}
}

func (t *Totals) add(p Payment, from, to time.Time) {
	if p.State == StateOpen && !p.Created.Before(from) && p.Created.Before(to) {
		t.Open++
	}
	if p.State != StatePaid || p.PaidAt.Before(from) || !p.PaidAt.Before(to) {
		return
	}
	t.Currency = p.Currency
	t.Payments++
	t.Taken += p.Amount
	for _, r := range p.Refunds {
		t.Refunded += r.Amount
		if r.State == RefundPending {
			t.Pending += r.Amount
		}
	}
	kept := p.Amount - p.Refunded()
	t.Kept += kept
	t.Fees += p.FeeKept()
	t.Owed += p.Owed()
	if p.Waiver != nil {
		t.Waived++
	}
	if p.Settled != nil && p.Settled.Why == SettledNoShow {
		t.NoShows += kept
	}
}
