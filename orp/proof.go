package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Proof and verification (§13). execute is a claim; only a receipt moves
// an obligation to verified or failed (P1). The host issues receipts for
// every method but attestation; only the obligor's counterparty may send
// an attestation, and a receipt from the obligor about its own obligation
// is forbidden (P2). An attestation verifies the obligation within the
// deal for the attester only: it is never a reputation input and cannot
// make another party's money payable (P3). Obligations with keep are
// checked again one day after verification, then weekly and at the end
// of keep; a failed recheck fails the obligation and opens a
// removed_early dispute (P6). An obligation still pending or claimed
// after its due fails with a host receipt (§12).

// Recheck schedule (P6).
const (
	firstRecheck = 24 * time.Hour
	recheckEvery = 7 * 24 * time.Hour
)

// receiptBody is a receipt (§13).
type receiptBody struct {
	Obligation string         `json:"obligation"`
	Result     string         `json:"result"`
	Method     string         `json:"method"`
	At         string         `json:"at"`
	URL        string         `json:"url,omitempty"`
	Found      map[string]any `json:"found,omitempty"`
	Witness    string         `json:"witness,omitempty"`
	NextCheck  string         `json:"next_check,omitempty"`
	Note       string         `json:"note,omitempty"`
}

// proofState is how one obligation was, or is being, proved. It lives in
// the deal record and is never shown in snapshots.
type proofState struct {
	Method string `json:"method"`
	URL    string `json:"url,omitempty"`
	// By is the attester of an attestation: the only party for whom it
	// verifies the obligation (P3).
	By        string     `json:"by,omitempty"`
	Verified  *time.Time `json:"verified,omitempty"`
	NextCheck *time.Time `json:"next_check,omitempty"`
	KeepUntil *time.Time `json:"keep_until,omitempty"`
	// Waiting is a proof_url the host has not read yet.
	Waiting bool `json:"waiting,omitempty"`
}

// VerifiedFor reports whether an obligation is verified for party: by a
// host receipt, or by an attestation that party itself sent (P3). Code
// that makes money payable asks this for the payee's side.
func (d *dealRecord) verifiedFor(obligation, party string) bool {
	ob := d.obligation(obligation)
	if ob == nil || ob.State != obVerified {
		return false
	}
	ps := d.Proofs[obligation]
	return ps == nil || ps.Method != "attestation" || ps.By == party
}

// termsObligation is the obligation id of the deal's terms.
func (d *dealRecord) termsObligation(id string) *obligation {
	for i := range d.t.Obligations {
		if d.t.Obligations[i].ID == id {
			return &d.t.Obligations[i]
		}
	}
	return nil
}

// attest applies a counterparty's attestation receipt (P2, P3).
func (h *Host) attest(ctx context.Context, o *op) error {
	var b receiptBody
	if err := o.body(&b); err != nil {
		return err
	}
	d := o.deal
	if d == nil {
		return invalid("/deal", "A receipt names its deal.")
	}
	if o.env.To != "" && o.env.To != h.id && !d.hasParty(o.env.To) {
		return refuse(NotFound, "No such party in this deal.")
	}
	ob, terms := d.obligation(b.Obligation), d.termsObligation(b.Obligation)
	if ob == nil || terms == nil {
		return refuse(NotFound, "No such obligation in this deal.")
	}
	if obligor(d, b.Obligation) == o.party.ID {
		return refuse(Forbidden, "A party may not issue a receipt about its own obligation; the host or the counterparty verifies it.")
	}
	if b.Method != "attestation" {
		return refuse(Forbidden, "Only the host issues receipts with this method.")
	}
	if !slices.Contains(terms.Proof, "attestation") {
		return refuse(Forbidden, "The terms do not accept attestation as proof of this obligation.")
	}
	if b.Result != "verified" {
		return refuse(Forbidden, "An attestation can only verify an obligation; open a dispute to contest one.")
	}
	if d.State != stateActive {
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	if ob.State != obPending && ob.State != obClaimed {
		return refuse(StateConflict, "The obligation is not pending or claimed.")
	}
	ob.State, ob.Receipt = obVerified, o.env.ID
	d.proof(b.Obligation).Method, d.proof(b.Obligation).By = "attestation", o.party.ID
	now := o.now
	d.proof(b.Obligation).Verified = &now
	o.deliver(obligor(d, b.Obligation), o.raw)
	if err := h.maybeComplete(ctx, o, d); err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, nil)
}

// proof returns the deal's proof state of an obligation, creating it.
func (d *dealRecord) proof(obligation string) *proofState {
	if d.Proofs == nil {
		d.Proofs = map[string]*proofState{}
	}
	ps := d.Proofs[obligation]
	if ps == nil {
		ps = &proofState{}
		d.Proofs[obligation] = ps
	}
	return ps
}

// pageMethod is the method by which the host reads a page for an
// obligation, or "": platform_check when the terms accept it (the host
// reads the public web page itself), else proof_url.
func pageMethod(ob *obligation) string {
	switch {
	case ob == nil:
		return ""
	case slices.Contains(ob.Proof, "platform_check"):
		return "platform_check"
	case slices.Contains(ob.Proof, "proof_url"):
		return "proof_url"
	}
	return ""
}

// wanted is what the page of an obligation must show, lowercased: the
// tracked link or the direct destination, the code, the disclosure label
// and the target.
type wanted struct {
	link, code, disclosure, target string
}

func (h *Host) wantedOn(ctx context.Context, d *dealRecord, ob *obligation) (wanted, error) {
	var w wanted
	if ob.Content != nil {
		for _, t := range d.Tracking {
			if t.Obligation != ob.ID {
				continue
			}
			if ob.Content.Link && t.Token != "" {
				w.link = h.url("/go/" + t.Token)
			}
			if ob.Content.Code {
				w.code = t.Code
			}
		}
		if ob.Content.Direct {
			w.link = ob.Destination
		}
	}
	if ob.Action == "repost" || ob.Action == "comment" {
		w.target = ob.Target
	}
	if ob.Action == "place" || ob.Action == "comment" || ob.Action == "repost" && ob.Quote != "" {
		if d.t.Disclosure != nil {
			w.disclosure = d.t.Disclosure.Label
		}
	}
	w.link, w.code, w.disclosure, w.target = strings.ToLower(w.link), strings.ToLower(w.code), strings.ToLower(w.disclosure), strings.ToLower(w.target)
	return w, nil
}

// findOn reports what of w the page text shows, and whether that is all.
func findOn(page string, w wanted) (map[string]any, bool) {
	found := map[string]any{}
	all := true
	for name, s := range map[string]string{"link": w.link, "code": w.code, "disclosure": w.disclosure, "target": w.target} {
		if s == "" {
			continue
		}
		ok := strings.Contains(page, s)
		found[name] = ok
		all = all && ok
	}
	return found, all
}

// checkPage reads the page of an obligation's proof and applies the
// finding in a receipt: the first check of a proof_url, or a recheck.
// The page is read outside any write, and the finding applies only if
// the deal has not moved on meanwhile. A page that cannot be read for a
// passing reason (a timeout, a server error) leaves the obligation as it
// is, for the sweep to try again.
func (h *Host) checkPage(ctx context.Context, dealID, obligationID string) error {
	d, _, err := h.loadDeal(ctx, dealID)
	if err != nil {
		return err
	}
	ps, terms := d.Proofs[obligationID], d.termsObligation(obligationID)
	ob := d.obligation(obligationID)
	if ps == nil || terms == nil || ob == nil || d.State != stateActive {
		return nil
	}
	recheck := !ps.Waiting
	if recheck && (ob.State != obVerified || ps.NextCheck == nil) || !recheck && ob.State != obClaimed {
		return nil
	}
	w, err := h.wantedOn(ctx, d, terms)
	if err != nil {
		return err
	}
	page, fetchErr := h.fetcher.fetch(ctx, ps.URL)
	var found map[string]any
	ok := false
	note := ""
	switch {
	case fetchErr == nil:
		found, ok = findOn(page, w)
		if !ok {
			note = "The page does not show everything the terms ask for."
		}
	case errors.Is(fetchErr, errPrivateAddress):
		note = "The page is not on a public address."
	case errors.Is(fetchErr, errTooLarge):
		note = "The page is over 1 MiB."
	case strings.Contains(fetchErr.Error(), "status 4"):
		note = "The page could not be read: it is missing or not public."
	default:
		h.log.Warn("read proof page", "err", fetchErr)
		return nil // passing: the sweep reads it again
	}
	return h.retry(ctx, func() error {
		d, r, err := h.loadDeal(ctx, dealID)
		if err != nil {
			return err
		}
		ps, ob := d.Proofs[obligationID], d.obligation(obligationID)
		if ps == nil || ob == nil || d.State != stateActive || ps.Waiting == recheck {
			return nil
		}
		o := &op{h: h, now: h.clock.Now()}
		rb := receiptBody{Result: "failed", Method: ps.Method, At: stamp(o.now), URL: ps.URL, Found: found, Note: note}
		if ok {
			rb.Result = "verified"
			o.schedule(ps, terms)
			if ps.NextCheck != nil {
				rb.NextCheck = stamp(*ps.NextCheck)
			}
		} else {
			ps.NextCheck = nil
		}
		ps.Waiting = false
		if recheck && ok && ob.State == obVerified {
			// A passing recheck moves the schedule on; after the final one
			// the deal may complete.
			if err := h.maybeComplete(ctx, o, d); err != nil {
				return err
			}
			o.saveDeal(d, r, false)
			if d.ended() {
				if err := o.publish(ctx, d, nil); err != nil {
					return err
				}
			}
			return o.commit(ctx, nil)
		}
		if err := o.hostReceipt(d, obligationID, rb); err != nil {
			return err
		}
		if recheck && !ok {
			o.openDispute(d, obligationID, "removed_early")
		}
		if err := h.maybeComplete(ctx, o, d); err != nil {
			return err
		}
		o.saveDeal(d, r, false)
		if err := o.publish(ctx, d, nil); err != nil {
			return err
		}
		return o.commit(ctx, nil)
	})
}

// schedule sets the next recheck of a verified proof (P6): a day after
// verification, then weekly, and at the end of keep; none after that.
func (o *op) schedule(ps *proofState, terms *obligation) {
	keep, _ := isoDuration(terms.Keep)
	if ps.Verified == nil {
		now := o.now
		ps.Verified = &now
		if keep > 0 {
			until := now.Add(keep)
			ps.KeepUntil = &until
		}
	}
	if ps.KeepUntil == nil || !o.now.Before(*ps.KeepUntil) {
		ps.NextCheck = nil
		return
	}
	next := o.now.Add(recheckEvery)
	if ps.NextCheck == nil && o.now.Equal(*ps.Verified) {
		next = o.now.Add(firstRecheck)
	}
	if next.After(*ps.KeepUntil) {
		next = *ps.KeepUntil
	}
	ps.NextCheck = &next
}

// Dispute is a dispute on one obligation as the owner's pages and tests
// read it (§15.2).
type Dispute struct {
	ID, Obligation, Claim, Opener, State string
}

// openDispute opens a dispute the host raises itself (a failed recheck,
// P6) against the obligor, and moves the deal to disputed.
func (o *op) openDispute(d *dealRecord, obligation, claim string) {
	obligor := obligor(d, obligation)
	r := disputeRecord{ID: o.h.newID("dsp_", 12), Deal: d.ID, Obligation: obligation, Opener: o.h.id, Respondent: obligor,
		Claim: claim, State: disputeOpen, Opened: o.now,
		Statements: []disputeStatement{{Party: o.h.id, Action: "open", Statement: "The host's recheck no longer found the work on its page.", At: o.now}}}
	o.writes = append(o.writes, create(kindDispute, o.h.disputeKey(d.ID, o.h.id, r.ID), r, o.now))
	d.Disputes = append(d.Disputes, disputeRef{ID: r.ID, Obligation: obligation, Opener: o.h.id})
	if d.State != stateDisputed {
		d.PreDispute = d.State
	}
	d.State = stateDisputed
}

// Disputes lists a deal's disputes, for the owner's pages.
func (h *Host) Disputes(ctx context.Context, deal string) ([]Dispute, error) {
	recs, err := h.store.List(ctx, kindDispute, deal+"/", "", 100)
	if err != nil {
		return nil, fmt.Errorf("list disputes: %w", err)
	}
	out := make([]Dispute, 0, len(recs))
	for _, r := range recs {
		var dr disputeRecord
		if err := json.Unmarshal(r.Value, &dr); err != nil {
			return nil, fmt.Errorf("decode dispute %s: %w", r.Key, err)
		}
		out = append(out, Dispute{ID: dr.ID, Obligation: dr.Obligation, Claim: dr.Claim, Opener: dr.Opener, State: dr.State})
	}
	return out, nil
}

// sweepProofs reads the pages due for a first check or a recheck; the
// sweep's obligation pass fails those whose due passed without proof
// (§12, sweepObligations).
func (h *Host) sweepProofs(ctx context.Context, dealID string, res *SweepResult) error {
	d, _, err := h.loadDeal(ctx, dealID)
	if err != nil {
		return err
	}
	if d.State != stateActive {
		return nil
	}
	now := h.clock.Now()
	var errs []error
	for id, ps := range d.Proofs {
		if ps.Waiting || ps.NextCheck != nil && !now.Before(*ps.NextCheck) {
			if err := h.checkPage(ctx, dealID, id); err != nil {
				errs = append(errs, err)
			}
			res.Verified++
		}
	}
	return errors.Join(errs...)
}

// Witness reports a named verifier's finding about one obligation: the
// verifier is a party this host names in Options.Witnesses, and the host
// issues the receipt (method witness) naming it (§13). A witness is never
// a party of the deal it verifies.
type Witness struct {
	Deal       string         `json:"deal"`
	Obligation string         `json:"obligation"`
	Result     string         `json:"result"`
	URL        string         `json:"url,omitempty"`
	Found      map[string]any `json:"found,omitempty"`
}

// WitnessReceipt applies a witness's finding, sent with its bearer.
func (h *Host) WitnessReceipt(ctx context.Context, token string, body []byte) ([]byte, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(h.opts.Witnesses, p.ID) {
		return nil, refuse(Forbidden, "Only a witness this host names may report a finding.")
	}
	var w Witness
	v, e := decodeStrict(body)
	if e != nil {
		return nil, e
	}
	if err := remarshal(v, &w); err != nil {
		return nil, invalid("", "The finding is not valid.")
	}
	if w.Result != "verified" && w.Result != "failed" {
		return nil, invalid("/result", "result is verified or failed.")
	}
	for k, f := range w.Found {
		if _, ok := f.(bool); !ok || !slices.Contains([]string{"link", "code", "disclosure", "target", "content"}, k) {
			return nil, invalid("/found/"+k, "found holds link, code, disclosure, target or content, each true or false.")
		}
	}
	if w.URL != "" && destinationSyntax(w.URL) != "" {
		return nil, invalid("/url", "url is the public page the witness read.")
	}
	var reply []byte
	err = h.retry(ctx, func() error {
		d, r, err := h.loadDeal(ctx, w.Deal)
		if err != nil {
			return err
		}
		terms, ob := d.termsObligation(w.Obligation), d.obligation(w.Obligation)
		switch {
		case d.hasParty(p.ID):
			return refuse(Forbidden, "A witness cannot verify a deal it is a party of.")
		case terms == nil || ob == nil:
			return refuse(NotFound, "No such obligation in this deal.")
		case !slices.Contains(terms.Proof, "witness"):
			return refuse(Forbidden, "The terms do not accept a witness as proof of this obligation.")
		case d.State != stateActive || ob.State != obPending && ob.State != obClaimed:
			return refuse(StateConflict, "The deal or the obligation is in the wrong state.")
		}
		o := &op{h: h, now: h.clock.Now()}
		rb := receiptBody{Obligation: w.Obligation, Result: w.Result, Method: "witness", At: stamp(o.now), URL: w.URL, Found: w.Found, Witness: p.ID}
		if err := o.hostReceipt(d, w.Obligation, rb); err != nil {
			return err
		}
		if err := h.maybeComplete(ctx, o, d); err != nil {
			return err
		}
		o.saveDeal(d, r, false)
		if err := o.publish(ctx, d, nil); err != nil {
			return err
		}
		reply = o.message("receipt", p.ID, d.ID, rb)
		return o.commit(ctx, nil)
	})
	return reply, err
}
