package orp

import (
	"context"
	"errors"
	"math/big"

	"frontdesk/store"
)

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// saleRecord is one sale a reporter named by its own sale id: what a
// later refund or chargeback of it needs (P5). It holds no buyer data.
type saleRecord struct {
	Token    string `json:"token"`
	Click    string `json:"click,omitempty"`
	Code     string `json:"code,omitempty"`
	Amount   *Money `json:"amount,omitempty"`
	Refunded int64  `json:"refunded"`
	Payout   string `json:"payout,omitempty"` // the payout key it earned
}

// conversionPay is the deal's pay per conversion, or nil.
func (d *dealRecord) conversionPay() *payTerms {
	for _, p := range d.payTerms() {
		if p.per == "conversion" {
			return &p
		}
	}
	return nil
}

// earn is what one sale of amount earns under p: its rate of the amount,
// or its fixed amount per sale.
func earn(p *payTerms, amount *Money) (Money, bool) {
	switch {
	case p.rateBps > 0 && amount != nil:
		e := new(big.Int).Mul(big.NewInt(amount.AmountMinor), big.NewInt(p.rateBps))
		e.Quo(e, big.NewInt(10000))
		return Money{AmountMinor: clampMinor(e), Currency: amount.Currency}, true
	case p.amount != nil:
		return *p.amount, true
	}
	return Money{}, false
}

// payConversion records what a counted conversion owes (§14.2): a sale
// earns a payout held for the pay obligation's hold (P30D unless set),
// and a refund or chargeback reverses the payout of its sale, held or
// not, recording what is left of the sale as a new payout (P5). A payer's
// own report earns a payout only when the pay obligation lists
// attestation (P4). Pay per conversion on a direct link never arises: a
// direct link has no tracking entry to attribute to (T11).
func (o *op) payConversion(ctx context.Context, basis string, reporter *Party, c Conversion, res ConversionResult, at attributed) error {
	d, _, err := o.h.loadDeal(ctx, res.Deal)
	if err != nil {
		return err
	}
	p := d.conversionPay()
	if p == nil || !res.Counted || basis == basisAttestation && !p.attests {
		return o.keepSale(at, c, "")
	}
	payouts, err := o.opPayouts(ctx, d.ID)
	if err != nil {
		return err
	}
	if !c.Refund {
		amount, ok := earn(p, c.Amount)
		if !ok {
			return o.keepSale(at, c, "")
		}
		amount = capped(amount, remaining(*p, payouts))
		if amount.AmountMinor == 0 {
			return o.keepSale(at, c, "")
		}
		r := o.newPayout(d, *p, amount, basis, []string{res.Obligation})
		r.Sale, r.Token = at.saleKey, at.token
		if err := o.addPayout(r); err != nil {
			return err
		}
		return o.keepSale(at, c, payoutKey(d.ID, r.ID))
	}
	// A refund: the payout of its sale, else the newest on its link.
	var target *storedPayout
	for i := len(payouts) - 1; i >= 0; i-- {
		s := payouts[i]
		// A payer's own refund report takes back only what its own
		// reports earned, never what a provider's events did (P4).
		if s.p.Obligation != p.id || s.p.State == payoutReversed || s.p.State == payoutFailed || s.p.Basis != basis {
			continue
		}
		if at.sale != nil && at.sale.Payout == payoutKey(d.ID, s.p.ID) || at.sale == nil && s.p.Token == at.token {
			target = &payouts[i]
			break
		}
	}
	if target == nil {
		return o.keepSale(at, c, "")
	}
	wasPaid := target.p.State == payoutSent || target.p.State == payoutPaid
	if err := o.setPayout(*target, payoutReversed); err != nil {
		return err
	}
	next := ""
	if at.sale != nil && at.sale.Amount != nil && c.Amount != nil && !wasPaid {
		left := *at.sale.Amount
		left.AmountMinor -= at.sale.Refunded + c.Amount.AmountMinor
		if left.AmountMinor > 0 {
			if amount, ok := earn(p, &left); ok && p.rateBps > 0 && amount.AmountMinor > 0 {
				r := o.newPayout(d, *p, amount, basis, []string{res.Obligation})
				r.Sale, r.Token, r.HoldUntil = at.saleKey, at.token, target.p.HoldUntil
				if err := o.addPayout(r); err != nil {
					return err
				}
				next = payoutKey(d.ID, r.ID)
			}
		}
	}
	if at.sale != nil {
		s := *at.sale
		if c.Amount != nil {
			s.Refunded += c.Amount.AmountMinor
		}
		s.Payout = next
		o.writes = append(o.writes, swap(at.saleRec, s, o.now))
	}
	return nil
}

// keepSale stores a newly named sale, so its refunds find it.
func (o *op) keepSale(at attributed, c Conversion, payout string) error {
	if at.saleKey == "" || at.sale != nil || c.Refund {
		return nil
	}
	s := saleRecord{Token: at.token, Click: c.Click, Code: c.Code, Amount: c.Amount, Payout: payout}
	o.writes = append(o.writes, create(kindSale, at.saleKey, s, o.now))
	return nil
}

// SaleRefunded is how much of a named sale a provider has refunded so
// far, so that a provider reporting running totals can give the change.
func (h *Host) SaleRefunded(ctx context.Context, provider, sale string) (int64, bool, error) {
	var s saleRecord
	_, err := h.get(ctx, kindSale, basisProvider+" provider:"+provider+" "+sale, &s)
	if err != nil {
		if isNotFound(err) {
			return 0, false, nil
		}
		return 0, false, err
	}
	return s.Refunded, true, nil
}
