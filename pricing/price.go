package pricing

import (
	"fmt"
	"strings"

	"frontdesk/business"
)

// Price is a booking's price in the lines every door shows it by: the
// rate lines (nights × rate, weeks at the weekly rate, or places of a
// timed slot × its price), the fee lines, the tax, the total, and what
// is due when booking and later. The guest site, the staff screen, the
// guest mails and USP answers all take it from Pricer.Price. Amounts
// are minor units.
type Price struct {
	// Lines are the rate lines, adding up to Subtotal; empty when the
	// booking's total cannot be split by today's rates and fees.
	Lines    []PriceLine
	Subtotal int64
	// Fees are the unit's fee lines, between the rates and the tax,
	// adding up to FeeTotal.
	Fees     []PriceLine
	FeeTotal int64
	// Tax is the tax line; an empty Label means no tax line.
	Tax   PriceLine
	Total int64
	// Timing is the unit's payment timing (a business.Pay constant);
	// DueNow is taken when booking and DueLater at the property, from
	// the unit's terms (business.Terms.DueNow) applied to Total.
	Timing           string
	DueNow, DueLater int64
}

// PriceLine is one line of a price: Label as people read it ("3 nights
// × $119.00 a night", "1 ride × $25.00", "Cleaning fee", "10.75%
// lodging tax"), Quantity nights, weeks, places or fee units (1 for the
// tax) and Amount in all.
type PriceLine struct {
	Label    string
	Quantity int
	Amount   int64
}

// TakesMoney reports whether anything is due when booking.
func (p Price) TakesMoney() bool {
	return p.Timing == business.PayDeposit || p.Timing == business.PayAtBooking
}

// Price splits the total of a booking of u (the figure its quote or
// reservation holds) into its lines. slots is the number of nights of a
// unit sold by the night (a timed booking holds one slot); guests is
// the number of guests, which is the number of places of a timed
// booking and prices fees per guest. When today's rates, fees and tax
// do not give that total (they changed since the booking was priced),
// the total stands alone, without lines. The due split applies the
// unit's payment terms to the total either way.
func (p *Pricer) Price(u business.Unit, slots, guests int, total int64) Price {
	out := Price{Total: total, Timing: business.PayAtService, DueLater: total}
	if t, err := u.Policy.Terms(p.cfg.Business.Currency); err == nil {
		out.Timing = t.Timing
		out.DueNow = t.DueNow(total)
		out.DueLater = total - out.DueNow
	}
	if u.Kind == business.KindTimed {
		p.priceSlot(&out, u, guests)
		return out
	}
	var lines, fees []PriceLine
	var subtotal, feeTotal, taxable int64
	for _, l := range p.Breakdown(u, slots) {
		lines = append(lines, PriceLine{Label: fmt.Sprintf("%d %s × %s a %s", l.Count, plural(l.Count, l.Per), p.Display(l.Rate), l.Per), Quantity: l.Count, Amount: l.Amount})
		subtotal += l.Amount
	}
	for _, f := range p.fees(u, slots, guests) {
		fees = append(fees, PriceLine{Label: f.label, Quantity: f.count, Amount: f.amount})
		feeTotal += f.amount
		if f.taxable {
			taxable += f.amount
		}
	}
	tax := p.tax(subtotal + taxable)
	if len(lines) == 0 || subtotal+feeTotal+tax != total {
		return out
	}
	out.Lines, out.Subtotal, out.Fees, out.FeeTotal = lines, subtotal, fees, feeTotal
	if tax > 0 {
		label := p.cfg.Business.TaxLabel
		if label == "" {
			label = "tax"
		}
		out.Tax = PriceLine{Label: strings.ToUpper(label[:1]) + label[1:], Quantity: 1, Amount: tax}
	}
	return out
}

// priceSlot gives a timed booking of places its one line, "1 ride ×
// $25.00", when the unit's price gives the total. A timed service's
// price is the whole price of a place: it carries no tax and no fees.
func (p *Pricer) priceSlot(out *Price, u business.Unit, places int) {
	rate, ok := p.rate(u.Price)
	places = max(places, 1)
	if !ok || rate*int64(places) != out.Total {
		return
	}
	word := u.PlaceWord()
	out.Lines = []PriceLine{{Label: fmt.Sprintf("%d %s × %s", places, plural(places, word), p.Display(rate)), Quantity: places, Amount: out.Total}}
	out.Subtotal = out.Total
}

// SlotTotal is the total of places of one slot of a timed unit: its
// price per place times the places. ok is false when the unit has no
// readable price.
func (p *Pricer) SlotTotal(u business.Unit, places int) (total int64, ok bool) {
	rate, ok := p.rate(u.Price)
	return rate * int64(max(places, 1)), ok && u.Kind == business.KindTimed
}

// fee is one of a unit's fees priced for a stay.
type fee struct {
	label   string
	count   int
	amount  int64
	taxable bool
}

// fees prices u's fees for a stay of nights by guests (0 counts as one):
// a fee per stay once, per night for every night, per guest for every
// guest. A unit whose fees cannot be read has none here; Validate
// refused it already.
func (p *Pricer) fees(u business.Unit, nights, guests int) []fee {
	charges, err := u.Charges(p.cfg.Business.Currency)
	if err != nil || u.Kind != business.KindNight {
		return nil
	}
	guests = max(guests, 1)
	var out []fee
	for _, c := range charges {
		f := fee{label: c.Name, count: 1, amount: c.Amount, taxable: c.Taxable}
		switch c.Per {
		case business.FeePerNight:
			f.count = nights
			f.label = fmt.Sprintf("%s, %d %s × %s", c.Name, nights, plural(nights, "night"), p.Display(c.Amount))
		case business.FeePerGuest:
			f.count = guests
			f.label = fmt.Sprintf("%s, %d %s × %s", c.Name, guests, plural(guests, "guest"), p.Display(c.Amount))
		}
		f.amount = c.Amount * int64(f.count)
		out = append(out, f)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// HasFees reports whether u charges fees on top of its rates.
func HasFees(u business.Unit) bool { return len(u.Fees) > 0 }
