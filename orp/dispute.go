package orp

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"time"

	"frontdesk/store"
)

// kindDispute keys dispute records by deal.
const kindDispute = "orp.dispute"

// disputeRef is an open dispute a deal is waiting on.
type disputeRef struct {
	ID         string `json:"id"`
	Obligation string `json:"obligation"`
	Opener     string `json:"opener"`
}

// Dispute states.
const (
	disputeOpen      = "open"
	disputeWithdrawn = "withdrawn"
	disputeResolved  = "resolved"
)

// disputeRecord is one dispute on one obligation (§15.2). Its id is the
// id of the message that opened it, which both parties hold; it is
// stored under the deal and the opener, since two parties may use the
// same message id.
type disputeRecord struct {
	ID         string             `json:"id"`
	Deal       string             `json:"deal"`
	Obligation string             `json:"obligation"`
	Opener     string             `json:"opener"`
	Respondent string             `json:"respondent"`
	Claim      string             `json:"claim"`
	Remedy     string             `json:"remedy,omitempty"`
	State      string             `json:"state"`
	Resolution string             `json:"resolution,omitempty"`
	Statements []disputeStatement `json:"statements"`
	Opened     time.Time          `json:"opened"`
	Closed     *time.Time         `json:"closed,omitempty"`
}

type disputeStatement struct {
	Party     string     `json:"party"`
	Action    string     `json:"action"`
	Statement string     `json:"statement,omitempty"`
	Evidence  []evidence `json:"evidence,omitempty"`
	At        time.Time  `json:"at"`
}

type evidence struct {
	URL  string `json:"url"`
	Hash string `json:"hash,omitempty"`
}

func (h *Host) disputeKey(deal, opener, id string) string {
	return deal + "/" + h.opaqueOf(opener) + "/" + id
}

// findDispute is the key of the dispute id names in a deal: among those
// opener opened, or, with opener "", the one open dispute with that id.
func (h *Host) findDispute(ctx context.Context, d *dealRecord, opener, id string) (string, error) {
	if opener != "" {
		return h.disputeKey(d.ID, opener, id), nil
	}
	var keys []string
	for _, x := range d.Disputes {
		if x.ID == id {
			keys = append(keys, h.disputeKey(d.ID, x.Opener, id))
		}
	}
	if len(keys) == 0 {
		// A closed dispute: either party's.
		for _, p := range []string{d.Offerer, d.Acceptor} {
			if _, err := h.store.Get(ctx, kindDispute, h.disputeKey(d.ID, p, id)); err == nil {
				keys = append(keys, h.disputeKey(d.ID, p, id))
			}
		}
	}
	switch len(keys) {
	case 0:
		return "", refuse(NotFound, "No such dispute.")
	case 1:
		return keys[0], nil
	}
	return "", refuse(StateConflict, "Both parties opened a dispute with this id; resolve them from the deal's page.")
}

// dispute handles a party's open, respond and withdraw (§15.2). While a
// dispute is open the deal is disputed and the payouts that depend on the
// obligation stay held.
func (h *Host) dispute(ctx context.Context, o *op) error {
	var b struct {
		Action     string     `json:"action"`
		Dispute    string     `json:"dispute"`
		Obligation string     `json:"obligation"`
		Claim      string     `json:"claim"`
		Statement  string     `json:"statement"`
		Evidence   []evidence `json:"evidence"`
		Remedy     string     `json:"remedy"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	d := o.deal
	st := disputeStatement{Party: o.party.ID, Action: b.Action, Statement: b.Statement, Evidence: b.Evidence, At: o.now}
	if b.Action == "open" {
		// Money earned stays owed after a revoke (§15.1), so not_paid may
		// contest a revoked deal's payouts too.
		if !d.running() && !(b.Claim == "not_paid" && d.State == stateRevoked) {
			return refuse(StateConflict, "Only an active deal can be disputed.")
		}
		if d.obligation(b.Obligation) == nil {
			return refuse(NotFound, "No such obligation in this deal.")
		}
		if slices.ContainsFunc(d.Disputes, func(x disputeRef) bool { return x.Obligation == b.Obligation }) {
			return refuse(StateConflict, "A dispute on this obligation is already open.")
		}
		if b.Claim == "not_paid" {
			if err := h.checkNotPaid(ctx, o, d, b.Obligation); err != nil {
				return err
			}
		}
		r := disputeRecord{ID: o.env.ID, Deal: d.ID, Obligation: b.Obligation, Opener: o.party.ID, Respondent: d.other(o.party.ID),
			Claim: b.Claim, Remedy: b.Remedy, State: disputeOpen, Statements: []disputeStatement{st}, Opened: o.now}
		// The message id is new for its sender (E7), so the key is free.
		o.writes = append(o.writes, create(kindDispute, h.disputeKey(d.ID, o.party.ID, r.ID), r, o.now))
		d.Disputes = append(d.Disputes, disputeRef{ID: r.ID, Obligation: r.Obligation, Opener: o.party.ID})
		if d.State != stateDisputed {
			d.PreDispute = d.State
		}
		d.State = stateDisputed
		if err := o.holdFor(ctx, d, r.Obligation); err != nil {
			return err
		}
		o.deliver(r.Respondent, o.raw)
		o.saveDeal(d, o.dealR, false)
		return o.publish(ctx, d, nil)
	}
	// A respondent answers the counterparty's dispute; an opener
	// withdraws its own.
	opener := d.other(o.party.ID)
	if b.Action == "withdraw" {
		opener = o.party.ID
	}
	var r disputeRecord
	rec, err := h.get(ctx, kindDispute, h.disputeKey(d.ID, opener, b.Dispute), &r)
	if errors.Is(err, store.ErrNotFound) {
		if _, err := h.store.Get(ctx, kindDispute, h.disputeKey(d.ID, d.other(opener), b.Dispute)); err == nil {
			if b.Action == "withdraw" {
				return refuse(Forbidden, "Only the party that opened a dispute may withdraw it.")
			}
			return refuse(Forbidden, "Only the counterparty of the party that opened a dispute may respond.")
		}
		return refuse(NotFound, "No such dispute in this deal.")
	}
	if err != nil {
		return err
	}
	if r.State != disputeOpen {
		return refuse(StateConflict, "The dispute is no longer open.")
	}
	switch b.Action {
	case "respond":
		if o.party.ID != r.Respondent {
			return refuse(Forbidden, "Only the counterparty of the party that opened a dispute may respond.")
		}
		r.Statements = append(r.Statements, st)
		o.deliver(r.Opener, o.raw)
	case "withdraw":
		if o.party.ID != r.Opener {
			return refuse(Forbidden, "Only the party that opened a dispute may withdraw it.")
		}
		r.Statements = append(r.Statements, st)
		o.closeDispute(d, &r, disputeWithdrawn)
		o.deliver(r.Respondent, o.raw)
		if _, err := o.sweepPayouts(ctx, d); err != nil {
			return err
		}
	default:
		return refuse(Forbidden, "Only the host's resolver may resolve a dispute.")
	}
	o.writes = append(o.writes, swap(rec, r, o.now))
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, nil)
}

// checkNotPaid allows a not_paid claim only from the payee of a pay
// obligation with a payout that is owed, unpaid and past its due (S4).
func (h *Host) checkNotPaid(ctx context.Context, o *op, d *dealRecord, obligation string) error {
	payouts, err := h.dealPayouts(ctx, d.ID)
	if err != nil {
		return err
	}
	for _, s := range payouts {
		p := s.p
		if p.Obligation == obligation && p.Payee == o.party.ID && (p.State == payoutPayable || p.State == payoutSent) &&
			(p.Due == nil || !o.now.Before(*p.Due)) {
			return nil
		}
	}
	return refuse(StateConflict, "not_paid needs a payout to this party that is payable or sent and past its due.")
}

// closeDispute ends a dispute: once no dispute is open the deal is back
// in the state it was in, active or revoked (§12).
func (o *op) closeDispute(d *dealRecord, r *disputeRecord, state string) {
	now := o.now
	r.State, r.Closed = state, &now
	d.Disputes = slices.DeleteFunc(d.Disputes, func(x disputeRef) bool { return x.ID == r.ID })
	if len(d.Disputes) == 0 && d.State == stateDisputed {
		d.State = stateActive
		if d.PreDispute != "" {
			d.State = d.PreDispute
		}
		d.PreDispute = ""
	}
}

// Resolutions of a dispute.
const (
	resolutionUpheld   = "upheld"
	resolutionRejected = "rejected"
	resolutionSplit    = "split"
)

// DisputeView is what the resolver's page shows of one dispute: the
// parties' statements and evidence URLs, which are public content.
type DisputeView struct {
	ID, Deal, Obligation, Claim, Remedy, State, Resolution string
	Statements                                             []DisputeStatement
}

// DisputeStatement is one party's statement, as the resolver reads it.
type DisputeStatement struct {
	Party, Action, Statement string
	Evidence                 []string
	At                       time.Time
}

func (h *Host) resolver(token string) error {
	if h.opts.ResolverToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(h.opts.ResolverToken)) != 1 {
		return refuse(Unauthorized, "Only the resolver named in this host's terms may see and resolve disputes.")
	}
	return nil
}

// ViewDispute returns a dispute for its resolver.
func (h *Host) ViewDispute(ctx context.Context, token, deal, id string) (DisputeView, error) {
	if err := h.resolver(token); err != nil {
		return DisputeView{}, err
	}
	d, _, err := h.loadDeal(ctx, deal)
	if err != nil {
		return DisputeView{}, err
	}
	key, err := h.findDispute(ctx, d, "", id)
	if err != nil {
		return DisputeView{}, err
	}
	var r disputeRecord
	if _, err := h.get(ctx, kindDispute, key, &r); err != nil {
		return DisputeView{}, err
	}
	v := DisputeView{ID: r.ID, Deal: r.Deal, Obligation: r.Obligation, Claim: r.Claim, Remedy: r.Remedy, State: r.State, Resolution: r.Resolution}
	for _, s := range r.Statements {
		ds := DisputeStatement{Party: s.Party, Action: s.Action, Statement: s.Statement, At: s.At}
		for _, e := range s.Evidence {
			ds.Evidence = append(ds.Evidence, e.URL)
		}
		v.Statements = append(v.Statements, ds)
	}
	return v, nil
}

// ResolveDispute is the resolver's decision (§15.2), made on the
// resolver's page. upheld: the respondent loses; work it owed fails and
// the payouts that depend on it are reversed, or, when it owed money
// (not_paid), its payouts stay owed; a revoke remedy revokes the deal.
// rejected: the opener loses. split: nobody loses. Payouts not reversed
// are released from the dispute's hold. Both parties get the host's
// resolve message and the deal snapshot; a lost dispute counts in the
// loser's reputation (§15.3).
func (h *Host) ResolveDispute(ctx context.Context, token, deal, id, resolution string) error {
	if err := h.resolver(token); err != nil {
		return err
	}
	if resolution != resolutionUpheld && resolution != resolutionRejected && resolution != resolutionSplit {
		return invalid("/resolution", "resolution is upheld, rejected or split.")
	}
	return h.retry(ctx, func() error {
		o := &op{h: h, now: h.clock.Now()}
		d, dr, err := h.loadDeal(ctx, deal)
		if err != nil {
			return err
		}
		key, err := h.findDispute(ctx, d, "", id)
		if err != nil {
			return err
		}
		var r disputeRecord
		rec, err := h.get(ctx, kindDispute, key, &r)
		if err != nil {
			return err
		}
		if r.State != disputeOpen {
			return refuse(StateConflict, "The dispute is no longer open.")
		}
		r.Resolution = resolution
		o.closeDispute(d, &r, disputeResolved)
		loser, winner := "", ""
		switch resolution {
		case resolutionUpheld:
			loser, winner = r.Respondent, r.Opener
			if r.Claim != "not_paid" && obligor(d, r.Obligation) == r.Respondent {
				if s := d.obligation(r.Obligation); s != nil && s.State != obRevoked {
					s.State = obFailed
				}
				if err := o.reverseFor(ctx, d, r.Obligation); err != nil {
					return err
				}
			} else if r.Remedy == "reverse_payout" || r.Remedy == "refund" {
				if err := o.reverseFor(ctx, d, r.Obligation); err != nil {
					return err
				}
			}
			if r.Remedy == "revoke" {
				endDeal(d, stateRevoked, o.now)
				if err := o.plainLinks(ctx, d, "", o.now); err != nil {
					return err
				}
			}
		case resolutionRejected:
			loser, winner = r.Opener, r.Respondent
		}
		if loser != "" {
			o.repLost(d, loser, winner)
		}
		if _, err := o.sweepPayouts(ctx, d); err != nil {
			return err
		}
		body := map[string]any{"action": "resolve", "dispute": r.ID, "obligation": r.Obligation, "resolution": resolution}
		for _, party := range []string{d.Offerer, d.Acceptor} {
			msg, err := o.signed("dispute", party, d.ID, body)
			if err != nil {
				return err
			}
			o.deliver(party, msg)
		}
		o.writes = append(o.writes, swap(rec, r, o.now))
		o.saveDeal(d, dr, false)
		if err := o.publish(ctx, d, nil); err != nil {
			return err
		}
		return o.commit(ctx, nil)
	})
}
