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
	Deal     string
	Partner  string // the payee's party id
	Bookings int    // attributed bookings, refunded ones included
	Refunded int
	Final    int
	// Owed is what the business owes the partner and has not sent: held
	// and payable payouts. Settle are the payable ones.
	Owed   orp.Money
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
			d = &DealSummary{Deal: b.Deal, Owed: orp.Money{Currency: b.Currency}}
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
			case "held", "payable":
				d.Owed.AmountMinor += p.Amount.AmountMinor
				d.Owed.Currency = p.Amount.Currency
				if p.State == "payable" {
					d.Settle = append(d.Settle, p)
				}
			case "sent":
				d.Sent = append(d.Sent, p)
			}
		}
		out.Deals = append(out.Deals, *d)
	}
	return out, nil
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
