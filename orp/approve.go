package orp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"frontdesk/store"
)

// Escalation is what the approval page shows: the exact terms behind the
// hash, for the waiting party only.
type Escalation struct {
	ID        string          `json:"id"`
	Party     string          `json:"party"`
	Step      string          `json:"step"`
	Target    string          `json:"target"`
	Reasons   []string        `json:"reasons"`
	TermsHash string          `json:"terms_hash,omitempty"`
	Terms     json.RawMessage `json:"terms,omitempty"`
	Decided   bool            `json:"decided"`
}

// ViewEscalation returns an escalation for display. Viewing records
// nothing (H1).
func (h *Host) ViewEscalation(ctx context.Context, id string) (Escalation, error) {
	var e escalation
	if _, err := h.get(ctx, kindEscalate, id, &e); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Escalation{}, refuse(NotFound, "No such escalation.")
		}
		return Escalation{}, err
	}
	v := Escalation{ID: e.ID, Party: h.partyID(e.Party), Step: e.Step, Target: e.Target, Reasons: e.Reasons, TermsHash: e.TermsHash, Decided: e.Done}
	switch e.Target {
	case "deal":
		if d, _, err := h.loadDeal(ctx, e.Key); err == nil {
			v.Terms = d.Terms
		}
	case "amend":
		if d, _, err := h.loadDeal(ctx, e.Key); err == nil && d.Pending != nil {
			v.Terms = d.Pending.Terms
		}
	case "offer":
		if of, _, err := h.loadOffer(ctx, e.Key); err == nil {
			v.Terms = of.Terms
		}
	}
	return v, nil
}

// Approve records the waiting party's agent approving an escalation with
// its bearer (§11.2). That is not a person's approval, and the host sends
// no consent for it. It returns the host message the approval produced:
// the deal snapshot, or the offer or space as listed.
func (h *Host) Approve(ctx context.Context, token, id string) ([]byte, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	var reply []byte
	err = h.retry(ctx, func() error {
		o := &op{h: h, now: h.clock.Now(), party: p}
		if err := h.approve(ctx, o, id); err != nil {
			return err
		}
		if err := o.commit(ctx, nil); err != nil {
			return err
		}
		reply = o.reply
		return nil
	})
	return reply, err
}

func (h *Host) approve(ctx context.Context, o *op, id string) error {
	var e escalation
	er, err := h.get(ctx, kindEscalate, id, &e)
	if errors.Is(err, store.ErrNotFound) || err == nil && e.Party != o.party.Opaque {
		return refuse(NotFound, "No such escalation for this party.")
	}
	if err != nil {
		return err
	}
	if e.Done {
		return refuse(StateConflict, "This escalation was already decided.")
	}
	if !o.now.Before(e.Expires) {
		return refuse(StateConflict, "This escalation has expired.")
	}
	e.Done = true
	o.writes = append(o.writes, swap(er, e, o.now))
	switch e.Target {
	case "deal":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return err
		}
		if d.State != stateAwaiting || d.Waiting == nil || d.Waiting.Escalation != e.ID || d.TermsHash != e.TermsHash {
			return refuse(StateConflict, "The deal is in the wrong state.")
		}
		links, err := o.bind(ctx, d, o.party.ID)
		if err != nil {
			return err
		}
		o.saveDeal(d, r, false)
		return o.publish(ctx, d, links)
	case "amend":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return err
		}
		if d.State != stateActive || d.Pending == nil || d.Waiting == nil || d.Waiting.Escalation != e.ID || d.Pending.TermsHash != e.TermsHash {
			return refuse(StateConflict, "The deal is in the wrong state.")
		}
		links := o.bindAmendment(ctx, d, o.party.ID)
		o.saveDeal(d, r, false)
		return o.publish(ctx, d, links)
	case "settle":
		return h.approveSettle(ctx, o, e)
	case "execute":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return err
		}
		ob := d.obligation(e.Obligation)
		if d.State != stateActive || d.Waiting == nil || d.Waiting.Escalation != e.ID || ob == nil || ob.State != obPending {
			return refuse(StateConflict, "The deal or the obligation is in the wrong state.")
		}
		ob.State, d.Waiting = obClaimed, nil
		o.saveDeal(d, r, false)
		return o.publish(ctx, d, nil)
	case "offer":
		of, r, err := h.loadOffer(ctx, e.Key)
		if err != nil {
			return err
		}
		if of.Status != statusWaiting {
			return refuse(StateConflict, "The offer is not waiting.")
		}
		of.Status, of.Waiting, of.ListedAt = statusListed, nil, o.now
		o.writes = append(o.writes, swap(r, of, o.now))
		o.status, o.reply = http.StatusOK, o.message("offer", o.party.ID, "", of.body(h))
		return nil
	case "space":
		var s spaceRecord
		r, err := h.get(ctx, kindSpace, e.Key, &s)
		if err != nil {
			return err
		}
		if s.Status != statusWaiting {
			return refuse(StateConflict, "The space is not waiting.")
		}
		s.Status, s.Waiting = statusListed, nil
		o.writes = append(o.writes, swap(r, s, o.now))
		o.status, o.reply = http.StatusOK, o.message("space", o.party.ID, "", spaceBody{Action: "listed", Space: withVerified(s.Space, s.Verified), Status: statusListed})
		return nil
	}
	return refuse(NotFound, "No such escalation for this party.")
}
