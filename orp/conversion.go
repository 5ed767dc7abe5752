package orp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"time"

	"frontdesk/store"
)

// Money is an amount in a currency's minor unit (§2).
type Money struct {
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
}

// Conversion is one sale, or one refund, that carries a click id or a
// tracking code (T9, T10). It carries nothing about the buyer.
type Conversion struct {
	// Event is the reporter's own id for the event, the idempotency key.
	Event  string `json:"event"`
	Click  string `json:"click,omitempty"`
	Code   string `json:"code,omitempty"`
	Amount *Money `json:"amount,omitempty"`
	Refund bool   `json:"refund,omitempty"`
	// Sale is the reporter's own id for the sale, such as a payment
	// intent: a refund or chargeback that names it needs neither click
	// nor code, and reverses that sale's payout (P5).
	Sale string `json:"sale,omitempty"`
}

// ConversionResult says where a conversion was attributed and whether it
// counts. It never names the click id.
type ConversionResult struct {
	Event      string `json:"event"`
	Deal       string `json:"deal"`
	Obligation string `json:"obligation"`
	Basis      string `json:"basis"`
	Counted    bool   `json:"counted"`
	Reason     string `json:"reason,omitempty"`
}

// Conversion bases (§13 P4, §14.2 S2).
const (
	basisProvider    = "provider"
	basisAttestation = "attestation"
)

type codeRef struct {
	Token string `json:"token"`
}

// conversionRecord is a stored conversion, keyed under its link's token.
type conversionRecord struct {
	Basis   string    `json:"basis"`
	At      time.Time `json:"at"`
	Refund  bool      `json:"refund,omitempty"`
	Amount  *Money    `json:"amount,omitempty"`
	Counted bool      `json:"counted"`
}

// conversionKey is what idempotency keeps per reporter and event.
type conversionKey struct {
	Hash   string           `json:"hash"`
	Result ConversionResult `json:"result"`
}

var (
	eventPattern    = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
	clickIDPattern  = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)
	codePattern     = regexp.MustCompile(`^[A-Za-z0-9]{4,32}$`)
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
)

// ReportConversion records the payer's own report of a sale or refund that
// carries a click id or a code (T10, P4): basis attestation. Only a party
// that owes a pay obligation in the deal may report, and its report can
// make only its own money payable. body is a Conversion as JSON.
func (h *Host) ReportConversion(ctx context.Context, token string, body []byte) (ConversionResult, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return ConversionResult{}, err
	}
	if wait := h.partyLimit.allow(p.Opaque, h.clock.Now()); wait > 0 {
		return ConversionResult{}, &Error{Code: RateLimited, Message: fmt.Sprintf("This party may send %d messages a minute.", p.Limits.MessagesPerMinute), RetryAfter: wait}
	}
	if _, e := decodeStrict(body); e != nil {
		return ConversionResult{}, e
	}
	var c Conversion
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return ConversionResult{}, invalid("", "A conversion has only event, click or code, amount, refund and sale.")
	}
	return h.convert(ctx, basisAttestation, p, c)
}

// PayerConversion records the payer's own report for a party of this
// host, from Go code in the process (the business as a payer): basis
// attestation, as ReportConversion. party is the payer's party id.
func (h *Host) PayerConversion(ctx context.Context, party string, c Conversion) (ConversionResult, error) {
	var p Party
	if _, err := h.get(ctx, kindParty, h.opaqueOf(party), &p); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return ConversionResult{}, refuse(NotFound, "No such party on this host.")
		}
		return ConversionResult{}, err
	}
	return h.convert(ctx, basisAttestation, &p, c)
}

// ProviderConversion records a payment-provider event that carries a click
// id or a code (T10): basis provider. The adapter that receives the
// provider's webhook checks the provider's signature before it calls this;
// provider names the provider, as a namespace for its event ids.
func (h *Host) ProviderConversion(ctx context.Context, provider string, c Conversion) (ConversionResult, error) {
	if !eventPattern.MatchString(provider) {
		return ConversionResult{}, invalid("/provider", "The provider name is not valid.")
	}
	return h.convert(ctx, basisProvider, &Party{Opaque: "provider:" + provider}, c)
}

// DefaultMaxReport is the largest amount, in minor units, one conversion
// may carry unless Options.MaxReport says otherwise: a billion in a
// currency of two decimals.
const DefaultMaxReport = 100_000_000_000

func (h *Host) checkConversion(c Conversion) error {
	switch {
	case c.Amount != nil && c.Amount.AmountMinor > h.opts.MaxReport:
		return invalid("/amount/amount_minor", fmt.Sprintf("amount_minor may be at most %d for one conversion on this host.", h.opts.MaxReport))
	case !eventPattern.MatchString(c.Event):
		return invalid("/event", "event must be 1 to 128 characters of [A-Za-z0-9_.:-].")
	case c.Sale != "" && !eventPattern.MatchString(c.Sale):
		return invalid("/sale", "sale must be 1 to 128 characters of [A-Za-z0-9_.:-].")
	case c.Click == "" && c.Code == "" && c.Refund && c.Sale != "":
		// A refund of a known sale finds its click or code there.
	case (c.Click == "") == (c.Code == ""):
		return invalid("/click", "A conversion carries exactly one of click and code.")
	case c.Click != "" && !clickIDPattern.MatchString(c.Click):
		return invalid("/click", "click is not a click id this host gives out.")
	case c.Code != "" && !codePattern.MatchString(c.Code):
		return invalid("/code", "code must be 4 to 32 letters or digits.")
	case c.Amount != nil && (c.Amount.AmountMinor < 0 || !currencyPattern.MatchString(c.Amount.Currency)):
		return invalid("/amount", "amount is amount_minor, a whole number of at least 0, and a three-letter currency.")
	}
	return nil
}

// convert attributes one conversion and stores it with its idempotency
// key in one Apply. reporter is the payer, or a provider namespace.
func (h *Host) convert(ctx context.Context, basis string, reporter *Party, c Conversion) (ConversionResult, error) {
	if err := h.checkConversion(c); err != nil {
		return ConversionResult{}, err
	}
	hash, err := Hash(mustJSON(c))
	if err != nil {
		return ConversionResult{}, err
	}
	key := basis + " " + reporter.Opaque + " " + c.Event
	var out ConversionResult
	err = h.retry(ctx, func() error {
		res, o, writes, err := h.prepareConversion(ctx, basis, reporter, c, key, hash)
		if err != nil || o == nil {
			out = res
			return err
		}
		if err = o.commit(ctx, writes); err != nil {
			return fmt.Errorf("record conversion: %w", err)
		}
		out = res
		return nil
	})
	return out, err
}

// prepareConversion attributes one conversion and returns the op that
// holds its writes with the conversion's own records, not yet applied.
// A nil op means the event was recorded before: res is its result.
func (h *Host) prepareConversion(ctx context.Context, basis string, reporter *Party, c Conversion, key, hash string) (ConversionResult, *op, []store.Write, error) {
	now := h.clock.Now()
	var prior conversionKey
	if _, err := h.get(ctx, kindConvKey, key, &prior); err == nil {
		if prior.Hash != hash {
			return ConversionResult{}, nil, nil, refuse(Replay, "This event id was already reported with different content.")
		}
		return prior.Result, nil, nil, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return ConversionResult{}, nil, nil, err
	}
	o := &op{h: h, now: now}
	res, rec, err := h.attribute(ctx, o, basis, reporter, &c)
	if err != nil {
		return ConversionResult{}, nil, nil, err
	}
	seq := h.clicks.seq.Add(1)
	writes := []store.Write{
		create(kindConvKey, key, conversionKey{Hash: hash, Result: res}, now),
		create(kindConv, fmt.Sprintf("%s/%019d%06d", rec.token, now.UnixNano(), seq%1000000), rec.conv, now),
	}
	if err := o.payConversion(ctx, basis, reporter, c, res, rec); err != nil {
		return ConversionResult{}, nil, nil, err
	}
	return res, o, writes, nil
}

// attributed is where a conversion went, for the writes that follow.
type attributed struct {
	conv    conversionRecord
	token   string
	sale    *saleRecord // the stored sale this event names, if any
	saleKey string
	saleRec store.Record
}

// attribute finds the link a conversion came through and decides whether
// it counts: only a human click inside the pay obligation's window, or a
// code on a live link, counts (T5, T8, T9, T10). A refund from a provider
// always applies (P5). A sale already counted under its sale id does not
// count again, so two provider events for one purchase count once.
func (h *Host) attribute(ctx context.Context, o *op, basis string, reporter *Party, c *Conversion) (ConversionResult, attributed, error) {
	now := o.now
	var at attributed
	if c.Sale != "" {
		at.saleKey = basis + " " + reporter.Opaque + " " + c.Sale
		var s saleRecord
		r, err := h.get(ctx, kindSale, at.saleKey, &s)
		switch {
		case err == nil:
			at.sale, at.saleRec = &s, r
			if c.Click == "" && c.Code == "" {
				c.Click, c.Code = s.Click, s.Code
			}
		case !errors.Is(err, store.ErrNotFound):
			return ConversionResult{}, at, err
		case c.Click == "" && c.Code == "":
			return ConversionResult{}, at, refuse(NotFound, "No sale with this id was reported.")
		}
	}
	res, rec, token, err := h.attributeOnce(ctx, basis, reporter, *c, now)
	if err != nil {
		return res, at, err
	}
	if !c.Refund && at.sale != nil && res.Counted {
		res.Counted, res.Reason, rec.Counted = false, "This sale was already counted.", false
	}
	at.conv, at.token = rec, token
	return res, at, nil
}

func (h *Host) attributeOnce(ctx context.Context, basis string, reporter *Party, c Conversion, now time.Time) (ConversionResult, conversionRecord, string, error) {
	unknown := refuse(NotFound, "No click or code with this value belongs to a deal of this reporter.")
	var token string
	var click *clickRef
	if c.Click != "" {
		ref, err := h.lookupClick(ctx, c.Click)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return ConversionResult{}, conversionRecord{}, "", unknown
			}
			return ConversionResult{}, conversionRecord{}, "", err
		}
		token, click = ref.Token, &ref
	} else {
		var ref codeRef
		if _, err := h.get(ctx, kindCode, c.Code, &ref); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return ConversionResult{}, conversionRecord{}, "", unknown
			}
			return ConversionResult{}, conversionRecord{}, "", err
		}
		token = ref.Token
	}
	l, err := h.loadLink(ctx, token)
	if err != nil {
		return ConversionResult{}, conversionRecord{}, "", err
	}
	d, _, err := h.loadDeal(ctx, l.Deal)
	if err != nil {
		return ConversionResult{}, conversionRecord{}, "", err
	}
	pay := d.payTerms()
	if basis == basisAttestation && !slices.ContainsFunc(pay, func(p payTerms) bool { return p.payer == reporter.ID }) {
		// The publisher side never learns whether a click id exists.
		return ConversionResult{}, conversionRecord{}, "", unknown
	}
	if c.Amount != nil {
		if cur, err := h.conversionCurrency(ctx, token); err != nil {
			return ConversionResult{}, conversionRecord{}, "", err
		} else if cur != "" && cur != c.Amount.Currency {
			return ConversionResult{}, conversionRecord{}, "", invalid("/amount/currency", "This link's conversions are in "+cur+".")
		}
	}
	res := ConversionResult{Event: c.Event, Deal: d.ID, Obligation: l.Obligation, Basis: basis, Counted: true}
	switch {
	case c.Refund && basis == basisProvider:
	case click != nil && click.Class != classHuman && click.Class != classRepeat:
		res.Counted, res.Reason = false, "The click was not a human click (class "+click.Class+")."
	case click != nil && !inWindow(pay, click.At, now):
		res.Counted, res.Reason = false, "The sale came after the pay obligation's attribution window."
	case click == nil && !l.live(now):
		res.Counted, res.Reason = false, "The code's tracking entry is plain: the deal or obligation has ended."
	}
	rec := conversionRecord{Basis: basis, At: now, Refund: c.Refund, Amount: c.Amount, Counted: res.Counted}
	return res, rec, token, nil
}

// conversionCurrency is the currency of the link's first conversion with
// an amount, or "" when there is none yet.
func (h *Host) conversionCurrency(ctx context.Context, token string) (string, error) {
	after := ""
	for {
		recs, err := h.store.List(ctx, kindConv, token+"/", after, 100)
		if err != nil {
			return "", fmt.Errorf("list conversions: %w", err)
		}
		for _, r := range recs {
			var c conversionRecord
			if err := json.Unmarshal(r.Value, &c); err != nil {
				return "", fmt.Errorf("decode conversion %s: %w", r.Key, err)
			}
			if c.Amount != nil {
				return c.Amount.Currency, nil
			}
		}
		if len(recs) < 100 {
			return "", nil
		}
		after = recs[len(recs)-1].Key
	}
}

// inWindow reports whether a sale at now is inside the attribution window
// of a click at clicked: the window of the deal's pay per conversion, or
// no limit when it sets none (§12).
func inWindow(pay []payTerms, clicked, now time.Time) bool {
	for _, p := range pay {
		if p.per == "conversion" && p.window > 0 {
			return now.Sub(clicked) <= p.window
		}
	}
	return true
}

var durationPattern = regexp.MustCompile(`^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

// isoDuration parses the ISO 8601 durations ORP uses (P30D, PT12H, P2W);
// years and months, whose length varies, are refused.
func isoDuration(s string) (time.Duration, bool) {
	m := durationPattern.FindStringSubmatch(s)
	if m == nil || s == "P" || s == "PT" {
		return 0, false
	}
	units := []time.Duration{7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute, time.Second}
	var d time.Duration
	for i, u := range units {
		if m[i+1] != "" {
			n, err := strconv.ParseInt(m[i+1], 10, 32)
			if err != nil {
				return 0, false
			}
			d += time.Duration(n) * u
		}
	}
	return d, true
}

// conversionTotals are one link's counted conversions in a period. The
// revenue sum is exact, however many reports add to it; what an outcome
// shows is clamped to the range a message can carry (see clampMinor).
type conversionTotals struct {
	sales, refunds, attested int
	currency                 string
	revenue                  *big.Int // nil: no amount counted
}

// clampMinor is n as an amount a message carries exactly: within the
// I-JSON integer range, never wrapped around.
func clampMinor(n *big.Int) int64 {
	limit := big.NewInt(maxInteger)
	if n.Cmp(limit) > 0 {
		return maxInteger
	}
	if n.Cmp(new(big.Int).Neg(limit)) < 0 {
		return -maxInteger
	}
	return n.Int64()
}

// conversions sums the counted conversions of a link in [from, to).
// Provider refunds always apply (P5); payer-reported sales enter revenue
// only when the pay obligation accepts attestation (P4).
func (h *Host) conversions(ctx context.Context, d *dealRecord, token string, from, to time.Time) (conversionTotals, error) {
	var t conversionTotals
	attests := slices.ContainsFunc(d.payTerms(), func(p payTerms) bool { return p.attests })
	prefix := token + "/"
	after := fmt.Sprintf("%s%019d", prefix, from.UnixNano()-1)
	end := fmt.Sprintf("%s%019d", prefix, to.UnixNano())
	for {
		recs, err := h.store.List(ctx, kindConv, prefix, after, 500)
		if err != nil {
			return t, fmt.Errorf("list conversions: %w", err)
		}
		for _, r := range recs {
			if r.Key >= end {
				return t, nil
			}
			var c conversionRecord
			if err := json.Unmarshal(r.Value, &c); err != nil {
				return t, fmt.Errorf("decode conversion %s: %w", r.Key, err)
			}
			if !c.Counted {
				continue
			}
			inRevenue := c.Basis == basisProvider || attests
			switch {
			case c.Basis == basisAttestation && !c.Refund:
				// The payer's own sales are payable only from its own money,
				// and only when the pay obligation accepts attestation (P4).
				t.attested++
				if attests {
					t.sales++
				}
			case c.Refund && inRevenue:
				t.refunds++
			case c.Basis == basisProvider:
				t.sales++
			}
			if c.Amount != nil && inRevenue {
				if t.revenue == nil {
					t.revenue, t.currency = new(big.Int), c.Amount.Currency
				}
				if c.Amount.Currency == t.currency {
					a := big.NewInt(c.Amount.AmountMinor)
					if c.Refund {
						a.Neg(a)
					}
					t.revenue.Add(t.revenue, a)
				}
			}
		}
		if len(recs) < 500 {
			return t, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// earned is what the deal's pay per conversion yields from the totals: a
// rate of revenue, or an amount per net sale, within its cap. It is never
// negative.
func earned(d *dealRecord, t conversionTotals) *Money {
	for _, p := range d.payTerms() {
		if p.per != "conversion" {
			continue
		}
		var m *Money
		switch {
		case p.rateBps > 0 && t.revenue != nil:
			rev := new(big.Int).Set(t.revenue)
			if rev.Sign() < 0 {
				rev.SetInt64(0)
			}
			rev.Mul(rev, big.NewInt(p.rateBps)).Quo(rev, big.NewInt(10000))
			m = &Money{AmountMinor: clampMinor(rev), Currency: t.currency}
		case p.amount != nil:
			net := int64(t.sales - t.refunds)
			total := new(big.Int).Mul(big.NewInt(max(net, 0)), big.NewInt(p.amount.AmountMinor))
			m = &Money{AmountMinor: clampMinor(total), Currency: p.amount.Currency}
		default:
			continue
		}
		if p.cap != nil && p.cap.Currency == m.Currency && m.AmountMinor > p.cap.AmountMinor {
			m.AmountMinor = p.cap.AmountMinor
		}
		return m
	}
	return nil
}
