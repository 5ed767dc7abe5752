package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"frontdesk/store"
)

// Deal states (§8.3) and obligation states.
const (
	stateProposed  = "proposed"
	stateAwaiting  = "awaiting"
	statePending   = "pending" // a seated deal waiting for signatures (§20.2)
	stateActive    = "active"
	stateCompleted = "completed"
	stateDeclined  = "declined"
	stateExpired   = "expired"
	stateRevoked   = "revoked"
	stateDisputed  = "disputed"

	obPending  = "pending"
	obClaimed  = "claimed"
	obVerified = "verified"
	obFailed   = "failed"
	obRevoked  = "revoked"
	obWaived   = "waived"
)

type bound struct {
	Party     string    `json:"party"`
	Authority authority `json:"authority"`
	At        string    `json:"at"`
}

type authority struct {
	Type string `json:"type"`
}

type waiting struct {
	Party      string   `json:"party"`
	Step       string   `json:"step"`
	Since      string   `json:"since"`
	Escalation string   `json:"escalation,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
	URL        string   `json:"url,omitempty"`
}

type obligationState struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Receipt string `json:"receipt,omitempty"`
}

// trackEntry is a deal's view of one tracked link (§10).
type trackEntry struct {
	Obligation  string `json:"obligation"`
	Link        string `json:"link,omitempty"`
	Code        string `json:"code,omitempty"`
	Destination string `json:"destination"`
	Status      string `json:"status"`
	Param       string `json:"param,omitempty"`
	Alias       string `json:"alias,omitempty"`
	// Clicks, ClickShare and Receipt are shown on seated deals only
	// (§20.2).
	Clicks     *int64        `json:"clicks,omitempty"`
	ClickShare []clickShare  `json:"click_share,omitempty"`
	Receipt    *trackReceipt `json:"receipt,omitempty"`
}

type chainState struct {
	Last string `json:"last"`
	Used bool   `json:"used,omitempty"`
}

// dealRecord is the host's record of one deal.
type dealRecord struct {
	ID          string                `json:"id"`
	State       string                `json:"state"`
	Offerer     string                `json:"offerer"`
	Acceptor    string                `json:"acceptor"`
	Offer       string                `json:"offer,omitempty"`
	Terms       json.RawMessage       `json:"terms"`
	TermsHash   string                `json:"terms_hash"`
	Round       int                   `json:"round"`
	Bound       []bound               `json:"bound,omitempty"`
	Waiting     *waiting              `json:"waiting,omitempty"`
	Obligations []obligationState     `json:"obligations"`
	Tracking    []trackRef            `json:"tracking,omitempty"`
	Expires     *time.Time            `json:"expires,omitempty"`
	Activated   *time.Time            `json:"activated,omitempty"`
	RevokeAt    *time.Time            `json:"revoke_at,omitempty"`
	Ended       *time.Time            `json:"ended,omitempty"`
	OutcomeTo   *time.Time            `json:"outcome_to,omitempty"`
	FinalSent   bool                  `json:"final_sent,omitempty"`
	Chain       map[string]chainState `json:"chain,omitempty"`
	// Pending is an amendment of an active deal that is not yet in force.
	Pending *amendment `json:"pending,omitempty"`
	// Disputes are the open disputes (§15.2).
	Disputes []disputeRef `json:"disputes,omitempty"`
	// PreDispute is the state the deal returns to when its disputes close.
	PreDispute string `json:"pre_dispute,omitempty"`
	// ObRevokeAt holds revokes of one obligation with a later effective.
	ObRevokeAt map[string]time.Time `json:"ob_revoke_at,omitempty"`
	// Re is the request this deal's directed offer answered.
	Re string `json:"re,omitempty"`
	// PaidFor names the pay obligations per deal or per placement whose
	// payout was recorded, as "pay/source" (source: "deal" or the
	// placement's obligation id).
	PaidFor map[string]bool `json:"paid_for,omitempty"`
	Created time.Time       `json:"created"`
	Updated time.Time       `json:"updated"`

	// Orp is "0.4" for a deal with seats (many.go), else empty.
	Orp string `json:"orp,omitempty"`
	// Parties are a 0.4 deal's seats, in the offer's order.
	Parties []seatState `json:"parties,omitempty"`
	// Vacancies are the open seats of required parties that left.
	Vacancies []vacancy `json:"vacancies,omitempty"`
	// SeatSeq counts the seats added after the offer.
	SeatSeq int `json:"seat_seq,omitempty"`
	// Attested are consumer seats' attestations (§20.7).
	Attested []attestation `json:"attested,omitempty"`
	// Outcomes are the ids of the outcome messages sent about the deal.
	Outcomes []string `json:"outcomes,omitempty"`
	// Codes are partner codes issued after activation (code.go).
	Codes []issuedRef `json:"codes,omitempty"`

	// Consents are the owners' consents to this deal's terms (H2).
	Consents []consentRef `json:"consents,omitempty"`
	// Proofs are how obligations were or are being proved (proof.go).
	Proofs map[string]*proofState `json:"proofs,omitempty"`

	// t is Terms decoded, when the deal is loaded or made.
	t terms
}

// trackRef names a link record from the deal.
type trackRef struct {
	Obligation string `json:"obligation"`
	Token      string `json:"token,omitempty"`
	Code       string `json:"code,omitempty"`
}

func (d *dealRecord) hasParty(id string) bool {
	return d.Offerer == id || d.Acceptor == id || d.seat(id) != nil
}

func (d *dealRecord) ended() bool {
	return slices.Contains([]string{stateCompleted, stateDeclined, stateExpired, stateRevoked}, d.State)
}

// running reports a deal whose obligations and tracking run: active, or
// disputed, which is active with a dispute open.
func (d *dealRecord) running() bool { return d.State == stateActive || d.State == stateDisputed }

func (d *dealRecord) chain(opaque, hash string, used bool) {
	if d.Chain == nil {
		d.Chain = map[string]chainState{}
	}
	c := d.Chain[opaque]
	c.Last = hash
	c.Used = c.Used || used
	d.Chain[opaque] = c
}

func (d *dealRecord) isBound(party string) bool {
	return slices.ContainsFunc(d.Bound, func(b bound) bool { return b.Party == party })
}

func (d *dealRecord) obligation(id string) *obligationState {
	for i := range d.Obligations {
		if d.Obligations[i].ID == id {
			return &d.Obligations[i]
		}
	}
	return nil
}

// Terms as far as the host acts on them.
type terms struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind"`
	Categories  []string     `json:"categories"`
	Disclosure  *disclosure  `json:"disclosure"`
	Starts      string       `json:"starts"`
	Ends        string       `json:"ends"`
	Obligations []obligation `json:"obligations"`
}

type disclosure struct {
	Label string `json:"label"`
	Lang  string `json:"lang"`
}

type obligation struct {
	ID      string `json:"id"`
	By      string `json:"by"`
	Action  string `json:"action"`
	Due     string `json:"due"`
	After   string `json:"after"`
	Content *struct {
		Link           bool     `json:"link"`
		Code           bool     `json:"code"`
		Direct         bool     `json:"direct"`
		Brief          string   `json:"brief"`
		Copy           string   `json:"copy"`
		MustInclude    []string `json:"must_include"`
		MustNotInclude []string `json:"must_not_include"`
	} `json:"content"`
	Space *struct {
		Kinds []string `json:"kinds"`
		ID    string   `json:"id"`
	} `json:"space"`
	Target      string   `json:"target"`
	Quote       string   `json:"quote"`
	Keep        string   `json:"keep"`
	Count       int      `json:"count"`
	Destination string   `json:"destination"`
	Clicks      int      `json:"clicks"`
	Proof       []string `json:"proof"`
	Per         string   `json:"per"`
	RateBps     int64    `json:"rate_bps"`
	Amount      *Money   `json:"amount"`
	Cap         *Money   `json:"cap"`
	Window      string   `json:"window"`
}

// decodeTerms reads terms as the host acts on them. Offered terms go
// through it, so a field the host cannot read is refused, never ignored.
func decodeTerms(raw json.RawMessage) (terms, error) {
	var t terms
	err := json.Unmarshal(raw, &t)
	return t, err
}

func (h *Host) loadDeal(ctx context.Context, id string) (*dealRecord, store.Record, error) {
	var d dealRecord
	r, err := h.get(ctx, kindDeal, id, &d)
	if errors.Is(err, store.ErrNotFound) {
		return nil, r, refuse(NotFound, "No such deal for this sender.")
	}
	if err != nil {
		return nil, r, err
	}
	if d.t, err = decodeTerms(d.Terms); err != nil {
		return nil, r, fmt.Errorf("decode terms of deal %s: %w", id, err)
	}
	if d.Pending != nil {
		if d.Pending.t, err = decodeTerms(d.Pending.Terms); err != nil {
			return nil, r, fmt.Errorf("decode amended terms of deal %s: %w", id, err)
		}
	}
	return &d, r, nil
}

// dispatch applies the message's effect, collecting writes in o.
func (h *Host) dispatch(ctx context.Context, o *op) error {
	switch o.env.Type {
	case "hello":
		return h.hello(o)
	case "discover":
		return h.discover(ctx, o)
	case "space":
		return h.space(ctx, o)
	case "request":
		return h.request(ctx, o)
	case "offer":
		return h.offer(ctx, o)
	case "accept":
		return h.accept(ctx, o)
	case "decline":
		return h.decline(ctx, o)
	case "execute":
		return h.execute(ctx, o)
	case "receipt":
		return h.attest(ctx, o)
	case "revoke":
		return h.revoke(ctx, o)
	case "counter":
		return h.counter(ctx, o)
	case "dispute":
		return h.dispute(ctx, o)
	case "payout":
		return h.payoutAnswer(ctx, o)
	case "reputation":
		return h.reputation(ctx, o)
	case "leave":
		return h.leave(ctx, o)
	case "seat":
		return h.seatParty(ctx, o)
	case "attest":
		return h.attestSeat(ctx, o)
	}
	return refuse(UnsupportedType, "This host does not handle "+o.env.Type+" messages yet; see capabilities.messages in its discovery document.")
}

func (o *op) body(v any) error {
	if err := json.Unmarshal(o.env.Body, v); err != nil {
		return invalid("/body", "The body does not match its type.")
	}
	return nil
}

// stepMode applies the first rule of §11.1: an off step is refused.
func (o *op) stepMode(step string) (string, error) {
	m := o.party.Steps.mode(step)
	if m == "off" {
		return m, &Error{Code: StepOff, Values: []string{step}, Message: "The owner has turned off the " + step + " step for this agent."}
	}
	return m, nil
}

// escalate creates an escalation for the sender on one step of a target.
func (o *op) escalate(step, target, key, termsHash string, reasons []string, expires time.Time) escalation {
	e := escalation{
		ID: o.h.newID("esc_", 12), Party: o.party.Opaque, Step: step, Target: target, Key: key,
		TermsHash: termsHash, Reasons: reasons, Since: o.now, Expires: expires,
	}
	o.writes = append(o.writes, create(kindEscalate, e.ID, e, o.now))
	return e
}

// escalation is an ask the waiting party's agent, or later its owner,
// approves (§11.2).
type escalation struct {
	ID     string `json:"id"`
	Party  string `json:"party"` // opaque
	Step   string `json:"step"`
	Target string `json:"target"` // "deal", "execute", "amend", "settle", "offer" or "space"
	Key    string `json:"key"`
	// Obligation is the obligation an execute escalation holds.
	Obligation string `json:"obligation,omitempty"`
	// Ref is the rail reference a held settle step records once approved.
	Ref       string    `json:"ref,omitempty"`
	TermsHash string    `json:"terms_hash,omitempty"`
	Reasons   []string  `json:"reasons"`
	Since     time.Time `json:"since"`
	Expires   time.Time `json:"expires"`
	Done      bool      `json:"done,omitempty"`
}

func (h *Host) approvalURL(esc string) string { return h.url("/approve/" + esc) }

// dealBody is the body of a deal snapshot (§8.3) for one party.
type dealBody struct {
	State       string            `json:"state"`
	Offerer     string            `json:"offerer,omitempty"`
	Acceptor    string            `json:"acceptor,omitempty"`
	Offer       string            `json:"offer,omitempty"`
	Terms       json.RawMessage   `json:"terms"`
	TermsHash   string            `json:"terms_hash"`
	Round       int               `json:"round,omitempty"`
	Bound       []bound           `json:"bound,omitempty"`
	Tracking    []trackEntry      `json:"tracking,omitempty"`
	Obligations []obligationState `json:"obligations"`
	Expires     string            `json:"expires,omitempty"`
	Activated   string            `json:"activated,omitempty"`
	Updated     string            `json:"updated"`
	Waiting     *waiting          `json:"waiting,omitempty"`
	// The fields of seated deals (§20).
	Parties              []Seat         `json:"parties,omitempty"`
	Vacancies            []vacancyView  `json:"vacancies,omitempty"`
	ApprovedBy           []approvalView `json:"approved_by,omitempty"`
	ApprovalsUnavailable bool           `json:"approvals_unavailable,omitempty"`
	AttestedBy           []attestation  `json:"attested_by,omitempty"`
}

// snapshot renders the deal for one party: escalation ids, reasons and
// approval URLs appear only in the waiting party's copy (§8.3).
func (h *Host) snapshot(ctx context.Context, d *dealRecord, party string) (dealBody, error) {
	b := dealBody{
		State: d.State, Offerer: d.Offerer, Acceptor: d.Acceptor, Offer: d.Offer, Terms: d.Terms, TermsHash: d.TermsHash,
		Round: d.Round, Bound: d.Bound, Obligations: d.Obligations, Updated: stamp(d.Updated),
	}
	if d.Expires != nil {
		b.Expires = stamp(*d.Expires)
	}
	if d.Activated != nil {
		b.Activated = stamp(*d.Activated)
	}
	if d.Waiting != nil && d.Waiting.Party == party {
		w := *d.Waiting
		b.Waiting = &w
	}
	for _, t := range d.Tracking {
		l, err := h.loadLink(ctx, t.Token)
		if err != nil {
			return b, err
		}
		b.Tracking = append(b.Tracking, l.entry(h, h.clock.Now()))
	}
	return b, nil
}

// publish sends both parties their snapshot, through their inboxes, and
// makes the sender's copy the reply. links are link records written in
// the same op, which snapshot cannot read yet.
func (o *op) publish(ctx context.Context, d *dealRecord, links map[string]*linkRecord) error {
	if d.seated() {
		return o.publishSeats(ctx, d, links, nil)
	}
	for token, l := range o.links {
		if links == nil {
			links = map[string]*linkRecord{}
		}
		if _, ok := links[token]; !ok {
			links[token] = l
		}
	}
	for _, party := range []string{d.Offerer, d.Acceptor} {
		b, err := o.h.snapshotWith(ctx, d, party, links)
		if err != nil {
			return err
		}
		msg := o.message("deal", party, d.ID, b)
		o.deliver(party, msg)
		if o.party != nil && party == o.party.ID {
			o.status, o.reply = http.StatusOK, msg
		}
	}
	return nil
}

func (h *Host) snapshotWith(ctx context.Context, d *dealRecord, party string, links map[string]*linkRecord) (dealBody, error) {
	if len(links) == 0 {
		return h.snapshot(ctx, d, party)
	}
	saved := d.Tracking
	d.Tracking = nil
	b, err := h.snapshot(ctx, d, party)
	d.Tracking = saved
	now := h.clock.Now()
	for _, t := range saved {
		l := links[t.Token]
		if l == nil {
			var err error
			if l, err = h.loadLink(ctx, t.Token); err != nil {
				return b, err
			}
		}
		b.Tracking = append(b.Tracking, l.entry(h, now))
	}
	return b, err
}

// saveDeal writes d: a create for a new deal, else a swap of the version
// that was read.
func (o *op) saveDeal(d *dealRecord, r store.Record, isNew bool) {
	d.Updated = o.now
	if o.hash != "" && o.party != nil && d == o.deal {
		// This message is the sender's latest in the deal (E8).
		d.chain(o.party.Opaque, o.hash, o.env.Prev != "")
	}
	if isNew {
		o.writes = append(o.writes, create(kindDeal, d.ID, d, o.now))
		return
	}
	o.writes = append(o.writes, swap(r, d, o.now))
}

// bind records the party as bound by mandate and activates the deal when
// both parties are bound to its hash. A deal from a standing offer takes
// its place under the offer's limit and the offerer's open deals only
// now, when the acceptor has approved it.
func (o *op) bind(ctx context.Context, d *dealRecord, party string) (map[string]*linkRecord, error) {
	if !d.isBound(party) {
		d.Bound = append(d.Bound, bound{Party: party, Authority: authority{Type: "mandate"}, At: stamp(o.now)})
		if err := o.addSpent(ctx, d, party); err != nil {
			return nil, err
		}
	}
	d.Waiting = nil
	if !d.isBound(d.Offerer) || !d.isBound(d.Acceptor) {
		d.State = stateProposed
		return nil, nil
	}
	if d.Offer != "" {
		offer, r, err := o.h.loadOffer(ctx, d.Offer)
		if err != nil {
			return nil, err
		}
		if offer.Limit > 0 && offer.Opened >= offer.Limit {
			return nil, refuse(StateConflict, "This standing offer has opened as many deals as its limit allows.")
		}
		offer.Opened++
		o.writes = append(o.writes, swap(r, offer, o.now))
		if err := o.admit(ctx, d, d.Offerer); err != nil {
			return nil, err
		}
	}
	return o.activate(d), nil
}

// activate makes the deal active and mints its tracking entries (T1):
// one per obligation whose content asks for a link or a code, never
// before activation and never for direct links (T11).
func (o *op) activate(d *dealRecord) map[string]*linkRecord {
	d.State = stateActive
	now := o.now
	d.Activated = &now
	d.OutcomeTo = &now
	links := map[string]*linkRecord{}
	for _, ob := range d.t.Obligations {
		o.mint(d, ob, links)
	}
	return links
}

// mint creates the tracking entry of one obligation whose content asks
// for a link or a code, and none for a direct link (T11).
func (o *op) mint(d *dealRecord, ob obligation, links map[string]*linkRecord) {
	if ob.Content == nil || ob.Content.Direct || !(ob.Content.Link || ob.Content.Code) || ob.Destination == "" {
		return
	}
	l := &linkRecord{
		Token: o.h.randomString(12, alphabet), Deal: d.ID, Obligation: ob.ID, Destination: ob.Destination,
		Param: "via", Status: "live", Link: ob.Content.Link, Target: max(ob.Clicks, 1),
		VerifiesByLink: ob.Action == "place" && slices.Contains(ob.Proof, "link"),
	}
	if ob.Content.Code {
		l.Code = o.h.randomString(10, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
		// A collision fails the Apply with ErrExists, and the message is
		// applied again with fresh codes.
		o.writes = append(o.writes, create(kindCode, l.Code, codeRef{Token: l.Token}, o.now))
	}
	links[l.Token] = l
	d.Tracking = append(d.Tracking, trackRef{Obligation: ob.ID, Token: l.Token, Code: l.Code})
	o.writes = append(o.writes, create(kindLink, l.Token, l, o.now))
}

// accept handles accept of a standing offer (body.offer) or of a deal's
// current hash (§9.5).
func (h *Host) accept(ctx context.Context, o *op) error {
	var b struct {
		Offer     string `json:"offer"`
		TermsHash string `json:"terms_hash"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	mode, err := o.stepMode("accept")
	if err != nil {
		return err
	}
	var d *dealRecord
	isNew := false
	if o.deal != nil && o.deal.seated() {
		return h.signSeat(ctx, o, b.TermsHash)
	}
	if o.deal != nil && o.deal.State == stateActive && o.deal.Pending != nil {
		return h.acceptAmendment(ctx, o, mode, b.TermsHash)
	}
	if o.deal != nil {
		d = o.deal
		if d.State != stateProposed {
			return refuse(StateConflict, "The deal is in the wrong state.")
		}
		if d.isBound(o.party.ID) {
			return refuse(StateConflict, "This party is already bound to these terms.")
		}
		if b.TermsHash != d.TermsHash {
			return refuse(TermsMismatch, "terms_hash does not match the terms.")
		}
		if err := o.admit(ctx, d, o.party.ID); err != nil {
			return err
		}
	} else {
		offer, _, err := h.loadOffer(ctx, b.Offer)
		if err != nil {
			return err
		}
		if offer.Status != statusListed || offer.Expires != nil && !o.now.Before(*offer.Expires) {
			return refuse(NotFound, "No such standing offer is listed.")
		}
		if offer.Offerer == o.party.ID {
			return refuse(Forbidden, "A party cannot accept its own offer.")
		}
		if b.TermsHash != offer.TermsHash {
			return refuse(TermsMismatch, "terms_hash does not match the terms.")
		}
		if offer.Limit > 0 && offer.Opened >= offer.Limit {
			return refuse(StateConflict, "This standing offer has opened as many deals as its limit allows.")
		}
		if full, err := h.full(ctx, offer.Offerer); err != nil {
			return err
		} else if full {
			return refuse(Forbidden, "The counterparty cannot take another open deal now.")
		}
		if offer.FreshUntil != nil {
			// A 0.4 standing offer opens a two-party 0.4 deal (§20.2).
			if o.ver != Version04 {
				return refuse(NotFound, "No such standing offer is listed for ORP 0.3: this one is accepted in 0.4.")
			}
			return h.acceptSeated(ctx, o, offer, mode)
		}
		d = &dealRecord{
			ID: h.newID("deal_", 12), State: stateProposed, Offerer: offer.Offerer, Acceptor: o.party.ID, Offer: offer.ID,
			Terms: offer.Terms, t: offer.t, TermsHash: offer.TermsHash, Round: 1, Created: o.now,
			Bound: []bound{{Party: offer.Offerer, Authority: authority{Type: "mandate"}, At: stamp(offer.ListedAt)}},
		}
		if err := o.admit(ctx, d, o.party.ID); err != nil {
			return err
		}
		for _, ob := range offer.t.Obligations {
			d.Obligations = append(d.Obligations, obligationState{ID: ob.ID, State: obPending})
		}
		o.deal, isNew = d, true
	}
	_ = mode
	var standing *offerRecord
	if d.Offer != "" {
		if standing, _, err = h.loadOffer(ctx, d.Offer); err != nil {
			return err
		}
	}
	reasons, err := h.weigh(ctx, o, &d.t, "accept", roleOf(d, o.party.ID), counterpartyOf(d, o.party.ID), standing)
	if err != nil {
		return err
	}
	var links map[string]*linkRecord
	if len(reasons) > 0 {
		h.await(o, d, "accept", reasons)
	} else if links, err = o.bind(ctx, d, o.party.ID); err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, isNew)
	return o.publish(ctx, d, links)
}

// roleOf is the party's side of a deal's terms.
func roleOf(d *dealRecord, party string) string {
	if d.Offerer == party {
		return "offerer"
	}
	return "acceptor"
}

// counterpartyOf is the other party of a deal.
func counterpartyOf(d *dealRecord, party string) string {
	if d.Offerer == party {
		return d.Acceptor
	}
	return d.Offerer
}

// await puts the deal in awaiting for the sender on one step.
func (h *Host) await(o *op, d *dealRecord, step string, reasons []string) {
	exp := o.now.Add(escalationTTL)
	if d.Expires != nil && d.Expires.Before(exp) {
		exp = *d.Expires
	}
	e := o.escalate(step, "deal", d.ID, d.TermsHash, reasons, exp)
	d.State = stateAwaiting
	d.Waiting = &waiting{Party: o.party.ID, Step: step, Since: stamp(o.now), Escalation: e.ID, Reasons: reasons, URL: h.approvalURL(e.ID)}
}

// decline ends a proposed or awaiting deal (§9.5), or, without a deal,
// answers a request: re names the request and to its sender (§9.4).
func (h *Host) decline(ctx context.Context, o *op) error {
	d := o.deal
	if d == nil {
		return h.declineRequest(ctx, o)
	}
	if d.State != stateProposed && d.State != stateAwaiting {
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	d.State, d.Waiting = stateDeclined, nil
	now := o.now
	d.Ended = &now
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, nil)
}

// execute moves one of the sender's obligations to claimed (P1): a claim,
// not proof. Under ask the host holds it: the deal stays active, shows
// the sender waiting on its execute step, and the obligation is claimed
// only when the escalation is approved (§11).
func (h *Host) execute(ctx context.Context, o *op) error {
	var b struct {
		Obligation string `json:"obligation"`
		ProofURL   string `json:"proof_url"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	mode, err := o.stepMode("execute")
	if err != nil {
		return err
	}
	d := o.deal
	if d.State != stateActive {
		return refuse(StateConflict, "The deal is in the wrong state.")
	}
	ob := d.obligation(b.Obligation)
	if ob == nil {
		return refuse(NotFound, "No such obligation in this deal.")
	}
	if by := obligor(d, b.Obligation); by != o.party.ID {
		return refuse(Forbidden, "Only the obligor may execute an obligation.")
	}
	if ob.State != obPending {
		return refuse(StateConflict, "The obligation is not pending.")
	}
	for _, t := range d.t.Obligations {
		if t.ID == b.Obligation && !d.afterDone(t) {
			return refuse(StateConflict, "This obligation is due only once obligation "+t.After+" is verified.")
		}
	}
	if method := pageMethod(d.termsObligation(b.Obligation)); method != "" && b.ProofURL != "" {
		// The host reads the page once the claim stands (proof.go).
		ps := d.proof(b.Obligation)
		ps.Method, ps.URL, ps.Waiting = method, b.ProofURL, true
		deal, obligation := d.ID, b.Obligation
		o.later = append(o.later, func(ctx context.Context) error { return h.checkPage(ctx, deal, obligation) })
	}
	if mode == "ask" {
		if d.Waiting != nil {
			return refuse(StateConflict, "Another step of this deal is waiting for approval.")
		}
		exp := o.now.Add(escalationTTL)
		e := o.escalate("execute", "execute", d.ID, d.TermsHash, []string{"step_ask"}, exp)
		e.Obligation = b.Obligation
		o.writes[len(o.writes)-1] = create(kindEscalate, e.ID, e, o.now)
		d.Waiting = &waiting{Party: o.party.ID, Step: "execute", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	} else {
		ob.State = obClaimed
	}
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, nil)
}

func obligor(d *dealRecord, id string) string {
	for _, ob := range d.t.Obligations {
		if ob.ID == id {
			switch ob.By {
			case "offerer":
				return d.Offerer
			case "acceptor":
				return d.Acceptor
			}
			return ob.By // a seated deal names the party itself
		}
	}
	return ""
}

// revoke stops a deal, one obligation, or a standing offer (§15.1). Links
// turn plain from effective (T8); verified work stays verified.
func (h *Host) revoke(ctx context.Context, o *op) error {
	var b struct {
		Scope      string `json:"scope"`
		Obligation string `json:"obligation"`
		Offer      string `json:"offer"`
		Effective  string `json:"effective"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	if _, err := o.stepMode("revoke"); err != nil {
		return err
	}
	at := o.now
	if b.Effective != "" {
		t, err := time.Parse(time.RFC3339Nano, b.Effective)
		if err != nil {
			return invalid("/body/effective", "effective is not an RFC 3339 timestamp.")
		}
		if t.After(at) {
			at = t
		}
	}
	if b.Scope == "offer" {
		offer, r, err := h.loadOffer(ctx, b.Offer)
		if err != nil || offer.Offerer != o.party.ID {
			return refuse(NotFound, "No such standing offer for this sender.")
		}
		if offer.Status == statusRevoked {
			return refuse(StateConflict, "The offer is already revoked.")
		}
		offer.Status = statusRevoked
		o.writes = append(o.writes, swap(r, offer, o.now))
		o.status, o.reply = http.StatusOK, o.message("offer", o.party.ID, "", offer.body(h))
		return nil
	}
	d := o.deal
	if d.ended() {
		return refuse(StateConflict, "The deal has already ended.")
	}
	if b.Scope == "obligation" {
		ob := d.obligation(b.Obligation)
		if ob == nil {
			return refuse(NotFound, "No such obligation in this deal.")
		}
		if ob.State == obRevoked || ob.State == obVerified || ob.State == obWaived {
			return refuse(StateConflict, "The obligation can no longer be revoked.")
		}
		if at.After(o.now) {
			// The sweep revokes it at effective; until then it runs.
			if d.ObRevokeAt == nil {
				d.ObRevokeAt = map[string]time.Time{}
			}
			d.ObRevokeAt[b.Obligation] = at
		} else {
			ob.State = obRevoked
		}
		if err := o.plainLinks(ctx, d, b.Obligation, at); err != nil {
			return err
		}
		o.saveDeal(d, o.dealR, false)
		return o.publish(ctx, d, nil)
	}
	if err := o.plainLinks(ctx, d, "", at); err != nil {
		return err
	}
	if at.After(o.now) {
		d.RevokeAt = &at // the sweep ends the deal at effective
	} else {
		endDeal(d, stateRevoked, o.now)
	}
	o.saveDeal(d, o.dealR, false)
	return o.publish(ctx, d, nil)
}

// endDeal moves a deal to an ended state: obligations not yet done stop.
func endDeal(d *dealRecord, state string, now time.Time) {
	d.State, d.Waiting = state, nil
	d.Ended = &now
	for i := range d.Obligations {
		if d.Obligations[i].State == obPending || d.Obligations[i].State == obClaimed {
			if state == stateRevoked {
				d.Obligations[i].State = obRevoked
			}
		}
	}
}

// plainLinks turns the deal's links (or one obligation's) plain from at.
func (o *op) plainLinks(ctx context.Context, d *dealRecord, obligation string, at time.Time) error {
	for _, t := range d.Tracking {
		if obligation != "" && t.Obligation != obligation {
			continue
		}
		var l linkRecord
		r, err := o.h.get(ctx, kindLink, t.Token, &l)
		if err != nil {
			return fmt.Errorf("read link: %w", err)
		}
		if l.PlainAt == nil || l.PlainAt.After(at) {
			l.PlainAt = &at
			o.writes = append(o.writes, swap(r, l, o.now))
			if o.links == nil {
				o.links = map[string]*linkRecord{}
			}
			o.links[t.Token] = &l
			token := t.Token
			o.after = append(o.after, func() { o.h.links.forget(token) })
		}
	}
	return nil
}

// Deal returns the caller's current snapshot of a deal as a deal message
// (§4.2 GET {endpoint}/deals/<deal>).
func (h *Host) Deal(ctx context.Context, token, id string) ([]byte, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	d, _, err := h.loadDeal(ctx, id)
	if err != nil {
		return nil, err
	}
	if !d.hasParty(p.ID) {
		return nil, refuse(NotFound, "No such deal for this sender.")
	}
	o := &op{h: h, now: h.clock.Now(), party: p}
	if d.seated() {
		// Clicks answered before this read are counted in it, and the
		// receipt their count earned is on the deal.
		h.Flush(ctx)
		if d, _, err = h.loadDeal(ctx, id); err != nil {
			return nil, err
		}
		b, err := h.seatSnapshot(ctx, d, p.ID, nil, nil)
		if err != nil {
			return nil, err
		}
		return o.messageV(Version04, "deal", p.ID, d.ID, b), nil
	}
	b, err := h.snapshot(ctx, d, p.ID)
	if err != nil {
		return nil, err
	}
	return o.message("deal", p.ID, d.ID, b), nil
}
