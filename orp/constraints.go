package orp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/orp/schema"
	"frontdesk/store"
)

// Constraints are an owner's standing rules for its agent (§8.4): the
// modes per step live in Party.Steps, the rest here. The owner sets them
// at the host; an agent may only tighten them (H4, tighter).
type Constraints struct {
	Budget         *Budget         `json:"budget,omitempty"`
	ApproveOver    *Money          `json:"approve_over,omitempty"`
	Kinds          []string        `json:"kinds,omitempty"`
	Categories     *AllowDeny      `json:"categories,omitempty"`
	Spaces         *AllowDeny      `json:"spaces,omitempty"`
	Counterparties *Counterparties `json:"counterparties,omitempty"`
	Brand          *Brand          `json:"brand,omitempty"`
	MaxDuration    string          `json:"max_duration,omitempty"`
	Expires        string          `json:"expires,omitempty"`
}

// Budget caps what the agent may commit. A cap the owner did not set
// allows no spending (§11.1).
type Budget struct {
	PerDeal    *Money `json:"per_deal,omitempty"`
	PerMonth   *Money `json:"per_month,omitempty"`
	MaxRateBps *int64 `json:"max_rate_bps,omitempty"`
}

// AllowDeny lists what is allowed (empty: anything) and what is denied.
type AllowDeny struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Counterparties are the rules about whom the agent deals with.
type Counterparties struct {
	MinReputation *int     `json:"min_reputation,omitempty"`
	New           string   `json:"new,omitempty"`
	Deny          []string `json:"deny,omitempty"`
}

// Brand are the owner's rules for the content of deals.
type Brand struct {
	MustNotInclude []string    `json:"must_not_include,omitempty"`
	Disclosure     *disclosure `json:"disclosure,omitempty"`
}

// decision is what the host weighs for one message that would bind or
// commit a party (§11.1).
type decision struct {
	step  string
	terms *terms // nil when the message carries none
	role  string // the party's side of the terms: "offerer" or "acceptor"
	// counterparty is the other party, "" for a standing offer being listed.
	counterparty    string
	newCounterparty bool
	reputation      *int // the counterparty's score; nil is unknown
	// unchecked is a standing offer whose listing claims the host has not
	// checked, being accepted.
	unchecked  bool
	monthSpent int64 // minor units committed this month in the budget's currency
	now        time.Time
}

// decide applies the party's constraints in the order of §11.1: an off
// step is refused, then a denied or (with new off) new counterparty, then
// the brand rules and denied categories; otherwise it returns every
// escalation reason that applies, in the order §11.1 lists them. No
// reasons means the party is bound by mandate.
func decide(p *Party, in decision) ([]string, error) {
	c := p.Constraints
	mode := p.Steps.mode(in.step)
	// 1. The step is off.
	if mode == "off" {
		return nil, &Error{Code: StepOff, Values: []string{in.step}, Message: "The owner has turned off the " + in.step + " step for this agent."}
	}
	// 2. The counterparty is denied, or new while new counterparties are off.
	if cp := c.Counterparties; cp != nil && in.counterparty != "" {
		if slices.Contains(cp.Deny, in.counterparty) {
			return nil, refuse(Forbidden, "The owner does not deal with this counterparty.")
		}
		if in.newCounterparty && cp.New == "off" {
			return nil, refuse(Forbidden, "The owner does not deal with new counterparties.")
		}
	}
	// 3. Brand rules and denied categories.
	if t := in.terms; t != nil {
		if cat := c.Categories; cat != nil {
			for _, k := range t.Categories {
				if withinCategory(k, cat.Deny) {
					return nil, refuse(BrandRule, "The terms are in a category the owner denies.")
				}
			}
		}
		if b := c.Brand; b != nil {
			text := strings.ToLower(termsText(t))
			for _, phrase := range b.MustNotInclude {
				if strings.Contains(text, strings.ToLower(phrase)) {
					return nil, refuse(BrandRule, "The terms contain a phrase the owner's brand rules exclude.")
				}
			}
			if b.Disclosure != nil && (t.Disclosure == nil || !strings.EqualFold(t.Disclosure.Label, b.Disclosure.Label)) {
				return nil, refuse(BrandRule, "The terms lack the disclosure the owner requires.")
			}
		}
	}
	// 4. Every escalation reason that applies, in §11.1's order.
	var reasons []string
	add := func(reason string, applies bool) {
		if applies {
			reasons = append(reasons, reason)
		}
	}
	add("step_ask", mode == "ask")
	if c.Expires != "" {
		exp, err := time.Parse(time.RFC3339Nano, c.Expires)
		add("mandate_expired", err != nil || !in.now.Before(exp))
	}
	if t := in.terms; t != nil {
		if cat := c.Categories; cat != nil && len(cat.Allow) > 0 {
			outside := len(t.Categories) == 0
			for _, k := range t.Categories {
				outside = outside || !withinCategory(k, cat.Allow)
			}
			add("category_outside", outside)
		}
		add("kind_outside", len(c.Kinds) > 0 && !slices.Contains(c.Kinds, t.Kind))
		add("space_outside", spaceOutside(c.Spaces, t, in.role))
		s := spending(t, in.role)
		add("over_budget", s.overBudget(c.Budget, in.monthSpent))
		add("over_threshold", s.committed && c.ApproveOver != nil && !s.within(c.ApproveOver, 0))
		if c.MaxDuration != "" {
			limit, ok := isoDuration(c.MaxDuration)
			length, known := dealLength(t, in.now)
			add("duration_over", !ok || !known || length > limit)
		}
	}
	if cp := c.Counterparties; cp != nil && in.counterparty != "" {
		add("new_counterparty", in.newCounterparty && cp.New == "ask")
		add("low_reputation", cp.MinReputation != nil && (in.reputation == nil || *in.reputation < *cp.MinReputation))
	}
	add("claims_unchecked", in.unchecked)
	return reasons, nil
}

// withinCategory reports whether category k is one of cats or below one
// ("software.productivity" is within "software").
func withinCategory(k string, cats []string) bool {
	for _, c := range cats {
		if k == c || strings.HasPrefix(k, c+".") {
			return true
		}
	}
	return false
}

// termsText is the free text of terms that brand rules weigh.
func termsText(t *terms) string {
	parts := []string{t.Title}
	for _, ob := range t.Obligations {
		parts = append(parts, ob.Quote)
		if ob.Content != nil {
			parts = append(parts, ob.Content.Brief, ob.Content.Copy)
			parts = append(parts, ob.Content.MustInclude...)
		}
	}
	return strings.Join(parts, "\n")
}

// spaceOutside reports an obligation of the party's side that uses a
// space outside its allowed spaces, or a denied one. Without a space id
// the host cannot tell which space the work goes in, so with an allow
// list set that is outside too.
func spaceOutside(s *AllowDeny, t *terms, role string) bool {
	if s == nil {
		return false
	}
	for _, ob := range t.Obligations {
		if ob.By != role || ob.Action != "place" && ob.Action != "repost" && ob.Action != "comment" {
			continue
		}
		id := ""
		if ob.Space != nil {
			id = ob.Space.ID
		}
		if id != "" && slices.Contains(s.Deny, id) || len(s.Allow) > 0 && (id == "" || !slices.Contains(s.Allow, id)) {
			return true
		}
	}
	return false
}

// spend is the most money terms can make one side pay.
type spend struct {
	committed bool
	amount    int64
	currency  string
	mixed     bool  // more than one currency
	unbounded bool  // pay with no cap
	rateBps   int64 // the highest rate of revenue; an uncapped rate is bounded by max_rate_bps alone
}

func spending(t *terms, role string) spend {
	var s spend
	for _, ob := range t.Obligations {
		if ob.Action != "pay" || ob.By != role {
			continue
		}
		s.committed = true
		var m *Money
		switch {
		case ob.RateBps > 0:
			// A share of revenue: max_rate_bps is the cap that applies,
			// and a cap on the obligation adds its amount.
			s.rateBps = max(s.rateBps, ob.RateBps)
			if ob.Cap == nil {
				continue
			}
			m = ob.Cap
		case ob.Per == "deal" || ob.Per == "":
			m = ob.Amount
		case ob.Per == "placement" && ob.Amount != nil && ob.Cap == nil:
			n := int64(0)
			for _, pl := range t.Obligations {
				if pl.Action == "place" && pl.By != role {
					n += int64(max(pl.Count, 1))
				}
			}
			m = &Money{AmountMinor: ob.Amount.AmountMinor * n, Currency: ob.Amount.Currency}
		default: // per click or conversion: only a cap bounds it
			m = ob.Cap
		}
		if m == nil {
			s.unbounded = true
			continue
		}
		if s.currency != "" && s.currency != m.Currency {
			s.mixed = true
		}
		s.currency = m.Currency
		s.amount += m.AmountMinor
	}
	return s
}

// within reports whether the spend stays within limit after already.
func (s spend) within(limit *Money, already int64) bool {
	return !s.unbounded && !s.mixed && (s.amount == 0 || s.currency == limit.Currency) && already+s.amount <= limit.AmountMinor
}

// overBudget applies §11.1's budget rule: a cap the owner did not set
// allows no spending, and a rate above max_rate_bps is over budget.
func (s spend) overBudget(b *Budget, monthSpent int64) bool {
	if !s.committed {
		return false
	}
	if b == nil || s.unbounded {
		return true
	}
	if s.rateBps > 0 && (b.MaxRateBps == nil || s.rateBps > *b.MaxRateBps) {
		return true
	}
	if s.amount > 0 && b.PerDeal == nil && b.PerMonth == nil {
		return true
	}
	if b.PerDeal != nil && !s.within(b.PerDeal, 0) {
		return true
	}
	return b.PerMonth != nil && !s.within(b.PerMonth, monthSpent)
}

// dealLength is how long terms bind from now: to ends, or else to the
// latest due and keep of its obligations. known is false when nothing in
// the terms ends it.
func dealLength(t *terms, now time.Time) (time.Duration, bool) {
	if t.Ends != "" {
		ends, err := time.Parse(time.RFC3339Nano, t.Ends)
		if err != nil {
			return 0, false
		}
		start := now
		if t.Starts != "" {
			if s, err := time.Parse(time.RFC3339Nano, t.Starts); err == nil && s.After(now) {
				start = s
			}
		}
		return ends.Sub(start), true
	}
	var longest time.Duration
	for _, ob := range t.Obligations {
		if ob.Action == "pay" || ob.Action == "credit" {
			if ob.Per == "click" || ob.Per == "conversion" {
				return 0, false // pay per click or conversion runs until revoked (§12)
			}
			continue
		}
		due, ok := isoDuration(ob.Due)
		if !ok && ob.Due != "" {
			if at, err := time.Parse(time.RFC3339Nano, ob.Due); err == nil {
				due, ok = at.Sub(now), true
			}
		}
		keep, _ := isoDuration(ob.Keep)
		if !ok && keep == 0 {
			return 0, false
		}
		longest = max(longest, due+keep)
	}
	return longest, true
}

// strictness orders modes: auto allows most, off least.
func strictness(mode string) int {
	return map[string]int{"auto": 0, "ask": 1, "off": 2}[mode]
}

// tighter reports why next would loosen cur (H4), or "" when every rule
// of next is at least as strict: a step as strict or stricter, caps no
// higher (a cap not set allows no spending, so setting one loosens),
// allow lists no wider, deny lists no narrower, a later expiry or a
// longer maximum duration never.
func tighter(curSteps, nextSteps Steps, cur, next Constraints) string {
	for _, step := range []string{"list", "negotiate", "accept", "execute", "amend", "settle", "share", "revoke"} {
		if strictness(nextSteps.mode(step)) < strictness(curSteps.mode(step)) {
			return "steps." + step
		}
	}
	cb, nb := cur.Budget, next.Budget
	if cb == nil {
		cb = &Budget{}
	}
	if nb == nil {
		nb = &Budget{}
	}
	if capLooser(cb.PerDeal, nb.PerDeal) {
		return "budget.per_deal"
	}
	if capLooser(cb.PerMonth, nb.PerMonth) {
		return "budget.per_month"
	}
	if cb.MaxRateBps == nil && nb.MaxRateBps != nil || cb.MaxRateBps != nil && (nb.MaxRateBps == nil || *nb.MaxRateBps > *cb.MaxRateBps) {
		return "budget.max_rate_bps"
	}
	// An unset approve_over escalates nothing, so any threshold tightens.
	if cur.ApproveOver != nil && (next.ApproveOver == nil || next.ApproveOver.Currency != cur.ApproveOver.Currency || next.ApproveOver.AmountMinor > cur.ApproveOver.AmountMinor) {
		return "approve_over"
	}
	if allowLooser(cur.Kinds, next.Kinds) {
		return "kinds"
	}
	cc, nc := orEmpty(cur.Categories), orEmpty(next.Categories)
	if allowLooser(cc.Allow, nc.Allow) {
		return "categories.allow"
	}
	if !subset(cc.Deny, nc.Deny) {
		return "categories.deny"
	}
	cs, ns := orEmpty(cur.Spaces), orEmpty(next.Spaces)
	if allowLooser(cs.Allow, ns.Allow) {
		return "spaces.allow"
	}
	if !subset(cs.Deny, ns.Deny) {
		return "spaces.deny"
	}
	ccp, ncp := cur.Counterparties, next.Counterparties
	if ccp == nil {
		ccp = &Counterparties{}
	}
	if ncp == nil {
		ncp = &Counterparties{}
	}
	if ccp.MinReputation != nil && (ncp.MinReputation == nil || *ncp.MinReputation < *ccp.MinReputation) {
		return "counterparties.min_reputation"
	}
	if strictness(ncp.New) < strictness(ccp.New) {
		return "counterparties.new"
	}
	if !subset(ccp.Deny, ncp.Deny) {
		return "counterparties.deny"
	}
	cbr, nbr := cur.Brand, next.Brand
	if cbr == nil {
		cbr = &Brand{}
	}
	if nbr == nil {
		nbr = &Brand{}
	}
	if !subset(cbr.MustNotInclude, nbr.MustNotInclude) {
		return "brand.must_not_include"
	}
	if cbr.Disclosure != nil && (nbr.Disclosure == nil || *nbr.Disclosure != *cbr.Disclosure) {
		return "brand.disclosure"
	}
	if cur.MaxDuration != "" {
		c, _ := isoDuration(cur.MaxDuration)
		n, ok := isoDuration(next.MaxDuration)
		if !ok || n > c {
			return "max_duration"
		}
	}
	if cur.Expires != "" {
		c, _ := time.Parse(time.RFC3339Nano, cur.Expires)
		n, err := time.Parse(time.RFC3339Nano, next.Expires)
		if err != nil || n.After(c) {
			return "expires"
		}
	}
	return ""
}

// capLooser: no cap allows nothing, so a cap where there was none, a
// higher cap or one in another currency loosens.
func capLooser(cur, next *Money) bool {
	if next == nil {
		return false
	}
	return cur == nil || next.Currency != cur.Currency || next.AmountMinor > cur.AmountMinor
}

// allowLooser: an empty allow list allows everything.
func allowLooser(cur, next []string) bool {
	if len(cur) == 0 {
		return false
	}
	return len(next) == 0 || !subset(next, cur)
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func orEmpty(a *AllowDeny) *AllowDeny {
	if a == nil {
		return &AllowDeny{}
	}
	return a
}

// constraintsView is the constraints document of §8.4: steps and rules.
type constraintsView struct {
	Steps Steps `json:"steps"`
	Constraints
}

// describeLoosening words a refused loosening.
func describeLoosening(field string) string {
	return fmt.Sprintf("Only the owner, signed in at the host, can loosen %s (H4); an agent may only tighten its constraints.", field)
}

// kindPair records that two parties have had an active deal, so neither
// is a new counterparty to the other any more (§11.1).
const kindPair = "orp.pair"

func pairKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + " " + b
}

// weigh gathers what §11.1 needs about the sender and its counterparty
// and decides.
func (h *Host) weigh(ctx context.Context, o *op, t *terms, step, role, counterparty string, standing *offerRecord) ([]string, error) {
	in := decision{step: step, terms: t, role: role, counterparty: counterparty, now: o.now}
	if counterparty != "" {
		_, err := h.store.Get(ctx, kindPair, pairKey(o.party.ID, counterparty))
		switch {
		case errors.Is(err, store.ErrNotFound):
			in.newCounterparty = true
		case err != nil:
			return nil, fmt.Errorf("read counterparty history: %w", err)
		}
		if cp := o.party.Constraints.Counterparties; cp != nil && cp.MinReputation != nil {
			// The host's own orp-rep-1 score; a null one stays unknown,
			// which §11.1 treats as low.
			res, err := h.reputationAt(ctx, counterparty, o.now, 1)
			if err != nil && AsError(err).Code != NotFound {
				return nil, fmt.Errorf("read counterparty reputation: %w", err)
			}
			in.reputation = res.Score
		}
	}
	if standing != nil {
		in.unchecked = standing.Claims.State != claimsChecked
	}
	if b := o.party.Constraints.Budget; b != nil && b.PerMonth != nil && t != nil {
		spent, err := h.monthSpent(ctx, o.party.Opaque, b.PerMonth.Currency, o.now)
		if err != nil {
			return nil, err
		}
		in.monthSpent = spent
	}
	return decide(o.party, in)
}

// parseConstraints reads a constraints document (§8.4), checked against
// its schema and the text rules.
func (h *Host) parseConstraints(raw []byte) (constraintsView, error) {
	var cv constraintsView
	v, e := decodeStrict(raw)
	if e != nil {
		return cv, e
	}
	if err := h.schemas.Validate(schema.Constraints, v); err != nil {
		var p *schema.Problem
		if errors.As(err, &p) {
			return cv, invalid(p.Pointer, "The constraints are not valid ORP 0.3: "+p.Detail+".")
		}
		return cv, err
	}
	if e := checkText(v, ""); e != nil {
		return cv, e
	}
	var in struct {
		Steps *Steps `json:"steps"`
		Constraints
	}
	if err := remarshal(v, &in); err != nil {
		return cv, invalid("", "The constraints are not valid ORP 0.3.")
	}
	cv.Constraints = in.Constraints
	cv.Steps = unclaimedSteps
	if in.Steps != nil {
		cv.Steps = *in.Steps
	}
	return cv, nil
}

// ConstraintsOf returns the party's constraints document: its steps and
// rules (§8.4), for its agent or its owner's page.
func (h *Host) ConstraintsOf(p *Party) []byte {
	return mustJSON(constraintsView{Steps: p.Steps.filled(), Constraints: p.Constraints})
}

// TightenConstraints replaces the constraints of the bearer's party with
// raw, when raw loosens nothing: an agent may tighten its own
// constraints over ORP, never loosen them (H4). A document that loosens
// anything is refused with forbidden and changes nothing.
func (h *Host) TightenConstraints(ctx context.Context, token string, raw []byte) ([]byte, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	next, err := h.parseConstraints(raw)
	if err != nil {
		return nil, err
	}
	return h.saveConstraints(ctx, p.Opaque, func(cur *Party) error {
		if field := tighter(cur.Steps, next.Steps, cur.Constraints, next.Constraints); field != "" {
			return refuse(Forbidden, describeLoosening(field))
		}
		return nil
	}, next)
}

// SetConstraints replaces a party's constraints as its owner, signed in
// at the host: the one way to loosen them (H4). owner must be the
// party's owner.
func (h *Host) SetConstraints(ctx context.Context, owner, party string, raw []byte) ([]byte, error) {
	next, err := h.parseConstraints(raw)
	if err != nil {
		return nil, err
	}
	return h.saveConstraints(ctx, h.opaqueOf(party), func(cur *Party) error {
		if owner == "" || cur.Owner != owner {
			return refuse(NotFound, "No such party for this owner.")
		}
		return nil
	}, next)
}

func (h *Host) saveConstraints(ctx context.Context, opaque string, allow func(*Party) error, next constraintsView) ([]byte, error) {
	var out []byte
	err := h.retry(ctx, func() error {
		var p Party
		r, err := h.get(ctx, kindParty, opaque, &p)
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such party.")
		}
		if err != nil {
			return err
		}
		if err := allow(&p); err != nil {
			return err
		}
		now := h.clock.Now()
		p.Steps, p.Constraints = next.Steps, next.Constraints
		if _, err := h.store.Apply(ctx, []store.Write{swap(r, p, now)}); err != nil {
			return err
		}
		out = h.ConstraintsOf(&p)
		return nil
	})
	return out, err
}

// filled is s with every unset step at its default.
func (s Steps) filled() Steps {
	return Steps{List: s.mode("list"), Negotiate: s.mode("negotiate"), Accept: s.mode("accept"), Execute: s.mode("execute"),
		Amend: s.mode("amend"), Settle: s.mode("settle"), Share: s.mode("share"), Revoke: s.mode("revoke")}
}

// kindSpent keys what a party committed to pay in one calendar month
// (UTC), by currency, for the per_month budget (§8.4).
const kindSpent = "orp.spent"

type spentRecord struct {
	Minor map[string]int64 `json:"minor"` // currency → amount in minor units
}

func spentKey(opaque string, now time.Time) string { return opaque + "/" + now.UTC().Format("2006-01") }

// monthSpent is what the party committed this month in currency.
func (h *Host) monthSpent(ctx context.Context, opaque, currency string, now time.Time) (int64, error) {
	var s spentRecord
	if _, err := h.get(ctx, kindSpent, spentKey(opaque, now), &s); err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("read month's spending: %w", err)
	}
	return s.Minor[currency], nil
}

// addSpent counts what the party commits by binding to d's terms in this
// month's spending, in the same Apply as the binding.
func (o *op) addSpent(ctx context.Context, d *dealRecord, party string) error {
	s := spending(&d.t, roleOf(d, party))
	if !s.committed || s.unbounded || s.mixed || s.amount == 0 {
		return nil
	}
	opaque := o.h.opaqueOf(party)
	var rec spentRecord
	r, err := o.h.get(ctx, kindSpent, spentKey(opaque, o.now), &rec)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("read month's spending: %w", err)
	}
	if rec.Minor == nil {
		rec.Minor = map[string]int64{}
	}
	rec.Minor[s.currency] += s.amount
	if r.Version > 0 {
		o.writes = append(o.writes, swap(r, rec, o.now))
	} else {
		o.writes = append(o.writes, create(kindSpent, spentKey(opaque, o.now), rec, o.now))
	}
	return nil
}
