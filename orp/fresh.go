package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// freshFor is how long a 0.4 standing offer stays in discover and
// suggest after the host checked it (§20.4).
const freshFor = 90 * 24 * time.Hour

// unknownClaim is what a claim nobody checked reads (§20.4).
const unknownClaim = "unknown"

// freshTerms writes a 0.4 standing offer's checked_at, expires_at and
// claims into its terms (§20.4): checked_at is now, expires_at 90 days
// later, and every claim the maker stated, and the destination when an
// obligation has one, is "unknown": this host checks none of them when
// it lists the offer, and it never writes a default or a claim nobody
// made. A claim already checked keeps its {value, checked_at,
// expires_at}. The hash is taken of the terms it returns.
func freshTerms(raw json.RawMessage, now time.Time) (json.RawMessage, time.Time, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, time.Time{}, invalid("/body/terms", "The terms are not an object.")
	}
	claims := map[string]any{}
	if c, ok := m["claims"]; ok {
		var stated map[string]json.RawMessage
		if err := json.Unmarshal(c, &stated); err != nil {
			return nil, time.Time{}, invalid("/body/terms/claims", "claims is an object.")
		}
		for k := range stated {
			claims[k] = unknownClaim
		}
	}
	var t terms
	if err := json.Unmarshal(raw, &t); err == nil {
		for _, ob := range t.Obligations {
			if ob.Destination != "" {
				claims["destination"] = unknownClaim
			}
		}
	}
	expires := now.Add(freshFor)
	m["checked_at"] = mustJSON(stampMilli(now))
	m["expires_at"] = mustJSON(stampMilli(expires))
	m["claims"] = mustJSON(sortedClaims(claims))
	out, err := json.Marshal(m)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("write freshness: %w", err)
	}
	return out, expires, nil
}

// sortedClaims is claims as an object with sorted keys (json.Marshal
// sorts map keys; the copy keeps the intent visible).
func sortedClaims(c map[string]any) map[string]any {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(c))
	for _, k := range keys {
		out[k] = c[k]
	}
	return out
}

// refreshOffer renews a 0.4 standing offer's window at the maker's
// {id, confirm: true} (§20.4): checked_at is now and expires_at 90 days
// later, its claims stay as they were, and the hash is taken again.
func (h *Host) refreshOffer(ctx context.Context, o *op, id string) error {
	if o.ver != Version04 {
		return invalid("/body/confirm", "confirm refreshes a 0.4 standing offer.")
	}
	if _, err := o.stepMode("list"); err != nil {
		return err
	}
	r, rec, err := h.loadOffer(ctx, id)
	if err != nil || r.Offerer != o.party.ID {
		return refuse(NotFound, "No such standing offer for this sender.")
	}
	if r.FreshUntil == nil || r.Status == statusRevoked || r.Status == statusWithdrawn {
		return refuse(StateConflict, "Only a listed 0.4 standing offer is refreshed.")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Terms, &m); err != nil {
		return fmt.Errorf("decode terms of offer %s: %w", id, err)
	}
	expires := o.now.Add(freshFor)
	m["checked_at"] = mustJSON(stampMilli(o.now))
	m["expires_at"] = mustJSON(stampMilli(expires))
	if r.Terms, err = json.Marshal(m); err != nil {
		return err
	}
	if r.TermsHash, err = Hash(r.Terms); err != nil {
		return err
	}
	r.FreshUntil = &expires
	o.writes = append(o.writes, swap(rec, r, o.now))
	o.status, o.reply = http.StatusOK, o.message("offer", o.party.ID, "", r.body(h))
	return nil
}

// stale reports a 0.4 standing offer past its expires_at, which discover
// and suggest leave out until the maker refreshes it.
func (r *offerRecord) stale(now time.Time) bool {
	return r.FreshUntil != nil && !now.Before(*r.FreshUntil)
}
