package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

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
	// Words are the terms in plain words, one line per obligation; the
	// counterparty's own text (the title, briefs, copy) is in Quoted, to
	// be shown as quoted data, never as the host's words (§18).
	Words  []string `json:"-"`
	Quoted []string `json:"-"`
	// Owner is the owner of the waiting party.
	Owner string `json:"-"`
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
	var p Party
	if _, err := h.get(ctx, kindParty, e.Party, &p); err != nil {
		return Escalation{}, err
	}
	v.Owner = p.Owner
	var t *terms
	switch e.Target {
	case "deal", "execute":
		d, _, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return Escalation{}, err
		}
		v.Terms, t = d.Terms, &d.t
	case "amend":
		d, _, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return Escalation{}, err
		}
		if d.Pending != nil {
			v.Terms = d.Pending.Terms
			if pt, err := decodeTerms(d.Pending.Terms); err == nil {
				t = &pt
			}
		}
	case "offer":
		of, _, err := h.loadOffer(ctx, e.Key)
		if err != nil {
			return Escalation{}, err
		}
		v.Terms, t = of.Terms, &of.t
	}
	if t != nil {
		v.Words, v.Quoted = inWords(t)
	}
	return v, nil
}

// inWords says what each obligation of terms asks, and collects the
// counterparty's own text to be shown as quoted data.
func inWords(t *terms) (words, quoted []string) {
	if t.Title != "" {
		quoted = append(quoted, t.Title)
	}
	for _, ob := range t.Obligations {
		line := "The " + ob.By + " must " + ob.Action
		switch ob.Action {
		case "pay":
			switch {
			case ob.RateBps > 0:
				line += fmt.Sprintf(" %d.%02d%% of revenue per %s", ob.RateBps/100, ob.RateBps%100, ob.Per)
			case ob.Amount != nil:
				line += fmt.Sprintf(" %d.%02d %s per %s", ob.Amount.AmountMinor/100, ob.Amount.AmountMinor%100, ob.Amount.Currency, ob.Per)
			}
			if ob.Cap != nil {
				line += fmt.Sprintf(", at most %d.%02d %s", ob.Cap.AmountMinor/100, ob.Cap.AmountMinor%100, ob.Cap.Currency)
			}
		case "place", "comment", "repost":
			if ob.Content != nil && ob.Content.Link {
				line += " a tracked link"
			}
			if ob.Destination != "" {
				line += " to " + ob.Destination
			}
			if ob.Target != "" {
				line += " on " + ob.Target
			}
		}
		if ob.Due != "" {
			line += ", due " + ob.Due
		}
		if ob.Keep != "" {
			line += ", kept " + ob.Keep
		}
		if len(ob.Proof) > 0 {
			line += ", proved by " + strings.Join(ob.Proof, " or ")
		}
		words = append(words, line+" (obligation "+ob.ID+").")
		if ob.Content != nil {
			for _, s := range []string{ob.Content.Brief, ob.Content.Copy} {
				if s != "" {
					quoted = append(quoted, s)
				}
			}
		}
		if ob.Quote != "" {
			quoted = append(quoted, ob.Quote)
		}
	}
	return words, quoted
}

// Approve records the waiting party's agent approving an escalation with
// its bearer (§11.2). That is not a person's approval, and the host sends
// no consent for it. When the owner turned on human approval for the
// step, the bearer is refused: only the signed-in owner's form approves
// (ApproveAsOwner). It returns the host message the approval produced:
// the deal snapshot, or the offer or space as listed.
func (h *Host) Approve(ctx context.Context, token, id string) ([]byte, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	var reply []byte
	err = h.retry(ctx, func() error {
		o := &op{h: h, now: h.clock.Now(), party: p}
		if _, err := h.approve(ctx, o, id, ""); err != nil {
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

// consentBody is a host consent (§11.2): the record that a person decided
// an escalation, for one terms_hash (H2), with the assurance of how the
// person proved it was them (H3).
type consentBody struct {
	Consent    string   `json:"consent"`
	Escalation string   `json:"escalation"`
	Party      string   `json:"party"`
	Decision   string   `json:"decision"`
	Step       string   `json:"step"`
	TermsHash  string   `json:"terms_hash"`
	Reasons    []string `json:"reasons,omitempty"`
	Assurance  string   `json:"assurance"`
	At         string   `json:"at"`
}

// consentRef is a consent kept on the deal it binds, so a counter that
// changes the hash voids it (H2).
type consentRef struct {
	ID        string `json:"id"`
	Party     string `json:"party"`
	TermsHash string `json:"terms_hash"`
}

// voidConsents drops the consents of a deal that are not for its current
// terms_hash: a counter that changes the terms voids them (H2), and the
// person must approve the new hash. Whatever replaces the terms calls it.
func (d *dealRecord) voidConsents() {
	kept := d.Consents[:0]
	for _, c := range d.Consents {
		if c.TermsHash == d.TermsHash {
			kept = append(kept, c)
		}
	}
	d.Consents = kept
}

// ApproveAsOwner records the signed-in owner approving an escalation of
// one of its parties, by submitting the approval page's form (H1). The
// host binds the party and sends it a signed consent naming the exact
// terms_hash and the session's assurance. It returns the consent message.
func (h *Host) ApproveAsOwner(ctx context.Context, s OwnerSession, id string) ([]byte, error) {
	return h.decideAsOwner(ctx, s, id, decisionApproved)
}

// RefuseAsOwner records the signed-in owner refusing an escalation of one
// of its parties, by the approval page's form. The held step never takes
// effect: an awaiting deal is declined (§12), a held amendment, execute
// or payout is dropped and the terms in force stay, a waiting listing is
// withdrawn. A refusal of terms is recorded like an approval, as a signed
// consent with decision refused for the exact terms_hash (§11.2). It
// returns that consent, or nil for a listing, which has no deal.
func (h *Host) RefuseAsOwner(ctx context.Context, s OwnerSession, id string) ([]byte, error) {
	return h.decideAsOwner(ctx, s, id, decisionRefused)
}

// The decisions a consent records (§11.2).
const (
	decisionApproved = "approved"
	decisionRefused  = "refused"
)

func (h *Host) decideAsOwner(ctx context.Context, s OwnerSession, id, decision string) ([]byte, error) {
	var consent []byte
	err := h.retry(ctx, func() error {
		var e escalation
		if _, err := h.get(ctx, kindEscalate, id, &e); errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such escalation.")
		} else if err != nil {
			return err
		}
		var p Party
		if _, err := h.get(ctx, kindParty, e.Party, &p); err != nil {
			return err
		}
		if s.Owner == "" || p.Owner != s.Owner {
			return refuse(NotFound, "No such escalation for this owner.")
		}
		o := &op{h: h, now: h.clock.Now(), party: &p}
		body := consentBody{Consent: h.newID("cns_", 12), Escalation: e.ID, Party: p.ID, Decision: decision, Step: e.Step,
			TermsHash: e.TermsHash, Reasons: e.Reasons, Assurance: s.Assurance, At: stamp(o.now)}
		var d *dealRecord
		var err error
		if decision == decisionRefused {
			d, err = h.refuseEscalation(ctx, o, id, s.Assurance)
		} else {
			d, err = h.approve(ctx, o, id, s.Assurance, func(d *dealRecord) {
				d.Consents = append(d.Consents, consentRef{ID: body.Consent, Party: p.ID, TermsHash: e.TermsHash})
			})
		}
		if err != nil {
			return err
		}
		consent = nil
		if e.TermsHash != "" && d != nil {
			// A consent names its deal; a listing's decision has none.
			consent = o.message("consent", p.ID, d.ID, body)
			o.deliver(p.ID, consent)
		}
		return o.commit(ctx, nil)
	})
	return consent, err
}

// openEscalation reads escalation id of o.party for a decision and marks
// it decided: refused when it is another party's, already decided,
// expired, or on a step the owner decides in person and assurance is ""
// (the agent's bearer).
func (h *Host) openEscalation(ctx context.Context, o *op, id, assurance string) (escalation, error) {
	var e escalation
	er, err := h.get(ctx, kindEscalate, id, &e)
	if errors.Is(err, store.ErrNotFound) || err == nil && e.Party != o.party.Opaque {
		return e, refuse(NotFound, "No such escalation for this party.")
	}
	if err != nil {
		return e, err
	}
	if assurance == "" && slices.Contains(o.party.Human, e.Step) {
		return e, refuse(Forbidden, "The owner approves the "+e.Step+" step in person: only the signed-in owner's form on the approval page records it, never an agent's bearer.")
	}
	if e.Done {
		return e, refuse(StateConflict, "This escalation was already decided.")
	}
	if !o.now.Before(e.Expires) {
		return e, refuse(StateConflict, "This escalation has expired.")
	}
	e.Done = true
	o.writes = append(o.writes, swap(er, e, o.now))
	return e, nil
}

// refuseEscalation decides escalation id of o.party as refused and undoes
// what it held. It returns the deal it changed, nil for a listing.
func (h *Host) refuseEscalation(ctx context.Context, o *op, id, assurance string) (*dealRecord, error) {
	e, err := h.openEscalation(ctx, o, id, assurance)
	if err != nil {
		return nil, err
	}
	switch e.Target {
	case "deal", "amend", "execute", "settle":
		d, r, err := h.loadDeal(ctx, dealOfKey(e.Key))
		if err != nil {
			return nil, err
		}
		if d.Waiting == nil || d.Waiting.Escalation != e.ID {
			return nil, refuse(StateConflict, "The deal is in the wrong state.")
		}
		d.Waiting = nil
		switch e.Target {
		case "deal":
			// awaiting, refused: declined (§12).
			d.State, d.Ended = stateDeclined, &o.now
		case "amend":
			d.Pending = nil // the terms in force stay in force (§9.4)
		}
		o.deal, o.dealR = d, r
		o.saveDeal(d, r, false)
		return d, o.publish(ctx, d, nil)
	case "offer", "space":
		return nil, h.decideListing(ctx, o, e, statusWithdrawn)
	}
	return nil, refuse(NotFound, "No such escalation for this party.")
}

// approve decides escalation id for o.party. assurance is "" for the
// agent's bearer, else the owner session's; onDeal, when set, sees the
// deal the approval changes before it is written. It returns that deal.
func (h *Host) approve(ctx context.Context, o *op, id, assurance string, onDeal ...func(*dealRecord)) (*dealRecord, error) {
	save := func(d *dealRecord, r store.Record) {
		for _, f := range onDeal {
			f(d)
		}
		o.deal, o.dealR = d, r
		o.saveDeal(d, r, false)
	}
	e, err := h.openEscalation(ctx, o, id, assurance)
	if err != nil {
		return nil, err
	}
	switch e.Target {
	case "deal":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return nil, err
		}
		if d.State != stateAwaiting || d.Waiting == nil || d.Waiting.Escalation != e.ID || d.TermsHash != e.TermsHash {
			return nil, refuse(StateConflict, "The deal is in the wrong state.")
		}
		if assurance == AssuranceClientPrompt && spending(&d.t, roleOf(d, o.party.ID)).committed {
			return nil, refuse(Forbidden, "A client prompt alone cannot bind this party to pay money (H3).")
		}
		links, err := o.bind(ctx, d, o.party.ID)
		if err != nil {
			return nil, err
		}
		save(d, r)
		return d, o.publish(ctx, d, links)
	case "amend":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return nil, err
		}
		if d.State != stateActive || d.Pending == nil || d.Waiting == nil || d.Waiting.Escalation != e.ID || d.Pending.TermsHash != e.TermsHash {
			return nil, refuse(StateConflict, "The deal is in the wrong state.")
		}
		links := o.bindAmendment(ctx, d, o.party.ID)
		save(d, r)
		return d, o.publish(ctx, d, links)
	case "seat":
		return h.approveSeat(ctx, o, e, assurance, save)
	case "settle":
		return nil, h.approveSettle(ctx, o, e)
	case "execute":
		d, r, err := h.loadDeal(ctx, e.Key)
		if err != nil {
			return nil, err
		}
		ob := d.obligation(e.Obligation)
		if d.State != stateActive || d.Waiting == nil || d.Waiting.Escalation != e.ID || ob == nil || ob.State != obPending {
			return nil, refuse(StateConflict, "The deal or the obligation is in the wrong state.")
		}
		ob.State, d.Waiting = obClaimed, nil
		save(d, r)
		return d, o.publish(ctx, d, nil)
	case "offer", "space":
		return nil, h.decideListing(ctx, o, e, statusListed)
	}
	return nil, refuse(NotFound, "No such escalation for this party.")
}

// decideListing moves the offer or space escalation e waits on to
// status: listed on an approval, which answers with it, or withdrawn on a
// refusal.
func (h *Host) decideListing(ctx context.Context, o *op, e escalation, status string) error {
	listed := status == statusListed
	if e.Target == "offer" {
		of, r, err := h.loadOffer(ctx, e.Key)
		if err != nil {
			return err
		}
		if of.Status != statusWaiting {
			return refuse(StateConflict, "The offer is not waiting.")
		}
		of.Status, of.Waiting = status, nil
		if listed {
			of.ListedAt = o.now
			o.status, o.reply = http.StatusOK, o.message("offer", o.party.ID, "", of.body(h))
		}
		o.writes = append(o.writes, swap(r, of, o.now))
		return nil
	}
	var s spaceRecord
	r, err := h.get(ctx, kindSpace, e.Key, &s)
	if err != nil {
		return err
	}
	if s.Status != statusWaiting {
		return refuse(StateConflict, "The space is not waiting.")
	}
	s.Status, s.Waiting = status, nil
	if listed {
		o.status, o.reply = http.StatusOK, o.message("space", o.party.ID, "", spaceBody{Action: "listed", Space: withVerified(s.Space, s.Verified), Status: statusListed})
	}
	o.writes = append(o.writes, swap(r, s, o.now))
	return nil
}
