package orp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"frontdesk/store"
)

// amendment is new terms for an active deal. The terms in force stay in
// force until both parties accept the new hash (§9.4).
type amendment struct {
	Terms     json.RawMessage `json:"terms"`
	TermsHash string          `json:"terms_hash"`
	By        string          `json:"by"`
	Bound     []bound         `json:"bound,omitempty"`

	// t is Terms decoded, when the deal is loaded or the counter made.
	t terms
}

// requestRecord is a request delivered to its recipient, kept so that an
// offer can answer it with re (§9.4).
type requestRecord struct {
	From string `json:"from"`
	At   string `json:"at"`
}

func requestKey(to, from, id string) string { return to + "/" + from + "/" + id }

// counter replaces the terms of a deal (§9.4). Before activation it
// clears every earlier acceptance and falls under the negotiate step;
// once active it proposes an amendment under the amend step, and the old
// hash stays in force until both parties accept the new one. A deal has
// at most maxRounds rounds; more are refused with state_conflict.
func (h *Host) counter(ctx context.Context, o *op) error {
	var b struct {
		Terms     json.RawMessage `json:"terms"`
		TermsHash string          `json:"terms_hash"`
		Expires   string          `json:"expires"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	d := o.deal
	if d.seated() {
		return h.counterSeats(ctx, o)
	}
	step := "negotiate"
	switch {
	case d.State == stateActive:
		step = "amend"
	case d.State != stateProposed && d.State != stateAwaiting:
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	mode, err := o.stepMode(step)
	if err != nil {
		return err
	}
	hash, err := Hash(b.Terms)
	if err != nil {
		return invalid("/body/terms", "The terms cannot be hashed.")
	}
	if b.TermsHash != "" && b.TermsHash != hash {
		return refuse(TermsMismatch, "terms_hash does not match the terms.")
	}
	t, err := decodeTerms(b.Terms)
	if err != nil {
		return invalid("/body/terms", "The terms hold a value this host cannot read exactly.")
	}
	if err := h.checkDestinations(ctx, t, d.Offerer, d.Acceptor); err != nil {
		return err
	}
	if d.Round >= maxRounds {
		return refuse(StateConflict, "This deal has had 20 rounds, the most this host allows.")
	}
	d.Round++
	var links map[string]*linkRecord
	if step == "amend" {
		if d.Waiting != nil {
			return refuse(StateConflict, "Another step of this deal is waiting for approval.")
		}
		d.Pending = &amendment{Terms: b.Terms, TermsHash: hash, By: o.party.ID, t: t}
		if mode == "ask" {
			h.awaitActive(o, d, "amend", "amend", hash)
		} else {
			d.Pending.Bound = []bound{{Party: o.party.ID, Authority: authority{Type: "mandate"}, At: stamp(o.now)}}
		}
	} else {
		// Nobody stays bound to terms they did not see (§9.4, H2).
		d.Terms, d.t, d.TermsHash, d.Bound, d.Waiting = b.Terms, t, hash, nil, nil
		d.voidConsents() // a consent was for the old hash (H2)
		d.Obligations = nil
		for _, ob := range t.Obligations {
			d.Obligations = append(d.Obligations, obligationState{ID: ob.ID, State: obPending})
		}
		d.State = stateProposed
		if mode == "ask" {
			h.await(o, d, "negotiate", []string{"step_ask"})
		} else if links, err = o.bind(ctx, d, o.party.ID); err != nil {
			return err
		}
	}
	o.deliver(d.other(o.party.ID), o.raw)
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, links)
}

// other is the deal's counterparty of party.
func (d *dealRecord) other(party string) string {
	if party == d.Offerer {
		return d.Acceptor
	}
	return d.Offerer
}

// awaitActive holds a step of an active deal for the sender's approval:
// the deal stays active and shows the sender waiting.
func (h *Host) awaitActive(o *op, d *dealRecord, step, target, hash string) escalation {
	e := o.escalate(step, target, d.ID, hash, []string{"step_ask"}, o.now.Add(escalationTTL))
	d.Waiting = &waiting{Party: o.party.ID, Step: step, Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	return e
}

// acceptAmendment binds the sender to an active deal's pending terms; once
// both are bound, the new terms replace the old (§9.4).
func (h *Host) acceptAmendment(ctx context.Context, o *op, mode, hash string) error {
	d := o.deal
	switch {
	case hash == d.TermsHash:
		return refuse(StateConflict, "This party is already bound to these terms.")
	case hash != d.Pending.TermsHash:
		return refuse(TermsMismatch, "terms_hash does not match the proposed terms.")
	case d.Pending.isBound(o.party.ID):
		return refuse(StateConflict, "This party is already bound to these terms.")
	case d.Waiting != nil:
		return refuse(StateConflict, "Another step of this deal is waiting for approval.")
	}
	var links map[string]*linkRecord
	if mode == "ask" {
		h.awaitActive(o, d, "accept", "amend", hash)
	} else {
		links = o.bindAmendment(ctx, d, o.party.ID)
	}
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, links)
}

func (a *amendment) isBound(party string) bool {
	return slices.ContainsFunc(a.Bound, func(b bound) bool { return b.Party == party })
}

// bindAmendment binds party to the pending terms and puts them in force
// when both parties are bound: obligations keep their state by id, new
// ones start pending, new link obligations get their tracking entries,
// and links of removed obligations turn plain.
func (o *op) bindAmendment(ctx context.Context, d *dealRecord, party string) map[string]*linkRecord {
	p := d.Pending
	if !p.isBound(party) {
		p.Bound = append(p.Bound, bound{Party: party, Authority: authority{Type: "mandate"}, At: stamp(o.now)})
	}
	d.Waiting = nil
	if !p.isBound(d.Offerer) || !p.isBound(d.Acceptor) {
		return nil
	}
	old := map[string]obligationState{}
	for _, s := range d.Obligations {
		old[s.ID] = s
	}
	tracked := map[string]bool{}
	for _, t := range d.Tracking {
		tracked[t.Obligation] = true
	}
	d.Terms, d.t, d.TermsHash, d.Bound, d.Pending = p.Terms, p.t, p.TermsHash, p.Bound, nil
	d.voidConsents() // a consent was for the old hash (H2)
	d.Obligations = nil
	links := map[string]*linkRecord{}
	kept := map[string]bool{}
	for _, ob := range d.t.Obligations {
		kept[ob.ID] = true
		s, ok := old[ob.ID]
		if !ok {
			s = obligationState{ID: ob.ID, State: obPending}
		}
		d.Obligations = append(d.Obligations, s)
		if !tracked[ob.ID] {
			o.mint(d, ob, links)
		}
	}
	for id := range tracked {
		if !kept[id] {
			if err := o.plainLinks(ctx, d, id, o.now); err != nil {
				// The link stays tracked until the sweep turns it plain.
				o.h.log.Warn("plain links", "err", err)
			}
		}
	}
	return links
}

// recordRequest keeps a delivered request so an offer can answer it.
func (o *op) recordRequest() {
	key := requestKey(o.h.opaqueOf(o.env.To), o.party.Opaque, o.env.ID)
	o.writes = append(o.writes, create(kindRequest, key, requestRecord{From: o.party.ID, At: stamp(o.now)}, o.now))
}

// answersRequest checks that a directed offer's re names a request its
// recipient sent to the offerer.
func (h *Host) answersRequest(ctx context.Context, o *op) error {
	key := requestKey(o.party.Opaque, h.opaqueOf(o.env.To), o.env.Re)
	if _, err := h.store.Get(ctx, kindRequest, key); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "re names no request the recipient sent to this party.")
		}
		return err
	}
	return nil
}

// declineRequest delivers a decline to the sender of the request its re
// names; like the request it commits nobody and has no reply (202).
func (h *Host) declineRequest(ctx context.Context, o *op) error {
	if err := h.answersRequest(ctx, o); err != nil {
		return err
	}
	o.deliver(o.env.To, o.raw)
	o.status, o.reply = http.StatusAccepted, nil
	return nil
}
