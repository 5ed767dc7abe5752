package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"

	"frontdesk/store"
)

// seatState is a seat as the deal record keeps it: the seat, and when it
// was added (0 for the seats of the offer, else the deal's seat count at
// the time), which decides whether it can fill a vacancy (§20.3).
type seatState struct {
	Seat
	Added int `json:"added,omitempty"`
}

// vacancy is the seat of a required party that left (§20.3): only a
// required seat of the same role added after it opened, once signed,
// clears it.
type vacancy struct {
	Role  string    `json:"role"`
	Since time.Time `json:"since"`
	Seq   int       `json:"seq"` // the deal's seat count when it opened
	Left  string    `json:"left"`
}

// vacancyView is a vacancy as a deal snapshot shows it.
type vacancyView struct {
	Role  string `json:"role"`
	Since string `json:"since"`
	Left  string `json:"left,omitempty"`
}

// attestation is a consumer seat's attestation of an outcome or receipt
// (§20.7).
type attestation struct {
	Seat   string         `json:"seat"`
	Object attestedObject `json:"object"`
	At     string         `json:"at"`
}

type attestedObject struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// approvalView is one approval of a 0.4 deal's signature, as the approve
// reply and the deal read show it (§11.2).
type approvalView struct {
	Party string `json:"party"`
	By    string `json:"by"`
	At    string `json:"at"`
}

// kindApproval holds the approvals of 0.4 deals, one record each, keyed
// "<deal>/<time>-<seq>", apart from the deal so a read of them that fails
// leaves the deal readable (approvals_unavailable).
const kindApproval = "orp.approval"

// seated reports a deal with seats: a many-party 0.4 deal.
func (d *dealRecord) seated() bool { return d.Orp == Version04 && len(d.Parties) > 0 }

// seat is the party's seat on the deal, or nil.
func (d *dealRecord) seat(party string) *seatState {
	for i := range d.Parties {
		if d.Parties[i].ID == party {
			return &d.Parties[i]
		}
	}
	return nil
}

func (d *dealRecord) seats() []Seat {
	out := make([]Seat, len(d.Parties))
	for i, s := range d.Parties {
		out[i] = s.Seat
	}
	return out
}

// seatIDs are the parties a seated deal's messages go to.
func (d *dealRecord) seatIDs() []string {
	out := make([]string, len(d.Parties))
	for i, s := range d.Parties {
		out[i] = s.ID
	}
	return out
}

// filled reports whether a required seat of the vacancy's role, added
// after it opened, has signed (§20.3).
func (d *dealRecord) filled(v vacancy) bool {
	return slices.ContainsFunc(d.Parties, func(s seatState) bool {
		return s.Role == v.Role && s.Required && s.Added > v.Seq && s.Signed
	})
}

// ready reports whether every required seat signed the current hash and
// every vacancy has its signed required replacement (§20.2, §20.3).
func (d *dealRecord) ready() bool {
	for _, s := range d.Parties {
		if s.Required && !s.Signed {
			return false
		}
	}
	for _, v := range d.Vacancies {
		if !d.filled(v) {
			return false
		}
	}
	return true
}

// rehash recomputes the deal's terms_hash from its terms and seats.
func (d *dealRecord) rehash() error {
	h, err := SeatsHash(d.Terms, d.seats())
	if err != nil {
		return fmt.Errorf("hash seats: %w", err)
	}
	d.TermsHash = h
	return nil
}

// rebound makes Bound the signed seats, sorted by party id, so any order
// of signatures reaches the same state (§20.2).
func (d *dealRecord) rebound(now time.Time) {
	at := map[string]string{}
	for _, b := range d.Bound {
		at[b.Party] = b.At
	}
	d.Bound = nil
	for _, s := range d.Parties {
		if !s.Signed {
			continue
		}
		when := at[s.ID]
		if when == "" {
			when = stamp(now)
		}
		d.Bound = append(d.Bound, bound{Party: s.ID, Authority: authority{Type: "mandate"}, At: when})
	}
	sort.Slice(d.Bound, func(i, j int) bool { return d.Bound[i].Party < d.Bound[j].Party })
}

// settleSeats moves a seated deal between pending and active after its
// seats or signatures changed: active once ready, its links minted the
// first time only (§20.2), pending again (links paused, so clicks
// redirect and count nothing) once it is not.
func (o *op) settleSeats(ctx context.Context, d *dealRecord) (map[string]*linkRecord, error) {
	d.rebound(o.now)
	ready := d.ready()
	if ready {
		kept := d.Vacancies[:0]
		for _, v := range d.Vacancies {
			if !d.filled(v) {
				kept = append(kept, v)
			}
		}
		d.Vacancies = kept
	}
	switch {
	case ready && d.State == statePending && d.Activated == nil:
		return o.activate(d), nil
	case ready && d.State == statePending:
		d.State = stateActive
		return nil, o.pauseLinks(ctx, d, false)
	case !ready && d.State == stateActive:
		d.State = statePending
		return nil, o.pauseLinks(ctx, d, true)
	}
	return nil, nil
}

// pauseLinks pauses (or resumes) the deal's tracked links: a paused link
// redirects plain and stores nothing.
func (o *op) pauseLinks(ctx context.Context, d *dealRecord, pause bool) error {
	from, to := "live", "paused"
	if !pause {
		from, to = to, from
	}
	for _, t := range d.Tracking {
		var l linkRecord
		r, err := o.h.get(ctx, kindLink, t.Token, &l)
		if err != nil {
			return fmt.Errorf("read link: %w", err)
		}
		if l.Status != from {
			continue
		}
		l.Status = to
		o.writes = append(o.writes, swap(r, l, o.now))
		if o.links == nil {
			o.links = map[string]*linkRecord{}
		}
		o.links[t.Token] = &l
		token := t.Token
		o.after = append(o.after, func() { o.h.links.forget(token) })
	}
	return nil
}

// offerSeats opens a many-party deal from a 0.4 offer that lists its
// parties (§20.1): pending, signed by its sender, active once every
// required seat signs.
func (h *Host) offerSeats(ctx context.Context, o *op, raw json.RawMessage, t terms, seats []Seat, termsHash string) error {
	if _, err := o.stepMode("negotiate"); err != nil {
		return err
	}
	for i, s := range seats {
		if s.Signed {
			return invalid(fmt.Sprintf("/body/parties/%d/signed", i), "The host records signatures; an offer carries none.")
		}
	}
	if err := CheckSeats(seats); err != nil {
		return err
	}
	d := &dealRecord{ID: h.newID("deal_", 12), Orp: Version04, State: statePending, Terms: raw, t: t, Round: 1, Created: o.now}
	if err := h.seatParties(ctx, d, seats); err != nil {
		return err
	}
	me := d.seat(o.party.ID)
	if me == nil {
		return refuse(Forbidden, "The sender of a many-party offer holds one of its seats.")
	}
	for i, ob := range t.Obligations {
		if err := d.checkObligor(ob.By, i); err != nil {
			return err
		}
		d.Obligations = append(d.Obligations, obligationState{ID: ob.ID, State: obPending})
	}
	if err := d.rehash(); err != nil {
		return err
	}
	if termsHash != "" && termsHash != d.TermsHash {
		return refuse(TermsMismatch, "terms_hash does not match {terms, parties}.")
	}
	me.Signed = true
	o.deal = d
	links, err := o.settleSeats(ctx, d)
	if err != nil {
		return err
	}
	o.saveDeal(d, store.Record{}, true)
	return o.publishSeats(ctx, d, links, nil)
}

// checkObligor checks an obligation's by on a seated deal: a role the
// deal seats, or one of its parties.
func (d *dealRecord) checkObligor(by string, i int) error {
	switch by {
	case "offerer":
		if d.Offerer != "" {
			return nil
		}
	case "acceptor":
		if d.Acceptor != "" {
			return nil
		}
	default:
		if d.seat(by) != nil {
			return nil
		}
	}
	return invalid(fmt.Sprintf("/body/terms/obligations/%d/by", i), "by names a role or a party the deal seats.")
}

// seatParties seats each party of seats on d, in order, naming its
// offerer and acceptor: every seat must be a party that has joined.
func (h *Host) seatParties(ctx context.Context, d *dealRecord, seats []Seat) error {
	for _, s := range seats {
		if _, err := h.get(ctx, kindParty, h.opaqueOf(s.ID), &Party{}); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return refuse(NotFound, "No such party on this host: every seat is a party that has joined.")
			}
			return err
		}
		switch s.Role {
		case "offerer":
			d.Offerer = s.ID
		case "acceptor":
			d.Acceptor = s.ID
		}
		d.Parties = append(d.Parties, seatState{Seat: s})
	}
	return nil
}

// signSeat records the sender's signature of a seated deal's current
// hash (accept, §20.2). Under ask it waits for the approval, which signs.
func (h *Host) signSeat(ctx context.Context, o *op, termsHash string) error {
	d := o.deal
	mode, err := o.stepMode("accept")
	if err != nil {
		return err
	}
	if d.State != statePending && d.State != stateActive {
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	s := d.seat(o.party.ID)
	if s == nil {
		return refuse(NotFound, "No such deal for this sender.")
	}
	if s.Signed {
		return refuse(StateConflict, "This party has already signed these terms.")
	}
	if termsHash != d.TermsHash {
		return refuse(TermsMismatch, "terms_hash does not match the terms.")
	}
	// The owner's constraints weigh a signature as they weigh a 0.3
	// accept (§11.1): any reason holds it for approval.
	role := "acceptor"
	if d.Offerer == o.party.ID {
		role = "offerer"
	}
	counterparty := d.Offerer
	if counterparty == o.party.ID || counterparty == "" {
		counterparty = d.Parties[0].ID
		if counterparty == o.party.ID && len(d.Parties) > 1 {
			counterparty = d.Parties[1].ID
		}
	}
	reasons, err := h.weigh(ctx, o, &d.t, "accept", role, counterparty, nil)
	if err != nil {
		return err
	}
	if mode == "ask" && !slices.Contains(reasons, "step_ask") {
		reasons = append(reasons, "step_ask")
	}
	var links map[string]*linkRecord
	if len(reasons) > 0 {
		if d.Waiting != nil {
			return refuse(StateConflict, "Another step of this deal is waiting for approval.")
		}
		e := o.escalate("accept", "seat", d.ID, d.TermsHash, reasons, o.now.Add(escalationTTL))
		d.Waiting = &waiting{Party: o.party.ID, Step: "accept", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	} else {
		s.Signed = true
		if links, err = o.settleSeats(ctx, d); err != nil {
			return err
		}
	}
	o.saveDeal(d, o.dealR, false)
	return o.publishSeats(ctx, d, links, nil)
}

// approveSeat signs the waiting party of a seated deal once its
// escalation is approved, by its agent or its owner, and records who
// approved it (§11.2).
func (h *Host) approveSeat(ctx context.Context, o *op, e escalation, assurance string, save func(*dealRecord, store.Record)) (*dealRecord, error) {
	d, r, err := h.loadDeal(ctx, e.Key)
	if err != nil {
		return nil, err
	}
	s := d.seat(o.party.ID)
	if !d.seated() || s == nil || s.Signed || d.Waiting == nil || d.Waiting.Escalation != e.ID || d.TermsHash != e.TermsHash {
		return nil, refuse(StateConflict, "The deal is in the wrong state.")
	}
	s.Signed, d.Waiting = true, nil
	o.deal, o.dealR = d, r
	links, err := o.settleSeats(ctx, d)
	if err != nil {
		return nil, err
	}
	by := "agent"
	if assurance != "" {
		by = "owner"
	}
	a := approvalView{Party: o.party.ID, By: by, At: stamp(o.now)}
	o.writes = append(o.writes, create(kindApproval, fmt.Sprintf("%s/%019d-%06d", d.ID, o.now.UnixNano(), h.clicks.seq.Add(1)%1000000), a, o.now))
	save(d, r)
	return d, o.publishSeats(ctx, d, links, &a)
}

// leave removes the sender's seat (§20.3) when what remains is still a
// valid deal: at least 2 parties and a split that holds. A required
// seat leaves a vacancy of its role and the deal pending; an optional
// one leaves the state as it is.
func (h *Host) leave(ctx context.Context, o *op) error {
	d := o.deal
	if d == nil || !d.seated() {
		return refuse(NotFound, "No such many-party deal for this sender.")
	}
	if d.ended() {
		return refuse(StateConflict, "The deal has already ended.")
	}
	i := slices.IndexFunc(d.Parties, func(s seatState) bool { return s.ID == o.party.ID })
	if i < 0 {
		return refuse(NotFound, "No such many-party deal for this sender.")
	}
	left := d.Parties[i]
	rest := slices.Delete(slices.Clone(d.Parties), i, i+1)
	if len(rest) < 2 {
		return invalid("/body", "A deal keeps at least 2 parties.")
	}
	after := make([]Seat, len(rest))
	for j, s := range rest {
		after[j] = s.Seat
	}
	if err := CheckSplit(after); err != nil {
		return invalid("/body", "Without this seat the split no longer holds: "+AsError(err).Message)
	}
	d.Parties = rest
	if left.Required {
		d.Vacancies = append(d.Vacancies, vacancy{Role: left.Role, Since: o.now, Seq: d.SeatSeq, Left: left.ID})
	}
	switch left.ID {
	case d.Offerer:
		d.Offerer = ""
	case d.Acceptor:
		d.Acceptor = ""
	}
	if d.Waiting != nil && d.Waiting.Party == left.ID {
		d.Waiting = nil
	}
	if err := d.rehash(); err != nil {
		return err
	}
	links, err := o.settleSeats(ctx, d)
	if err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, false)
	if err := o.publishSeats(ctx, d, links, nil); err != nil {
		return err
	}
	// The party that left gets its last copy as the reply.
	b, err := h.seatSnapshot(ctx, d, left.ID, links, nil)
	if err != nil {
		return err
	}
	o.status, o.reply = http.StatusOK, o.messageV(Version04, "deal", left.ID, d.ID, b)
	return nil
}

// seatParty adds a party that has joined the host to a seated deal, from
// a party already on it (§20.3). The new seat is unsigned; it clears a
// vacancy only when required, of the vacancy's role, and signed.
func (h *Host) seatParty(ctx context.Context, o *op) error {
	d := o.deal
	if d == nil || !d.seated() {
		return refuse(NotFound, "No such many-party deal for this sender.")
	}
	var in struct {
		Party    string     `json:"party"`
		Role     string     `json:"role"`
		Required bool       `json:"required"`
		Terms    *SeatTerms `json:"terms"`
		Identity *Identity  `json:"identity"`
	}
	if err := o.body(&in); err != nil {
		return err
	}
	b := Seat{ID: in.Party, Role: in.Role, Required: in.Required, Terms: in.Terms, Identity: in.Identity}
	if d.ended() {
		return refuse(StateConflict, "The deal has already ended.")
	}
	if _, err := h.get(ctx, kindParty, h.opaqueOf(b.ID), &Party{}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such party on this host: a seat goes to a party that has joined.")
		}
		return err
	}
	after := append(d.seats(), b)
	if err := CheckSeats(after); err != nil {
		return err
	}
	d.SeatSeq++
	d.Parties = append(d.Parties, seatState{Seat: b, Added: d.SeatSeq})
	switch {
	case b.Role == "offerer" && d.Offerer == "":
		d.Offerer = b.ID
	case b.Role == "acceptor" && d.Acceptor == "":
		d.Acceptor = b.ID
	}
	if err := d.rehash(); err != nil {
		return err
	}
	links, err := o.settleSeats(ctx, d)
	if err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, false)
	return o.publishSeats(ctx, d, links, nil)
}

// attestSeat records a consumer seat's attestation of an outcome or a
// receipt of the deal (§20.7). Attestations accumulate and never change
// the outcome or receipt they name; the same one again changes nothing.
func (h *Host) attestSeat(ctx context.Context, o *op) error {
	if !h.opts.Attestation {
		return refuse(UnknownType, "This host does not implement attest: consumer attestation is unsupported here.")
	}
	d := o.deal
	if d == nil || !d.seated() {
		return refuse(NotFound, "No such many-party deal for this sender.")
	}
	var b struct {
		Object    attestedObject `json:"object"`
		Seat      string         `json:"seat"`
		Signature string         `json:"signature"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	s := d.seat(o.party.ID)
	if s == nil || s.Role != "consumer" || b.Seat != o.party.ID {
		return refuse(Forbidden, "Only a consumer seat attests, and for itself.")
	}
	if !d.names(b.Object) {
		return refuse(NotFound, "The deal has no "+b.Object.Type+" with this id.")
	}
	key := o.party.Key
	if key == nil {
		return refuse(Unauthorized, "An attestation is signed: register a key first.")
	}
	pub, err := publicKey(*key)
	signed := mustJSON(map[string]any{"deal": d.ID, "object": b.Object, "seat": b.Seat})
	if err != nil || !VerifyDetached(signed, b.Signature, pub) {
		return refuse(BadSignature, "signature does not verify over {deal, object, seat}.")
	}
	if !slices.ContainsFunc(d.Attested, func(a attestation) bool { return a.Seat == b.Seat && a.Object == b.Object }) {
		d.Attested = append(d.Attested, attestation{Seat: b.Seat, Object: b.Object, At: stamp(o.now)})
	}
	o.saveDeal(d, o.dealR, false)
	return o.publishSeats(ctx, d, nil, nil)
}

// maxOutcomeIDs bounds the outcome ids a seated deal keeps for
// attestations: the newest ones.
const maxOutcomeIDs = 256

// recordOutcome keeps the id of an outcome message sent about the deal.
func (d *dealRecord) recordOutcome(msg []byte) {
	var m struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID == "" {
		return
	}
	d.Outcomes = append(d.Outcomes, m.ID)
	if len(d.Outcomes) > maxOutcomeIDs {
		d.Outcomes = d.Outcomes[len(d.Outcomes)-maxOutcomeIDs:]
	}
}

// names reports an outcome or receipt of this deal: a receipt an
// obligation records, or an outcome the host sent about it.
func (d *dealRecord) names(obj attestedObject) bool {
	switch obj.Type {
	case "receipt":
		return slices.ContainsFunc(d.Obligations, func(s obligationState) bool { return s.Receipt == obj.ID })
	case "outcome":
		return slices.Contains(d.Outcomes, obj.ID)
	}
	return false
}

// publishSeats sends every seat its snapshot of a seated deal and makes
// the sender's copy the reply; approved, when set, is an approval this
// op records, which the store does not show yet.
func (o *op) publishSeats(ctx context.Context, d *dealRecord, links map[string]*linkRecord, approved *approvalView) error {
	for token, l := range o.links {
		if links == nil {
			links = map[string]*linkRecord{}
		}
		if _, ok := links[token]; !ok {
			links[token] = l
		}
	}
	for _, party := range d.seatIDs() {
		b, err := o.h.seatSnapshot(ctx, d, party, links, approved)
		if err != nil {
			return err
		}
		msg := o.messageV(Version04, "deal", party, d.ID, b)
		o.deliver(party, msg)
		if o.party != nil && party == o.party.ID {
			o.status, o.reply = http.StatusOK, msg
		}
	}
	return nil
}

// seatSnapshot is a seated deal's snapshot for one party: the 0.3
// snapshot with its seats, open vacancies, approvals and attestations,
// and each tracking entry's counted clicks, click shares and receipt,
// the same for every party (§20.2).
func (h *Host) seatSnapshot(ctx context.Context, d *dealRecord, party string, links map[string]*linkRecord, approved *approvalView) (dealBody, error) {
	b, err := h.snapshotWith(ctx, d, party, links)
	if err != nil {
		return b, err
	}
	for _, s := range d.Parties {
		b.Parties = append(b.Parties, s.Seat)
	}
	for _, v := range d.Vacancies {
		b.Vacancies = append(b.Vacancies, vacancyView{Role: v.Role, Since: stamp(v.Since), Left: v.Left})
	}
	b.AttestedBy = append(b.AttestedBy, d.Attested...)
	approvals, err := h.approvals(ctx, d.ID)
	if err != nil {
		h.log.Warn("read approvals", "err", err)
		b.ApprovalsUnavailable = true
	}
	if approved != nil {
		approvals = append(approvals, *approved)
	}
	if !b.ApprovalsUnavailable {
		b.ApprovedBy = approvals
	}
	for i := range b.Tracking {
		if err := h.clickShares(ctx, d, &b.Tracking[i], d.Tracking[i].Token); err != nil {
			return b, err
		}
	}
	return b, nil
}

// approvals are the recorded approvals of a deal's signatures, oldest
// first.
func (h *Host) approvals(ctx context.Context, deal string) ([]approvalView, error) {
	var out []approvalView
	after := ""
	for {
		recs, err := h.store.List(ctx, kindApproval, deal+"/", after, 100)
		if err != nil {
			return nil, fmt.Errorf("list approvals: %w", err)
		}
		for _, r := range recs {
			var a approvalView
			if err := json.Unmarshal(r.Value, &a); err != nil {
				return nil, fmt.Errorf("decode approval %s: %w", r.Key, err)
			}
			out = append(out, a)
		}
		if len(recs) < 100 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// clickShares fills a seated deal's tracking entry with its counted
// human clicks, each seat's share of them, and the link receipt once the
// clicks verified the obligation (§20.2). A percent share is the sum of
// percent/100 over the clicks; an amount is amount_minor times the
// clicks, as an integer.
func (h *Host) clickShares(ctx context.Context, d *dealRecord, e *trackEntry, token string) error {
	var st linkStat
	if _, err := h.get(ctx, kindLinkStat, token, &st); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	clicks := int64(st.Human)
	e.Clicks = &clicks
	e.ClickShare = []clickShare{}
	for _, s := range d.Parties {
		c := clickShare{Party: s.ID}
		switch t := s.Terms; {
		case t != nil && t.Percent != nil:
			share := float64(*t.Percent*clicks) / 100
			c.Share = &share
		case t != nil && t.Amount != nil:
			c.Amount = &Money{AmountMinor: t.Amount.AmountMinor * clicks, Currency: t.Amount.Currency}
		default:
			continue
		}
		e.ClickShare = append(e.ClickShare, c)
	}
	if st.Verified != nil {
		if ob := d.obligation(e.Obligation); ob != nil && ob.Receipt != "" {
			e.Receipt = &trackReceipt{ID: ob.Receipt, Method: "link", VerifiedAt: stampMilli(*st.Verified)}
		}
	}
	return nil
}

// clickShare is one seat's share of a tracking entry's counted clicks.
type clickShare struct {
	Party  string   `json:"party"`
	Share  *float64 `json:"share,omitempty"`
	Amount *Money   `json:"amount,omitempty"`
}

// trackReceipt is the link receipt of a tracking entry whose clicks
// verified its obligation (§20.2).
type trackReceipt struct {
	ID         string `json:"id"`
	Method     string `json:"method"`
	VerifiedAt string `json:"verified_at"`
}

// messageV is message in an explicit ORP version: a seated deal's
// messages are 0.4 whatever the message that changed it.
func (o *op) messageV(version, typ, to, deal string, body any) []byte {
	m := hostMessage{Orp: version, Type: typ, ID: o.h.newID("m_host_", 16), Ts: stamp(o.now), From: o.h.id, To: to, Deal: deal, Body: body}
	if o.party != nil && to == o.party.ID {
		m.Re = o.env.ID
	}
	return o.h.sign(m)
}

// counterSeats replaces a seated deal's shared terms, and its seats when
// the counter lists them (§20.2): every signature and every vacancy is
// cleared and the hash taken again; the sender's signature alone remains,
// unless its negotiate step waits on a person. An active deal returns to
// pending (its links paused) until the required seats sign again.
func (h *Host) counterSeats(ctx context.Context, o *op) error {
	d := o.deal
	var b struct {
		Terms     json.RawMessage `json:"terms"`
		Parties   []Seat          `json:"parties"`
		TermsHash string          `json:"terms_hash"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	mode, err := o.stepMode("negotiate")
	if err != nil {
		return err
	}
	if d.State != statePending && d.State != stateActive {
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	if d.Round >= maxRounds {
		return refuse(StateConflict, "This deal has had 20 rounds, the most this host allows.")
	}
	t, err := decodeTerms(b.Terms)
	if err != nil {
		return invalid("/body/terms", "The terms hold a value this host cannot read exactly.")
	}
	seats := d.seats()
	if len(b.Parties) > 0 {
		seats = b.Parties
	}
	for i := range seats {
		seats[i].Signed = false
	}
	if err := CheckSeats(seats); err != nil {
		return err
	}
	if err := h.checkDestinations(ctx, t, o.party.ID); err != nil {
		return err
	}
	next := &dealRecord{}
	*next = *d
	next.Terms, next.t, next.Parties, next.Vacancies, next.Waiting = b.Terms, t, nil, nil, nil
	next.Offerer, next.Acceptor = "", ""
	if err := h.seatParties(ctx, next, seats); err != nil {
		return err
	}
	me := next.seat(o.party.ID)
	if me == nil {
		return refuse(Forbidden, "The sender of a counter keeps a seat on the deal.")
	}
	for i, ob := range t.Obligations {
		if err := next.checkObligor(ob.By, i); err != nil {
			return err
		}
	}
	if err := next.rehash(); err != nil {
		return err
	}
	if b.TermsHash != "" && b.TermsHash != next.TermsHash {
		return refuse(TermsMismatch, "terms_hash does not match {terms, parties}.")
	}
	next.Obligations = nil
	for _, ob := range t.Obligations {
		state := obPending
		if old := d.obligation(ob.ID); old != nil {
			state = old.State
		}
		next.Obligations = append(next.Obligations, obligationState{ID: ob.ID, State: state})
	}
	next.Round++
	next.Bound = nil
	*d = *next
	var links map[string]*linkRecord
	if mode == "ask" {
		e := o.escalate("accept", "seat", d.ID, d.TermsHash, []string{"step_ask"}, o.now.Add(escalationTTL))
		d.Waiting = &waiting{Party: o.party.ID, Step: "accept", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	} else {
		me.Signed = true
	}
	if links, err = o.settleSeats(ctx, d); err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, false)
	return o.publishSeats(ctx, d, links, nil)
}

// acceptSeated opens the two-party 0.4 deal of a 0.4 standing offer
// (§20.2): the offerer's seat signed by its listing, the sender's seat
// signed by this accept (or, under ask, once approved). Its hash is of
// {terms, parties}, so it differs from the offer's hash, which the
// accept named.
func (h *Host) acceptSeated(ctx context.Context, o *op, offer *offerRecord, mode string) error {
	if offer.stale(o.now) {
		return refuse(NotFound, "No such standing offer is listed: it expired and its maker has not refreshed it.")
	}
	d := &dealRecord{ID: h.newID("deal_", 12), Orp: Version04, State: statePending, Offerer: offer.Offerer, Acceptor: o.party.ID,
		Offer: offer.ID, Terms: offer.Terms, t: offer.t, Round: 1, Created: o.now,
		Parties: []seatState{
			{Seat: Seat{ID: offer.Offerer, Role: "offerer", Required: true, Signed: true}},
			{Seat: Seat{ID: o.party.ID, Role: "acceptor", Required: true}},
		}}
	for _, ob := range offer.t.Obligations {
		d.Obligations = append(d.Obligations, obligationState{ID: ob.ID, State: obPending})
	}
	if err := d.rehash(); err != nil {
		return err
	}
	if err := o.admit(ctx, d, o.party.ID); err != nil {
		return err
	}
	o.deal = d
	var links map[string]*linkRecord
	if mode == "ask" {
		e := o.escalate("accept", "seat", d.ID, d.TermsHash, []string{"step_ask"}, o.now.Add(escalationTTL))
		d.Waiting = &waiting{Party: o.party.ID, Step: "accept", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	} else {
		d.Parties[1].Signed = true
		var err error
		if links, err = o.settleSeats(ctx, d); err != nil {
			return err
		}
		if d.State == stateActive {
			of, r, err := h.loadOffer(ctx, offer.ID)
			if err != nil {
				return err
			}
			of.Opened++
			o.writes = append(o.writes, swap(r, of, o.now))
		}
	}
	o.saveDeal(d, store.Record{}, true)
	return o.publishSeats(ctx, d, links, nil)
}
