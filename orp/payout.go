package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"time"

	"frontdesk/store"
)

// Payout states (§14.2).
const (
	payoutHeld     = "held"
	payoutPayable  = "payable"
	payoutSent     = "sent"
	payoutPaid     = "paid"
	payoutReversed = "reversed"
	payoutFailed   = "failed"
)

// defaultConversionHold is S1's hold for pay per conversion without one.
const defaultConversionHold = 30 * 24 * time.Hour

// payoutRecord tracks money one pay obligation owes (§14.2). No money
// moves through the host: the rail moves it, and Ref is the rail's own
// transfer reference (S5).
type payoutRecord struct {
	ID         string     `json:"id"`
	Deal       string     `json:"deal"`
	Obligation string     `json:"obligation"`
	Payer      string     `json:"payer"`
	Payee      string     `json:"payee"`
	State      string     `json:"state"`
	Amount     Money      `json:"amount"`
	Rail       string     `json:"rail,omitempty"`
	Basis      string     `json:"basis"`
	Period     *period    `json:"period,omitempty"`
	HoldUntil  *time.Time `json:"hold_until,omitempty"`
	Due        *time.Time `json:"due,omitempty"`
	Ref        string     `json:"ref,omitempty"`
	// Depends are the obligations whose open disputes keep it held.
	Depends []string `json:"depends"`
	// Sale is the sale it pays for, by the key of its sale record, so a
	// refund of that sale reverses it (P5). It never leaves the host.
	Sale    string    `json:"sale,omitempty"`
	Token   string    `json:"token,omitempty"`
	At      time.Time `json:"at"`
	Created time.Time `json:"created"`
}

// payoutBody is a host payout record as the parties see it.
type payoutBody struct {
	Payout     string  `json:"payout"`
	Obligation string  `json:"obligation"`
	State      string  `json:"state"`
	Amount     Money   `json:"amount"`
	Rail       string  `json:"rail,omitempty"`
	Basis      string  `json:"basis"`
	Period     *period `json:"period,omitempty"`
	HoldUntil  string  `json:"hold_until,omitempty"`
	Due        string  `json:"due,omitempty"`
	Ref        string  `json:"ref,omitempty"`
	At         string  `json:"at"`
}

func (p *payoutRecord) body() payoutBody {
	b := payoutBody{Payout: p.ID, Obligation: p.Obligation, State: p.State, Amount: p.Amount, Rail: p.Rail, Basis: p.Basis,
		Period: p.Period, Ref: p.Ref, At: stamp(p.At)}
	if p.HoldUntil != nil {
		b.HoldUntil = stamp(*p.HoldUntil)
	}
	if p.Due != nil {
		b.Due = stamp(*p.Due)
	}
	return b
}

// Payout is a payout record as Go callers in the process read it.
type Payout struct {
	ID, Deal, Obligation, State, Basis, Payer, Payee string
	Amount                                           Money
	HoldUntil                                        *time.Time
	Ref                                              string
}

func payoutKey(deal, id string) string { return deal + "/" + id }

type storedPayout struct {
	p   *payoutRecord
	rec store.Record
}

// dealPayouts lists a deal's payouts, oldest first.
func (h *Host) dealPayouts(ctx context.Context, deal string) ([]storedPayout, error) {
	var out []storedPayout
	after := ""
	for {
		recs, err := h.store.List(ctx, kindPayout, deal+"/", after, 200)
		if err != nil {
			return nil, fmt.Errorf("list payouts: %w", err)
		}
		for _, r := range recs {
			var p payoutRecord
			if err := json.Unmarshal(r.Value, &p); err != nil {
				return nil, fmt.Errorf("decode payout: %w", err)
			}
			out = append(out, storedPayout{p: &p, rec: r})
		}
		if len(recs) < 200 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].p.Created.Before(out[j].p.Created) })
	return out, nil
}

// Payouts returns a deal's payout records, for Go callers in the process
// and tests.
func (h *Host) Payouts(ctx context.Context, deal string) ([]Payout, error) {
	ps, err := h.dealPayouts(ctx, deal)
	if err != nil {
		return nil, err
	}
	var out []Payout
	for _, s := range ps {
		p := s.p
		out = append(out, Payout{ID: p.ID, Deal: p.Deal, Obligation: p.Obligation, State: p.State, Basis: p.Basis, Payer: p.Payer,
			Payee: p.Payee, Amount: p.Amount, HoldUntil: p.HoldUntil, Ref: p.Ref})
	}
	return out, nil
}

// notifyPayout sends the payout record to payer and payee, signed.
func (o *op) notifyPayout(p *payoutRecord) error {
	for _, party := range []string{p.Payee, p.Payer} {
		msg, err := o.signed("payout", party, p.Deal, p.body())
		if err != nil {
			return err
		}
		o.deliver(party, msg)
		if o.party != nil && party == o.party.ID {
			o.status, o.reply = http.StatusOK, msg
		}
	}
	return nil
}

// addPayout records a new payout and tells both parties.
func (o *op) addPayout(p *payoutRecord) error {
	p.ID = o.h.newID("po_", 12)
	p.At, p.Created = o.now, o.now
	o.writes = append(o.writes, create(kindPayout, payoutKey(p.Deal, p.ID), p, o.now))
	return o.notifyPayout(p)
}

// setPayout moves a stored payout to state and tells both parties. A
// payout changes at most once in one op: later reads in the op see the
// change (see opPayouts).
func (o *op) setPayout(s storedPayout, state string) error {
	key := payoutKey(s.p.Deal, s.p.ID)
	if o.payouts[key] != nil {
		return nil
	}
	s.p.State, s.p.At = state, o.now
	o.writes = append(o.writes, swap(s.rec, s.p, o.now))
	if o.payouts == nil {
		o.payouts = map[string]*payoutRecord{}
	}
	o.payouts[key] = s.p
	return o.notifyPayout(s.p)
}

// opPayouts lists a deal's payouts as this op sees them: stored, with
// the op's own changes over them; a changed payout is not changed again.
func (o *op) opPayouts(ctx context.Context, deal string) ([]storedPayout, error) {
	ps, err := o.h.dealPayouts(ctx, deal)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if p := o.payouts[payoutKey(deal, ps[i].p.ID)]; p != nil {
			ps[i].p = p
		}
	}
	return ps, nil
}

// payTerms is one pay obligation as conversions, outcomes and payouts
// read it.
type payTerms struct {
	id      string
	payer   string
	payee   string
	per     string
	rateBps int64
	amount  *Money
	cap     *Money
	hold    time.Duration
	window  time.Duration // attribution window after a click; 0: none
	after   string
	due     *time.Time
	rail    string
	attests bool
}

func (d *dealRecord) payTerms() []payTerms {
	var raw struct {
		Obligations []struct {
			ID      string   `json:"id"`
			By      string   `json:"by"`
			Action  string   `json:"action"`
			Per     string   `json:"per"`
			RateBps int64    `json:"rate_bps"`
			Amount  *Money   `json:"amount"`
			Cap     *Money   `json:"cap"`
			Hold    string   `json:"hold"`
			Window  string   `json:"window"`
			After   string   `json:"after"`
			Due     string   `json:"due"`
			Rail    string   `json:"rail"`
			Proof   []string `json:"proof"`
		} `json:"obligations"`
	}
	_ = json.Unmarshal(d.Terms, &raw) // checked or written by this code already; what does not decode reads as empty
	var out []payTerms
	for _, ob := range raw.Obligations {
		if ob.Action != "pay" {
			continue
		}
		p := payTerms{id: ob.ID, payer: d.Acceptor, payee: d.Offerer, per: ob.Per, rateBps: ob.RateBps, amount: ob.Amount, cap: ob.Cap,
			after: ob.After, rail: ob.Rail, attests: slices.Contains(ob.Proof, "attestation")}
		if ob.By == "offerer" {
			p.payer, p.payee = d.Offerer, d.Acceptor
		}
		if hold, ok := isoDuration(ob.Hold); ok {
			p.hold = hold
		} else if ob.Per == "conversion" {
			p.hold = defaultConversionHold
		}
		p.window, _ = isoDuration(ob.Window)
		p.due = d.deadline(ob.Due)
		out = append(out, p)
	}
	return out
}

// deadline is a due field as a time: a timestamp, or a duration counted
// from activation (§2, §12); nil when unset or not yet active.
func (d *dealRecord) deadline(due string) *time.Time {
	if due == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339Nano, due); err == nil {
		return &t
	}
	dur, ok := isoDuration(due)
	if !ok || d.Activated == nil {
		return nil
	}
	t := d.Activated.Add(dur)
	return &t
}

// remaining is what the pay obligation may still add under its cap,
// given its payouts that are not reversed or failed; nil means no cap.
func remaining(p payTerms, payouts []storedPayout) *big.Int {
	if p.cap == nil {
		return nil
	}
	left := big.NewInt(p.cap.AmountMinor)
	for _, s := range payouts {
		if s.p.Obligation == p.id && s.p.State != payoutReversed && s.p.State != payoutFailed && s.p.Amount.Currency == p.cap.Currency {
			left.Sub(left, big.NewInt(s.p.Amount.AmountMinor))
		}
	}
	if left.Sign() < 0 {
		left.SetInt64(0)
	}
	return left
}

// capped limits amount by what the cap leaves.
func capped(amount Money, left *big.Int) Money {
	if left != nil && big.NewInt(amount.AmountMinor).Cmp(left) > 0 {
		amount.AmountMinor = left.Int64()
	}
	return amount
}

// newPayout builds a payout of p for amount, held for p's hold. A payout
// without a hold is payable at once.
func (o *op) newPayout(d *dealRecord, p payTerms, amount Money, basis string, depends []string) *payoutRecord {
	r := &payoutRecord{Deal: d.ID, Obligation: p.id, Payer: p.payer, Payee: p.payee, State: payoutPayable, Amount: amount,
		Rail: p.rail, Basis: basis, Due: p.due, Depends: append([]string{p.id}, depends...)}
	if p.hold > 0 {
		until := o.now.Add(p.hold)
		r.State, r.HoldUntil = payoutHeld, &until
	}
	if r.State == payoutPayable && d.disputedAny(r.Depends) {
		r.State = payoutHeld
	}
	return r
}

// payDue records the payouts pay per deal and per placement owe once the
// work they pay for is verified (§8.2, §12): per deal when its after
// obligation, or else every obligation of the payee, is verified; per
// placement for each verified place obligation of the payee (or its
// after obligation). Each is recorded once.
func (o *op) payDue(ctx context.Context, d *dealRecord) error {
	var payouts []storedPayout
	loaded := false
	t := d.t
	for _, p := range d.payTerms() {
		if p.per != "deal" && p.per != "placement" || p.amount == nil {
			continue
		}
		var sources []string
		switch {
		case p.per == "deal" && p.after != "":
			if s := d.obligation(p.after); s != nil && s.State == obVerified {
				sources = []string{"deal"}
			}
		case p.per == "deal":
			done, any := true, false
			for _, ob := range t.Obligations {
				if ob.Action == "pay" || ob.Action == "credit" || obligor(d, ob.ID) != p.payee {
					continue
				}
				any = true
				if s := d.obligation(ob.ID); s == nil || s.State != obVerified {
					done = false
				}
			}
			if done && any {
				sources = []string{"deal"}
			}
		default:
			for _, ob := range t.Obligations {
				if ob.Action != "place" || obligor(d, ob.ID) != p.payee || p.after != "" && ob.ID != p.after {
					continue
				}
				if s := d.obligation(ob.ID); s != nil && s.State == obVerified {
					sources = append(sources, ob.ID)
				}
			}
		}
		for _, src := range sources {
			key := p.id + "/" + src
			if d.PaidFor[key] {
				continue
			}
			if !loaded {
				var err error
				if payouts, err = o.opPayouts(ctx, d.ID); err != nil {
					return err
				}
				loaded = true
			}
			if d.PaidFor == nil {
				d.PaidFor = map[string]bool{}
			}
			d.PaidFor[key] = true
			amount := capped(*p.amount, remaining(p, payouts))
			if amount.AmountMinor == 0 {
				continue
			}
			var depends []string
			if src != "deal" {
				depends = []string{src}
			} else if p.after != "" {
				depends = []string{p.after}
			}
			r := o.newPayout(d, p, amount, "receipt", depends)
			if err := o.addPayout(r); err != nil {
				return err
			}
			payouts = append(payouts, storedPayout{p: r})
		}
	}
	return nil
}

// disputedAny reports an open dispute on any of the obligations.
func (d *dealRecord) disputedAny(obligations []string) bool {
	return slices.ContainsFunc(d.Disputes, func(o disputeRef) bool { return slices.Contains(obligations, o.Obligation) })
}

// sweepPayouts releases held payouts whose hold has passed and whose
// obligations have no open dispute (S1, §15.2), and marks pay per deal or
// per placement verified once everything it owes is paid.
func (o *op) sweepPayouts(ctx context.Context, d *dealRecord) (bool, error) {
	payouts, err := o.opPayouts(ctx, d.ID)
	if err != nil || len(payouts) == 0 {
		return false, err
	}
	changed := false
	for _, s := range payouts {
		if s.p.State != payoutHeld || d.disputedAny(s.p.Depends) || s.p.HoldUntil != nil && o.now.Before(*s.p.HoldUntil) {
			continue
		}
		if err := o.setPayout(s, payoutPayable); err != nil {
			return false, err
		}
		changed = true
	}
	settled, err := o.settlePay(ctx, d, payouts)
	return settled || changed, err
}

// settlePay marks pay per deal or per placement verified when every
// payout it owes is recorded and paid (or reversed).
func (o *op) settlePay(ctx context.Context, d *dealRecord, payouts []storedPayout) (bool, error) {
	changed := false
	for _, p := range d.payTerms() {
		if p.per != "deal" && p.per != "placement" {
			continue
		}
		s := d.obligation(p.id)
		if s == nil || s.State != obPending && s.State != obClaimed {
			continue
		}
		n, open := 0, false
		for _, po := range payouts {
			if po.p.Obligation != p.id {
				continue
			}
			n++
			if po.p.State != payoutPaid && po.p.State != payoutReversed {
				open = true
			}
		}
		due := p.per == "deal" && d.PaidFor[p.id+"/deal"]
		if p.per == "placement" {
			due = n > 0 && o.placementsDone(d, p)
		}
		if due && !open {
			s.State = obVerified
			changed = true
		}
	}
	if changed {
		if err := o.h.maybeComplete(ctx, o, d); err != nil {
			return false, err
		}
	}
	return changed, nil
}

func (o *op) placementsDone(d *dealRecord, p payTerms) bool {
	for _, ob := range d.t.Obligations {
		if ob.Action != "place" || obligor(d, ob.ID) != p.payee || p.after != "" && ob.ID != p.after {
			continue
		}
		if !d.PaidFor[p.id+"/"+ob.ID] {
			return false
		}
	}
	return true
}

// payoutAnswer handles a party's payout message (§14.2): the payer's
// sent, under its settle step (S3), and the payee's confirm or
// not_received (S4).
func (h *Host) payoutAnswer(ctx context.Context, o *op) error {
	var b struct {
		Payout string `json:"payout"`
		Answer string `json:"answer"`
		Ref    string `json:"ref"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	d := o.deal
	var p payoutRecord
	rec, err := h.get(ctx, kindPayout, payoutKey(d.ID, b.Payout), &p)
	if errors.Is(err, store.ErrNotFound) {
		return refuse(NotFound, "No such payout in this deal.")
	}
	if err != nil {
		return err
	}
	s := storedPayout{p: &p, rec: rec}
	switch b.Answer {
	case "sent":
		if p.Payer != o.party.ID {
			return refuse(Forbidden, "Only the payer may say a payout was sent.")
		}
		mode, err := o.stepMode("settle")
		if err != nil {
			return err
		}
		if p.State != payoutPayable {
			return refuse(StateConflict, "The payout is not payable.")
		}
		if mode == "ask" {
			if d.Waiting != nil {
				return refuse(StateConflict, "Another step of this deal is waiting for approval.")
			}
			e := h.awaitActive(o, d, "settle", "settle", "")
			e.Key, e.Ref = payoutKey(d.ID, p.ID), b.Ref
			o.writes[len(o.writes)-1] = create(kindEscalate, e.ID, e, o.now)
			o.saveDeal(d, o.dealR, false)
			if err := o.publish(ctx, d, nil); err != nil {
				return err
			}
			o.status, o.reply = http.StatusOK, o.message("payout", o.party.ID, d.ID, p.body())
			return nil
		}
		p.Ref = b.Ref
		return o.answered(d, s, payoutSent)
	case "confirm":
		if p.Payee != o.party.ID {
			return refuse(Forbidden, "Only the payee may confirm a payout.")
		}
		if p.State != payoutPayable && p.State != payoutSent {
			return refuse(StateConflict, "The payout is not payable or sent.")
		}
		if err := o.setPayout(s, payoutPaid); err != nil {
			return err
		}
		payouts, err := o.opPayouts(ctx, d.ID)
		if err != nil {
			return err
		}
		settled, err := o.settlePay(ctx, d, payouts)
		if err != nil {
			return err
		}
		o.saveDeal(d, o.dealR, false)
		if settled {
			return o.publishKeepReply(ctx, d)
		}
		return nil
	case "not_received":
		if p.Payee != o.party.ID {
			return refuse(Forbidden, "Only the payee may say a payout was not received.")
		}
		if p.State != payoutSent {
			return refuse(StateConflict, "The payout was not sent.")
		}
		return o.answered(d, s, payoutPayable)
	}
	return invalid("/body/answer", "answer is sent, confirm or not_received.")
}

// answered moves a payout on a party's answer and records the message in
// the deal's chain.
func (o *op) answered(d *dealRecord, s storedPayout, state string) error {
	if err := o.setPayout(s, state); err != nil {
		return err
	}
	o.saveDeal(d, o.dealR, false)
	return nil
}

// publishKeepReply publishes the deal but keeps the reply already set.
func (o *op) publishKeepReply(ctx context.Context, d *dealRecord) error {
	status, reply := o.status, o.reply
	if err := o.publish(ctx, d, nil); err != nil {
		return err
	}
	o.status, o.reply = status, reply
	return nil
}

// approveSettle records a held settle step once approved: the payout is
// sent, with the rail reference the payer gave.
func (h *Host) approveSettle(ctx context.Context, o *op, e escalation) error {
	var p payoutRecord
	d, dr, err := h.loadDeal(ctx, dealOfKey(e.Key))
	if err != nil {
		return err
	}
	rec, err := h.get(ctx, kindPayout, e.Key, &p)
	if err != nil {
		return err
	}
	if d.Waiting == nil || d.Waiting.Escalation != e.ID || p.State != payoutPayable {
		return refuse(StateConflict, "The payout is no longer payable.")
	}
	d.Waiting = nil
	p.Ref = e.Ref
	if err := o.setPayout(storedPayout{p: &p, rec: rec}, payoutSent); err != nil {
		return err
	}
	o.saveDeal(d, dr, false)
	return o.publishKeepReply(ctx, d)
}

func dealOfKey(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i]
		}
	}
	return key
}

// holdFor puts the payable payouts that depend on an obligation back on
// hold while a dispute on it is open (§15.2).
func (o *op) holdFor(ctx context.Context, d *dealRecord, obligation string) error {
	payouts, err := o.opPayouts(ctx, d.ID)
	if err != nil {
		return err
	}
	for _, s := range payouts {
		if s.p.State == payoutPayable && slices.Contains(s.p.Depends, obligation) {
			if err := o.setPayout(s, payoutHeld); err != nil {
				return err
			}
		}
	}
	return nil
}

// reverseFor reverses the payouts that depend on an obligation, after a
// dispute on it was upheld.
func (o *op) reverseFor(ctx context.Context, d *dealRecord, obligation string) error {
	payouts, err := o.opPayouts(ctx, d.ID)
	if err != nil {
		return err
	}
	for _, s := range payouts {
		if s.p.State != payoutReversed && s.p.State != payoutFailed && slices.Contains(s.p.Depends, obligation) {
			if err := o.setPayout(s, payoutReversed); err != nil {
				return err
			}
		}
	}
	return nil
}
