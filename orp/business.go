package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"frontdesk/store"
)

// The business that runs the host is a party too: it lists its own
// standing offers (a referral offer to its booking form, say), so a fresh
// agent finds something to accept on a host nobody else has joined. Its
// owner is the business itself, signed in at the host's staff screen, so
// the party is claimed from the start and lists without an ask.

// BusinessOwner is the owner of the business's own party: the business,
// whose people sign in at the staff screen.
const BusinessOwner = "business"

// kindBusiness keys the business's party and the offers listed for it.
const kindBusiness = "orp.business"

// businessKey is the record that names the business's party.
const businessKey = "party"

type businessRecord struct {
	Party string `json:"party"` // opaque
}

// businessOffer remembers which standing offer the business listed for
// one set of terms, so listing them again (every start) lists nothing new.
type businessOffer struct {
	Offer string `json:"offer"`
}

// businessSteps are the business's modes: its owner lists offers from the
// host's own pages, so list is auto; the rest stay as for any party.
var businessSteps = Steps{List: "auto", Negotiate: "ask", Accept: "ask", Execute: "ask", Amend: "ask", Settle: "ask", Share: "ask", Revoke: "auto"}

// BusinessParty returns the business's party, creating it on first use.
func (h *Host) BusinessParty(ctx context.Context) (*Party, error) {
	var b businessRecord
	if _, err := h.get(ctx, kindBusiness, businessKey, &b); err == nil {
		var p Party
		if _, err := h.get(ctx, kindParty, b.Party, &p); err != nil {
			return nil, fmt.Errorf("business party: %w", err)
		}
		return &p, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("business party: %w", err)
	}
	now := h.clock.Now()
	p := Party{Opaque: h.newID("p_", 13), Steps: businessSteps, Claimed: true, ClaimedAt: &now, Created: now,
		Limits: Limits{MessagesPerMinute: h.opts.MessagesPerMinute}}
	p.ID = h.partyID(p.Opaque)
	p.Owner = BusinessOwner
	_, err := h.store.Apply(ctx, []store.Write{
		create(kindBusiness, businessKey, businessRecord{Party: p.Opaque}, now),
		create(kindParty, p.Opaque, p, now),
	})
	if errors.Is(err, store.ErrExists) {
		return h.BusinessParty(ctx) // another instance created it first
	}
	if err != nil {
		return nil, fmt.Errorf("business party: %w", err)
	}
	return &p, nil
}

// ListBusinessOffer lists body (an offer body: terms, and optionally
// limit and expires) as a standing offer of the business, through the
// same rules as any party's offer. Terms already listed and still listed
// are not listed twice; it returns the offer id either way.
func (h *Host) ListBusinessOffer(ctx context.Context, body json.RawMessage) (string, error) {
	p, err := h.BusinessParty(ctx)
	if err != nil {
		return "", err
	}
	key, err := Hash(body)
	if err != nil {
		return "", fmt.Errorf("list business offer: %w", err)
	}
	var prior businessOffer
	if _, err := h.get(ctx, kindBusiness, "offer/"+key, &prior); err == nil {
		if of, _, err := h.loadOffer(ctx, prior.Offer); err == nil && of.Status == statusListed {
			return of.ID, nil
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("list business offer: %w", err)
	}
	now := h.clock.Now()
	env := map[string]any{"orp": Version, "type": "offer", "id": h.newID("m_business_", 16), "ts": stamp(now), "from": p.ID, "body": body}
	o := &op{h: h, now: now, raw: mustJSON(env), byOwner: true}
	reply, err := h.send(ctx, o, p, nil)
	if err != nil {
		return "", err
	}
	var listed struct {
		Body struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"body"`
	}
	if err := json.Unmarshal(reply.Body, &listed); err != nil || reply.Status != http.StatusOK || listed.Body.Status != statusListed {
		return "", fmt.Errorf("list business offer: the host answered %d", reply.Status)
	}
	rec := store.Record{Kind: kindBusiness, Key: "offer/" + key, Value: mustJSON(businessOffer{Offer: listed.Body.ID}), UpdatedAt: now}
	if cur, err := h.store.Get(ctx, kindBusiness, rec.Key); err == nil {
		rec.Version = cur.Version
		_, err = h.store.Swap(ctx, rec)
		if err != nil {
			return "", fmt.Errorf("list business offer: %w", err)
		}
	} else if _, err := h.store.Create(ctx, rec); err != nil {
		return "", fmt.Errorf("list business offer: %w", err)
	}
	return listed.Body.ID, nil
}

// BusinessListing is one standing offer the business listed.
type BusinessListing struct {
	ID, Title, Status string
}

// BusinessOffers lists the standing offers the business listed, for the
// staff screen.
func (h *Host) BusinessOffers(ctx context.Context) ([]BusinessListing, error) {
	recs, err := h.store.List(ctx, kindBusiness, "offer/", "", 100)
	if err != nil {
		return nil, fmt.Errorf("business offers: %w", err)
	}
	var out []BusinessListing
	for _, r := range recs {
		var bo businessOffer
		if err := json.Unmarshal(r.Value, &bo); err != nil {
			return nil, fmt.Errorf("decode business offer %s: %w", r.Key, err)
		}
		of, _, err := h.loadOffer(ctx, bo.Offer)
		if err != nil {
			return nil, err
		}
		out = append(out, BusinessListing{ID: of.ID, Title: of.t.Title, Status: of.Status})
	}
	return out, nil
}
