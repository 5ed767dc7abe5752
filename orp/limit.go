package orp

import (
	"context"
	"errors"
	"fmt"

	"frontdesk/store"
)

// kindOpen keys, per party, the deals it is on that may still be open.
const kindOpen = "orp.open"

// openDeals lists a party's deals that were open when last counted. Ended
// deals are pruned when the list is next read, so no code path that ends a
// deal has to remember the count.
type openDeals struct {
	Deals []string `json:"deals"`
}

// admit counts a new deal against the open_deals limit of both its
// parties (§9.3), in the same Apply that creates the deal. An unclaimed
// party at its limit cannot enter another deal until one ends or a person
// claims it; the conditional write keeps two racing deals from both
// passing the limit.
func (o *op) admit(ctx context.Context, d *dealRecord) error {
	for _, id := range []string{d.Offerer, d.Acceptor} {
		p := o.party
		if p == nil || p.ID != id {
			var other Party
			if _, err := o.h.get(ctx, kindParty, o.h.opaqueOf(id), &other); err != nil {
				return fmt.Errorf("admit deal: %w", err)
			}
			p = &other
		}
		var od openDeals
		r, err := o.h.get(ctx, kindOpen, p.Opaque, &od)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("admit deal: %w", err)
		}
		open := make([]string, 0, len(od.Deals)+1)
		for _, dealID := range od.Deals {
			other, _, err := o.h.loadDeal(ctx, dealID)
			if err != nil {
				var e *Error
				if errors.As(err, &e) && e.Code == NotFound {
					continue
				}
				return fmt.Errorf("admit deal: %w", err)
			}
			if !other.ended() {
				open = append(open, dealID)
			}
		}
		if limit := p.Limits.OpenDeals; !p.Claimed && limit > 0 && len(open) >= limit {
			if p.ID == o.party.ID {
				return refuse(Forbidden, fmt.Sprintf("This unclaimed party already has %d open deals, its limit. A deal stops counting when it is declined, revoked, expired or completed; a person who claims the party lifts the limit.", limit))
			}
			return refuse(Forbidden, "The counterparty cannot take another open deal now.")
		}
		od.Deals = append(open, d.ID)
		if exists {
			o.writes = append(o.writes, swap(r, od, o.now))
		} else {
			o.writes = append(o.writes, create(kindOpen, p.Opaque, od, o.now))
		}
	}
	return nil
}
