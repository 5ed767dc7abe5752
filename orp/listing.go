package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"frontdesk/orp/schema"
	"frontdesk/store"
)

// Listing states of standing offers and spaces.
const (
	statusListed    = "listed"
	statusWaiting   = "waiting"
	statusWithdrawn = "withdrawn"
	statusRevoked   = "revoked"
)

type listingWaiting struct {
	Step       string   `json:"step"`
	Since      string   `json:"since"`
	Escalation string   `json:"escalation"`
	Reasons    []string `json:"reasons,omitempty"`
	URL        string   `json:"url"`
}

// offerRecord is a standing offer (§9.4).
type offerRecord struct {
	ID        string          `json:"id"`
	Offerer   string          `json:"offerer"`
	Terms     json.RawMessage `json:"terms"`
	TermsHash string          `json:"terms_hash"`
	Limit     int             `json:"limit,omitempty"`
	Expires   *time.Time      `json:"expires,omitempty"`
	Status    string          `json:"status"`
	Waiting   *listingWaiting `json:"waiting,omitempty"`
	Opened    int             `json:"opened"`
	ListedAt  time.Time       `json:"listed_at"`
	Created   time.Time       `json:"created"`
	Claims    claimsResult    `json:"claims"`
	// FreshUntil is a 0.4 standing offer's expires_at (§20.4).
	FreshUntil *time.Time `json:"fresh_until,omitempty"`

	// t is Terms decoded, when the offer is loaded or made.
	t terms
}

type offerBody struct {
	ID        string          `json:"id"`
	Terms     json.RawMessage `json:"terms"`
	TermsHash string          `json:"terms_hash"`
	Limit     int             `json:"limit,omitempty"`
	Expires   string          `json:"expires,omitempty"`
	Status    string          `json:"status"`
	Waiting   *listingWaiting `json:"waiting,omitempty"`
}

func (r *offerRecord) body(h *Host) offerBody {
	b := offerBody{ID: r.ID, Terms: r.Terms, TermsHash: r.TermsHash, Limit: r.Limit, Status: r.Status, Waiting: r.Waiting}
	if r.Expires != nil {
		b.Expires = stamp(*r.Expires)
	}
	return b
}

// Listing is a standing offer as other parties see it.
type Listing struct {
	ID        string          `json:"id"`
	Offerer   string          `json:"offerer"`
	Terms     json.RawMessage `json:"terms"`
	TermsHash string          `json:"terms_hash"`
	Limit     int             `json:"limit,omitempty"`
	Expires   string          `json:"expires,omitempty"`
}

func (r *offerRecord) listing() Listing {
	l := Listing{ID: r.ID, Offerer: r.Offerer, Terms: r.Terms, TermsHash: r.TermsHash, Limit: r.Limit}
	if r.Expires != nil {
		l.Expires = stamp(*r.Expires)
	}
	return l
}

func (h *Host) loadOffer(ctx context.Context, id string) (*offerRecord, store.Record, error) {
	var r offerRecord
	rec, err := h.get(ctx, kindOffer, id, &r)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rec, refuse(NotFound, "No such standing offer is listed.")
	}
	if err != nil {
		return nil, rec, err
	}
	if r.t, err = decodeTerms(r.Terms); err != nil {
		return nil, rec, fmt.Errorf("decode terms of offer %s: %w", id, err)
	}
	return &r, rec, nil
}

// offer lists a standing offer (no to) or opens a deal (to) (§9.4).
func (h *Host) offer(ctx context.Context, o *op) error {
	var b struct {
		ID        string          `json:"id"`
		Terms     json.RawMessage `json:"terms"`
		TermsHash string          `json:"terms_hash"`
		Limit     int             `json:"limit"`
		Expires   string          `json:"expires"`
		Parties   []Seat          `json:"parties"`
		Confirm   bool            `json:"confirm"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	if b.Confirm {
		return h.refreshOffer(ctx, o, b.ID)
	}
	if b.ID != "" {
		return invalid("/body/id", "The host sets a standing offer's id.")
	}
	hash, err := Hash(b.Terms)
	if err != nil {
		return invalid("/body/terms", "The terms cannot be hashed.")
	}
	if b.TermsHash != "" && b.TermsHash != hash && len(b.Parties) == 0 {
		return refuse(TermsMismatch, "terms_hash does not match the terms.")
	}
	var fresh *time.Time
	if o.ver == Version04 && o.env.To == "" && len(b.Parties) == 0 {
		// A 0.4 standing offer is hashed once the host wrote its
		// freshness and claims (§20.2, §20.4).
		terms, until, err := freshTerms(b.Terms, o.now)
		if err != nil {
			return err
		}
		if hash, err = Hash(terms); err != nil {
			return err
		}
		b.Terms, fresh = terms, &until
	}
	var expires *time.Time
	if b.Expires != "" {
		t, _ := time.Parse(time.RFC3339Nano, b.Expires)
		if !t.After(o.now) {
			return invalid("/body/expires", "expires is in the past.")
		}
		expires = &t
	}
	t, err := decodeTerms(b.Terms)
	if err != nil {
		return invalid("/body/terms", "The terms hold a value this host cannot read exactly.")
	}
	if err := h.checkDestinations(ctx, t, o.party.ID, o.env.To); err != nil {
		return err
	}
	if len(b.Parties) == 0 && o.ver == Version04 && o.env.To != "" {
		// A 0.4 offer to one party is a deal of two required seats,
		// active once both signed (§20.6).
		b.Parties = []Seat{{ID: o.party.ID, Role: "offerer", Required: true}, {ID: o.env.To, Role: "acceptor", Required: true}}
	}
	if len(b.Parties) > 0 {
		return h.offerSeats(ctx, o, b.Terms, t, b.Parties, b.TermsHash)
	}
	if o.env.To != "" {
		return h.directed(ctx, o, b.Terms, t, hash, expires)
	}
	mode, err := o.stepMode("list")
	if err != nil {
		return err
	}
	r := &offerRecord{ID: h.newID("ofr_", 12), Offerer: o.party.ID, Terms: b.Terms, t: t, TermsHash: hash, Limit: b.Limit,
		Expires: expires, Status: statusListed, ListedAt: o.now, Created: o.now, FreshUntil: fresh}
	_ = mode
	var reasons []string
	if !o.byOwner {
		if reasons, err = h.weigh(ctx, o, &t, "list", "offerer", "", nil); err != nil {
			return err
		}
		switch h.claimsMode() {
		case ClaimsReal:
			// Listed once the destination pages bear out its claims.
			reasons = append(reasons, "claims_unchecked")
			id := r.ID
			o.later = append(o.later, func(ctx context.Context) error { return h.recheckOfferClaims(ctx, id) })
		case ClaimsStub:
			reasons = append(reasons, "claims_unchecked") // always held for review
		}
	}
	if len(reasons) > 0 {
		exp := o.now.Add(escalationTTL)
		e := o.escalate("list", "offer", r.ID, hash, reasons, exp)
		r.Status = statusWaiting
		r.Waiting = &listingWaiting{Step: "list", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	}
	o.writes = append(o.writes, create(kindOffer, r.ID, r, o.now))
	o.status, o.reply = http.StatusOK, o.message("offer", o.party.ID, "", r.body(h))
	return nil
}

// directed opens a deal in proposed, or awaiting when the offerer's
// negotiate step asks.
func (h *Host) directed(ctx context.Context, o *op, raw json.RawMessage, t terms, hash string, expires *time.Time) error {
	opaque := h.opaqueOf(o.env.To)
	if opaque == "" || o.env.To == o.party.ID {
		return refuse(NotFound, "No such party on this host.")
	}
	if _, err := h.store.Get(ctx, kindParty, opaque); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such party on this host.")
		}
		return err
	}
	mode, err := o.stepMode("negotiate")
	if err != nil {
		return err
	}
	if o.env.Re != "" {
		if err := h.answersRequest(ctx, o); err != nil {
			return err
		}
	}
	d := &dealRecord{ID: h.newID("deal_", 12), State: stateProposed, Offerer: o.party.ID, Acceptor: o.env.To,
		Terms: raw, t: t, TermsHash: hash, Round: 1, Expires: expires, Created: o.now, Re: o.env.Re}
	for _, ob := range t.Obligations {
		d.Obligations = append(d.Obligations, obligationState{ID: ob.ID, State: obPending})
	}
	if err := o.admit(ctx, d, o.party.ID); err != nil {
		return err
	}
	o.deal = d
	_ = mode
	reasons, err := h.weigh(ctx, o, &t, "negotiate", "offerer", o.env.To, nil)
	if err != nil {
		return err
	}
	if len(reasons) > 0 {
		h.await(o, d, "negotiate", reasons)
	} else if _, err := o.bind(ctx, d, o.party.ID); err != nil {
		return err
	}
	o.saveDeal(d, store.Record{}, true)
	return o.publish(ctx, d, nil)
}

// spaceRecord is a registered space (§9.1).
type spaceRecord struct {
	Owner    string          `json:"owner"`
	Space    json.RawMessage `json:"space"`
	Verified []verification  `json:"verified,omitempty"`
	Status   string          `json:"status"`
	Waiting  *listingWaiting `json:"waiting,omitempty"`
}

type spaceBody struct {
	Action  string          `json:"action"`
	Space   json.RawMessage `json:"space,omitempty"`
	ID      string          `json:"id,omitempty"`
	Status  string          `json:"status"`
	Waiting *listingWaiting `json:"waiting,omitempty"`
}

// space registers, updates or withdraws one of the sender's spaces.
func (h *Host) space(ctx context.Context, o *op) error {
	var b struct {
		Action string          `json:"action"`
		Space  json.RawMessage `json:"space"`
		ID     string          `json:"id"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	id := b.ID
	var verified []verification
	if b.Action == "put" {
		var s struct {
			ID       string          `json:"id"`
			Locator  string          `json:"locator"`
			Verified json.RawMessage `json:"verified"`
		}
		if err := json.Unmarshal(b.Space, &s); err != nil {
			return invalid("/body/space", "The space does not match its schema.")
		}
		if s.Verified != nil {
			return refuse(Forbidden, "Only the host sets verified.")
		}
		if s.Locator != "" && h.locatorRefused(s.Locator) {
			return invalid("/body/space/locator", "The locator must be a public URL: this host does not fetch private or loopback addresses.")
		}
		id = s.ID
		b.Space = withAudienceDefaults(b.Space)
		if s.Locator != "" && h.verifyDomain(ctx, s.Locator, o.party.ID) {
			verified = []verification{{Method: "domain", At: stamp(o.now)}}
		}
	}
	key := o.party.Opaque + "/" + id
	var cur spaceRecord
	rec, err := h.get(ctx, kindSpace, key, &cur)
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if b.Action == "withdraw" {
		if !exists || cur.Status == statusWithdrawn {
			return refuse(NotFound, "No such space for this sender.")
		}
		cur.Status, cur.Waiting = statusWithdrawn, nil
		o.writes = append(o.writes, swap(rec, cur, o.now))
		o.status, o.reply = http.StatusOK, o.message("space", o.party.ID, "", spaceBody{Action: "listed", ID: id, Status: statusWithdrawn})
		return nil
	}
	mode, err := o.stepMode("list")
	if err != nil {
		return err
	}
	next := spaceRecord{Owner: o.party.ID, Space: b.Space, Verified: verified, Status: statusListed}
	if mode == "ask" {
		e := o.escalate("list", "space", key, "", []string{"step_ask"}, o.now.Add(escalationTTL))
		next.Status = statusWaiting
		next.Waiting = &listingWaiting{Step: "list", Since: stamp(o.now), Escalation: e.ID, Reasons: e.Reasons, URL: h.approvalURL(e.ID)}
	}
	if exists {
		o.writes = append(o.writes, swap(rec, next, o.now))
	} else {
		o.writes = append(o.writes, create(kindSpace, key, next, o.now))
	}
	o.status, o.reply = http.StatusOK, o.message("space", o.party.ID, "", spaceBody{Action: "listed", Space: withVerified(b.Space, verified), Status: next.Status, Waiting: next.Waiting})
	return nil
}

// hello answers with versions, capabilities, the party and its limits (§6).
func (h *Host) hello(o *op) error {
	caps := h.capabilities()
	if o.ver == Version04 {
		caps["messages"] = h.messages04()
	}
	body := map[string]any{
		"versions":     []string{o.ver},
		"capabilities": caps,
		"party":        o.party.ID,
		"limits":       o.party.Limits,
	}
	o.status, o.reply = http.StatusOK, o.message("hello", o.party.ID, "", body)
	return nil
}

// request delivers an ask for terms to its recipient; it has no reply
// (202). It falls under the negotiate step (§11), so an owner who turned
// that step off stops it; it binds and commits nobody, so ask does not
// hold it (§11.1 weighs only what would bind or commit a party).
func (h *Host) request(ctx context.Context, o *op) error {
	if _, err := o.stepMode("negotiate"); err != nil {
		return err
	}
	opaque := h.opaqueOf(o.env.To)
	if opaque == "" || o.env.To == o.party.ID {
		return refuse(NotFound, "No such party on this host.")
	}
	if _, err := h.store.Get(ctx, kindParty, opaque); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such party on this host.")
		}
		return err
	}
	o.recordRequest()
	o.deliver(o.env.To, o.raw)
	o.status, o.reply = http.StatusAccepted, nil
	return nil
}

// discover searches listed offers or spaces and says why each fits (§9.2).
func (h *Host) discover(ctx context.Context, o *op) error {
	var b struct {
		Want    string `json:"want"`
		Context struct {
			Text  string `json:"text"`
			Space string `json:"space"`
		} `json:"context"`
		Filters struct {
			Kinds         []string `json:"kinds"`
			Categories    []string `json:"categories"`
			MinReputation *int     `json:"min_reputation"`
		} `json:"filters"`
		Limit int `json:"limit"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	limit := b.Limit
	if limit == 0 {
		limit = 10
	}
	if b.Context.Space != "" {
		// The caller's own space is its own public content to match.
		var own spaceRecord
		if _, err := h.get(ctx, kindSpace, o.party.Opaque+"/"+b.Context.Space, &own); err == nil {
			var sp struct {
				Title  string   `json:"title"`
				Topics []string `json:"topics"`
			}
			_ = json.Unmarshal(own.Space, &sp) // checked or written by this code already; what does not decode reads as empty
			b.Context.Text += " " + sp.Title + " " + strings.Join(sp.Topics, " ")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	items := []map[string]any{}
	if b.Want == "offers" {
		matches, err := h.rank(ctx, b.Context.Text, o.party.ID, o.now, limit, o.ver == Version04, func(t terms) bool {
			return (len(b.Filters.Kinds) == 0 || slices.Contains(b.Filters.Kinds, t.Kind)) &&
				(len(b.Filters.Categories) == 0 || overlaps(b.Filters.Categories, t.Categories))
		})
		if err != nil {
			return err
		}
		for _, m := range matches {
			trust, err := h.trust(ctx, m.offer.Offerer)
			if err != nil {
				return err
			}
			if min := b.Filters.MinReputation; min != nil {
				// An unknown reputation does not meet a minimum.
				if rep, _ := trust["reputation"].(*int); rep == nil || *rep < *min {
					continue
				}
			}
			items = append(items, map[string]any{"offer": m.offer.listing(), "fit": m.fit,
				"trust": trust, "checks": m.offer.Claims.view()})
		}
	} else {
		spaces, err := h.listedSpaces(ctx, o.party.ID, b.Context.Text, b.Filters.Kinds, limit)
		if err != nil {
			return err
		}
		items = spaces
	}
	o.status, o.reply = http.StatusOK, o.message("results", o.party.ID, "", map[string]any{"want": b.Want, "items": items})
	return nil
}

func overlaps(want, have []string) bool {
	for _, w := range want {
		for _, c := range have {
			if c == w || strings.HasPrefix(c, w+".") || strings.HasPrefix(w, c+".") {
				return true
			}
		}
	}
	return false
}

// listedSpaces returns other parties' listed spaces, locators stripped
// (§9.1): this host shows a locator only to the space's owner.
func (h *Host) listedSpaces(ctx context.Context, viewer, text string, kinds []string, limit int) ([]map[string]any, error) {
	words := wordSet(text)
	var out []map[string]any
	after := ""
	for {
		recs, err := h.store.List(ctx, kindSpace, "", after, 200)
		if err != nil {
			return nil, fmt.Errorf("list spaces: %w", err)
		}
		for _, r := range recs {
			var s spaceRecord
			if err := json.Unmarshal(r.Value, &s); err != nil {
				return nil, fmt.Errorf("decode space %s: %w", r.Key, err)
			}
			if s.Status != statusListed || s.Owner == viewer {
				continue
			}
			sp := publicSpace(withVerified(s.Space, s.Verified))
			if len(kinds) > 0 {
				// Only spaces whose owner accepts one of the kinds asked for.
				accepts, _ := sp["accepts"].([]any)
				if !slices.ContainsFunc(accepts, func(a any) bool { k, _ := a.(string); return slices.Contains(kinds, k) }) {
					continue
				}
			}
			title, _ := sp["title"].(string)
			score, shared := overlapScore(words, wordSet(title+" "+fmt.Sprint(sp["topics"])))
			reasons := []string{"Listed space on this host."}
			if len(shared) > 0 {
				reasons = []string{"Shares these words with your context: " + strings.Join(shared, ", ") + "."}
			}
			if kind, _ := sp["kind"].(string); kind != "" {
				reasons = append(reasons, "It is a "+kind+" space.")
			}
			if len(s.Verified) > 0 {
				reasons = append(reasons, "The host verified its domain.")
			}
			trust, err := h.trust(ctx, s.Owner)
			if err != nil {
				return nil, err
			}
			out = append(out, map[string]any{"space": sp, "owner": s.Owner, "fit": map[string]any{"score": score, "reasons": reasons}, "trust": trust})
		}
		if len(recs) < 200 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i]["fit"].(map[string]any)["score"].(int) > out[j]["fit"].(map[string]any)["score"].(int)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	if out == nil {
		out = []map[string]any{}
	}
	return out, nil
}

type fit struct {
	Score   int      `json:"score"`
	Reasons []string `json:"reasons"`
}

type match struct {
	offer *offerRecord
	fit   fit
}

// rank scores listed standing offers against text: the share of the
// offer's words (title, kind, categories, brief) that the text uses.
// with04 admits 0.4 standing offers, whose terms a 0.3 message cannot
// carry (§20.4).
func (h *Host) rank(ctx context.Context, text, viewer string, now time.Time, limit int, with04 bool, keep func(terms) bool) ([]match, error) {
	words := wordSet(text)
	var out []match
	after := ""
	for {
		recs, err := h.store.List(ctx, kindOffer, "", after, 200)
		if err != nil {
			return nil, fmt.Errorf("list offers: %w", err)
		}
		for _, r := range recs {
			var of offerRecord
			if err := json.Unmarshal(r.Value, &of); err != nil {
				return nil, fmt.Errorf("decode offer %s: %w", r.Key, err)
			}
			if of.Status != statusListed || of.Offerer == viewer || of.stale(now) || of.FreshUntil != nil && !with04 ||
				of.Expires != nil && !now.Before(*of.Expires) || of.Limit > 0 && of.Opened >= of.Limit {
				continue
			}
			t, err := decodeTerms(of.Terms)
			if err != nil {
				return nil, fmt.Errorf("decode terms of offer %s: %w", of.ID, err)
			}
			of.t = t
			if !keep(t) {
				continue
			}
			// An offer whose unclaimed offerer has no place left cannot be
			// taken by anyone now.
			if full, err := h.full(ctx, of.Offerer); err != nil {
				return nil, err
			} else if full {
				continue
			}
			about := t.Title + " " + t.Kind + " " + strings.Join(t.Categories, " ")
			for _, ob := range t.Obligations {
				if ob.Content != nil {
					about += " " + ob.Content.Brief
				}
			}
			score, shared := overlapScore(words, wordSet(about))
			reasons := []string{}
			if len(shared) > 0 {
				reasons = append(reasons, "Your text mentions "+strings.Join(shared, ", ")+", which this offer is about.")
			} else {
				reasons = append(reasons, "No words in common with your text; listed as a standing offer on this host.")
			}
			if t.Kind != "" {
				reasons = append(reasons, "It is a "+strings.ReplaceAll(t.Kind, "_", " ")+" deal.")
			}
			out = append(out, match{offer: &of, fit: fit{Score: score, Reasons: reasons}})
		}
		if len(recs) < 200 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].fit.Score > out[j].fit.Score })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

var stopWords = map[string]bool{"the": true, "and": true, "for": true, "that": true, "with": true, "from": true, "this": true,
	"your": true, "you": true, "are": true, "our": true, "off": true, "of": true, "to": true, "in": true, "on": true, "a": true, "an": true}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 && !stopWords[w] {
			set[strings.TrimSuffix(w, "s")] = true
		}
	}
	return set
}

func overlapScore(text, about map[string]bool) (int, []string) {
	var shared []string
	for w := range about {
		if text[w] {
			shared = append(shared, w)
		}
	}
	sort.Strings(shared)
	if len(about) == 0 {
		return 0, nil
	}
	score := 100 * len(shared) / len(about)
	if len(shared) > 5 {
		shared = shared[:5]
	}
	return min(score, 100), shared
}

// SuggestResponse is the answer to POST {suggest} (§9.3).
type SuggestResponse struct {
	Items  []SuggestItem `json:"items"`
	Joined *JoinResponse `json:"joined,omitempty"`
}

// SuggestItem is one offer that fits a draft, with a pitch to show the
// person.
type SuggestItem struct {
	Offer  Listing        `json:"offer"`
	Fit    fit            `json:"fit"`
	Pitch  string         `json:"pitch"`
	Checks map[string]any `json:"checks"`
}

// Suggest ranks listed standing offers against a draft and, when the
// request carries join, creates a party in the same call.
func (h *Host) Suggest(ctx context.Context, body []byte, addr string) (SuggestResponse, error) {
	now := h.clock.Now()
	if wait := h.addrLimit.allow("suggest "+addressKey(addr), now); wait > 0 {
		return SuggestResponse{}, &Error{Code: RateLimited, Message: "Too many suggest requests from this address.", RetryAfter: wait}
	}
	v, e := decodeStrict(body)
	if e != nil {
		return SuggestResponse{}, e
	}
	if obj, ok := v.(map[string]any); ok && obj["join"] != nil {
		// Check join first so its own refusal wording applies.
		var req joinRequest
		if err := h.checkJoin(obj["join"], "/join", &req); err != nil {
			return SuggestResponse{}, err
		}
	}
	if err := h.schemas.Validate(schema.SuggestRequest, v); err != nil {
		var p *schema.Problem
		if errors.As(err, &p) {
			return SuggestResponse{}, invalid(p.Pointer, "The suggest request is not valid: "+p.Detail+".")
		}
		return SuggestResponse{}, err
	}
	if e := checkText(v, ""); e != nil {
		return SuggestResponse{}, e
	}
	var req struct {
		Text  string          `json:"text"`
		Limit int             `json:"limit"`
		Join  json.RawMessage `json:"join"`
	}
	if err := remarshal(v, &req); err != nil {
		return SuggestResponse{}, invalid("", "The suggest request is not valid ORP 0.3.")
	}
	limit := req.Limit
	if limit == 0 {
		limit = 3
	}
	matches, err := h.rank(ctx, req.Text, "", now, limit, true, func(terms) bool { return true })
	if err != nil {
		return SuggestResponse{}, err
	}
	resp := SuggestResponse{Items: []SuggestItem{}}
	for _, m := range matches {
		resp.Items = append(resp.Items, SuggestItem{Offer: m.offer.listing(), Fit: m.fit, Pitch: pitch(m.offer.t),
			Checks: m.offer.Claims.view()})
	}
	if req.Join != nil {
		var jr joinRequest
		if err := json.Unmarshal(req.Join, &jr); err != nil {
			return SuggestResponse{}, invalid("/join", "The join request is not valid ORP 0.4.")
		}
		joined, err := h.join(ctx, jr, now)
		if err != nil {
			return SuggestResponse{}, err
		}
		resp.Joined = &joined
	}
	return resp, nil
}

// pitch is at most 280 characters for the agent to show its person. It is
// the offerer's own title, quoted as data, never an instruction.
func pitch(t terms) string {
	p := "Offer: \u201c" + t.Title + "\u201d"
	if t.Kind != "" {
		p += " (" + strings.ReplaceAll(t.Kind, "_", " ") + ")"
	}
	p += ". Accepting binds you only after your approval."
	if r := []rune(p); len(r) > 280 {
		p = string(r[:279]) + "\u2026"
	}
	return p
}
