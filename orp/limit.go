package orp

import (
	"context"
	"errors"
	"fmt"
	"slices"

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

// admit counts deal d against the open_deals limit of party id (§9.3),
// in the same Apply that changes the deal. A deal counts only against a
// party that opened or approved it: the sender of a directed offer or of
// an accept, and a standing offer's offerer once the deal is active. So
// unsolicited offers cannot fill a party's places, and accepts nobody
// approved cannot fill an offerer's. An unclaimed party at its limit
// cannot enter another deal until one ends or a person claims it; the
// conditional write keeps two racing deals from both passing the limit.
func (o *op) admit(ctx context.Context, d *dealRecord, id string) error {
	p := o.party
	if p == nil || p.ID != id {
		var other Party
		if _, err := o.h.get(ctx, kindParty, o.h.opaqueOf(id), &other); err != nil {
			return fmt.Errorf("admit deal: %w", err)
		}
		p = &other
	}
	r, od, err := o.h.openDeals(ctx, p.Opaque)
	if err != nil {
		return err
	}
	if slices.Contains(od.Deals, d.ID) {
		return nil
	}
	if limit := p.Limits.OpenDeals; !p.Claimed && limit > 0 && len(od.Deals) >= limit {
		if o.party != nil && p.ID == o.party.ID {
			return refuse(Forbidden, fmt.Sprintf("This unclaimed party already has %d open deals, its limit. A deal stops counting when it is declined, revoked, expired or completed; a person who claims the party lifts the limit.", limit))
		}
		return refuse(Forbidden, "The counterparty cannot take another open deal now.")
	}
	od.Deals = append(od.Deals, d.ID)
	if r.Version > 0 {
		o.writes = append(o.writes, swap(r, od, o.now))
	} else {
		o.writes = append(o.writes, create(kindOpen, p.Opaque, od, o.now))
	}
	return nil
}

// openDeals reads a party's open deals, leaving out those that ended.
func (h *Host) openDeals(ctx context.Context, opaque string) (store.Record, openDeals, error) {
	var od openDeals
	r, err := h.get(ctx, kindOpen, opaque, &od)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return r, od, fmt.Errorf("open deals: %w", err)
	}
	open := make([]string, 0, len(od.Deals)+1)
	for _, dealID := range od.Deals {
		other, _, err := h.loadDeal(ctx, dealID)
		if err != nil {
			if AsError(err).Code == NotFound {
				continue
			}
			return r, od, fmt.Errorf("open deals: %w", err)
		}
		if !other.ended() {
			open = append(open, dealID)
		}
	}
	od.Deals = open
	return r, od, nil
}

// full reports whether an unclaimed party can take no other deal now.
func (h *Host) full(ctx context.Context, id string) (bool, error) {
	var p Party
	if _, err := h.get(ctx, kindParty, h.opaqueOf(id), &p); err != nil {
		return false, fmt.Errorf("open deals: %w", err)
	}
	if p.Claimed || p.Limits.OpenDeals <= 0 {
		return false, nil
	}
	_, od, err := h.openDeals(ctx, p.Opaque)
	return len(od.Deals) >= p.Limits.OpenDeals, err
}
