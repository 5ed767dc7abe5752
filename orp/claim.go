package orp

import (
	"context"
	"errors"
	"fmt"

	"frontdesk/store"
)

// claimRef finds a party by the claim id in its claim URL (§9.3).
type claimRef struct {
	Party string `json:"party"` // opaque
}

// ClaimView is what the claim page shows: the party and whether a person
// has claimed it. Viewing records nothing.
type ClaimView struct {
	Party     string
	Claimed   bool
	OpenDeals int
}

func (h *Host) claimParty(ctx context.Context, claim string) (*Party, store.Record, error) {
	var ref claimRef
	if len(claim) > 64 {
		return nil, store.Record{}, refuse(NotFound, "No such claim.")
	}
	if _, err := h.get(ctx, kindClaim, claim, &ref); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, store.Record{}, refuse(NotFound, "No such claim.")
		}
		return nil, store.Record{}, fmt.Errorf("read claim: %w", err)
	}
	var p Party
	r, err := h.get(ctx, kindParty, ref.Party, &p)
	if err != nil {
		return nil, r, fmt.Errorf("read claimed party: %w", err)
	}
	return &p, r, nil
}

// ViewClaim returns the party behind a claim URL, for the claim page.
func (h *Host) ViewClaim(ctx context.Context, claim string) (ClaimView, error) {
	p, _, err := h.claimParty(ctx, claim)
	if err != nil {
		return ClaimView{}, err
	}
	return ClaimView{Party: p.ID, Claimed: p.Claimed, OpenDeals: p.Limits.OpenDeals}, nil
}
