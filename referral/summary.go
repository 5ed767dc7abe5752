package referral

import (
	"context"
	"fmt"
	"sort"

	"frontdesk/orp"
)

// Summary is what the business's owner sees of its partner bookings:
// attributed bookings by door and by deal, what was refunded, and what
// each partner is owed, with the payouts to settle.
type Summary struct {
	// ByDoor counts attributed bookings per door (source), in order of
	// the door's name.
	ByDoor []DoorCount
	Deals  []DealSummary
}

// DoorCount is one door's attributed bookings.
type DoorCount struct {
	Door     string
	Bookings int
}

// DealSummary is one partner deal's bookings and money.
type DealSummary struct {
	Deal    string
	Partner string // the payee's party id
	// PartnerName is the name the partner gave when it joined, or "".
	PartnerName string
	Bookings    int // attributed bookings, refunded ones included
	Refunded    int
	Final       int
	// Owed is what the business owes the partner and has not sent: held
	// and payable payouts. Held are those still waiting out their hold,
	// Payable those due now; Settle lists the payable ones.
	Owed, Held, Payable orp.Money
	// Paid is what the partner confirmed it received.
	Paid   orp.Money
	Settle []orp.Payout
	// Sent are payouts sent and not yet confirmed by the partner.
	Sent []orp.Payout
}

// Summary reads the attributions and the deals' payouts.
func (l *Ledger) Summary(ctx context.Context) (Summary, error) {
	var out Summary
	bs, err := Bookings(ctx, l.st)
	if err != nil {
		return out, err
	}
	doors := map[string]int{}
	deals := map[string]*DealSummary{}
	var order []string
	for _, b := range bs {
		doors[b.Door]++
		d := deals[b.Deal]
		if d == nil {
			none := orp.Money{Currency: b.Currency}
			d = &DealSummary{Deal: b.Deal, Owed: none, Held: none, Payable: none, Paid: none}
			deals[b.Deal] = d
			order = append(order, b.Deal)
		}
		d.Bookings++
		switch b.State {
		case StateRefunded:
			d.Refunded++
		case StateFinal:
			d.Final++
		}
	}
	for door, n := range doors {
		out.ByDoor = append(out.ByDoor, DoorCount{Door: door, Bookings: n})
	}
	sort.Slice(out.ByDoor, func(i, j int) bool { return out.ByDoor[i].Door < out.ByDoor[j].Door })
	sort.Strings(order)
	for _, id := range order {
		d := deals[id]
		ps, err := l.host.Payouts(ctx, id)
		if err != nil {
			return out, fmt.Errorf("read payouts: %w", err)
		}
		for _, p := range ps {
			d.Partner = p.Payee
			switch p.State {
			case "held":
				add(&d.Owed, p.Amount)
				add(&d.Held, p.Amount)
			case "payable":
				add(&d.Owed, p.Amount)
				add(&d.Payable, p.Amount)
				d.Settle = append(d.Settle, p)
			case "sent":
				d.Sent = append(d.Sent, p)
			case "paid":
				add(&d.Paid, p.Amount)
			}
		}
		if d.Partner != "" {
			if d.PartnerName, err = l.host.PartyName(ctx, d.Partner); err != nil {
				return out, fmt.Errorf("read partner: %w", err)
			}
		}
		out.Deals = append(out.Deals, *d)
	}
	return out, nil
}

// add adds m to sum, which takes m's currency.
func add(sum *orp.Money, m orp.Money) {
	sum.AmountMinor += m.AmountMinor
	sum.Currency = m.Currency
}

// Settle records that the business sent a payable payout on the deal's
// rail, with the rail's reference: the owner's settle step.
func (l *Ledger) Settle(ctx context.Context, deal, payout, ref string) error {
	payer, err := l.payer(ctx)
	if err != nil {
		return err
	}
	if payer == "" {
		return &orp.Error{Code: orp.NotFound, Message: "The business has no party on the ORP host."}
	}
	return l.host.PayerSent(ctx, payer, deal, payout, ref)
}
