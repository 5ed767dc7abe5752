package orp

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"frontdesk/store"
)

// sourceFloor is the fewest human clicks a referring domain needs to be
// named in an outcome; fewer fold into "other" (§7.2, §14.1).
const sourceFloor = 5

type clickCounts struct {
	Human   int `json:"human"`
	Bot     int `json:"bot"`
	Preview int `json:"preview"`
	Test    int `json:"test"`
	Repeat  int `json:"repeat"`
}

type sourceRow struct {
	Source string `json:"source"`
	Human  int    `json:"human"`
}

type outcomeRow struct {
	Obligation          string      `json:"obligation"`
	Clicks              clickCounts `json:"clicks"`
	Conversions         int         `json:"conversions"`
	Refunds             int         `json:"refunds"`
	Revenue             *Money      `json:"revenue,omitempty"`
	Earned              *Money      `json:"earned,omitempty"`
	AttestedConversions int         `json:"attested_conversions"`
	Sources             []sourceRow `json:"sources,omitempty"`
}

type period struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type outcomeBody struct {
	Period period       `json:"period"`
	Rows   []outcomeRow `json:"rows"`
	Final  bool         `json:"final"`
}

// SweepResult counts what one pass did.
type SweepResult struct {
	Outcomes  int // outcome messages sent (one per party)
	Expired   int // deals whose escalation or expiry ran out
	Revoked   int // deals whose delayed revoke took effect
	Verified  int // link verifications caught up from stored state
	Forgotten int // idempotency keys older than the retention
}

// Sweep runs one pass of the host's scheduled work: it writes queued
// clicks, expires escalations and deals (H5), applies revokes whose
// effective time came, catches up link verifications (T7), sends each
// active deal with tracking or pay an outcome at least weekly and a final
// one when it ends (§14.1), forgets idempotency keys older than the
// retention (E7) and deletes ended owner sessions. It is safe to run on
// several instances at once: every change is a conditional write.
func (h *Host) Sweep(ctx context.Context) (SweepResult, error) {
	h.Flush(ctx)
	var res SweepResult
	var errs []error
	after := ""
	for {
		recs, err := h.store.List(ctx, kindDeal, "", after, 200)
		if err != nil {
			return res, fmt.Errorf("sweep: list deals: %w", err)
		}
		for _, r := range recs {
			if err := h.sweepDeal(ctx, r.Key, &res); err != nil {
				errs = append(errs, fmt.Errorf("sweep deal %s: %w", r.Key, err))
			}
			if err := h.sweepProofs(ctx, r.Key, &res); err != nil {
				errs = append(errs, fmt.Errorf("sweep proofs of deal %s: %w", r.Key, err))
			}
		}
		if len(recs) < 200 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	now := h.clock.Now()
	if n, err := h.forget(ctx, kindMessage, now.Add(-idemKeep)); err != nil {
		errs = append(errs, err)
	} else {
		res.Forgotten += n
	}
	if _, err := h.forget(ctx, kindSession, now.Add(-sessionKeep)); err != nil {
		errs = append(errs, err)
	}
	// Ended owner sessions, and those stored before internal/session
	// kept them, which open nothing.
	if _, err := h.owners.Purge(ctx); err != nil {
		errs = append(errs, fmt.Errorf("sweep: purge owner sessions: %w", err))
	}
	return res, errors.Join(errs...)
}

func (h *Host) sweepDeal(ctx context.Context, id string, res *SweepResult) error {
	return h.retry(ctx, func() error { return h.sweepDealOnce(ctx, id, res) })
}

func (h *Host) sweepDealOnce(ctx context.Context, id string, res *SweepResult) error {
	d, r, err := h.loadDeal(ctx, id)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	o := &op{h: h, now: now}
	changed, endedNow, republish := false, false, false
	var counted SweepResult
	switch {
	case d.State == stateAwaiting && d.Waiting != nil:
		var e escalation
		if er, err := h.get(ctx, kindEscalate, d.Waiting.Escalation, &e); err == nil && !now.Before(e.Expires) && !e.Done {
			e.Done = true
			o.writes = append(o.writes, swap(er, e, now))
			endDeal(d, stateExpired, now)
			changed, endedNow = true, true
			counted.Expired++
		}
	case d.State == stateActive && d.Waiting != nil:
		// A held execute that nobody approved in time is dropped (H5);
		// the deal goes on.
		var e escalation
		if er, err := h.get(ctx, kindEscalate, d.Waiting.Escalation, &e); err == nil && !now.Before(e.Expires) && !e.Done {
			e.Done = true
			o.writes = append(o.writes, swap(er, e, now))
			d.Waiting = nil
			changed = true
			counted.Expired++
		}
	case d.State == stateProposed && (d.Expires != nil && !now.Before(*d.Expires) || !now.Before(d.Updated.Add(escalationTTL))):
		// A proposed deal nobody binds expires like an escalation nobody
		// decides (H5), or at its own expires if that comes first.
		endDeal(d, stateExpired, now)
		changed, endedNow = true, true
		counted.Expired++
	case d.State == stateActive && d.RevokeAt != nil && !now.Before(*d.RevokeAt):
		endDeal(d, stateRevoked, now)
		changed, endedNow = true, true
		counted.Revoked++
	}
	if d.running() {
		obChanged, err := o.sweepObligations(d)
		if err != nil {
			return err
		}
		changed = changed || obChanged
		if obChanged {
			if err := h.maybeComplete(ctx, o, d); err != nil {
				return err
			}
			endedNow = endedNow || d.ended()
			republish = true
		}
	}
	if d.Activated != nil {
		before := len(d.PaidFor)
		if err := o.payDue(ctx, d); err != nil {
			return err
		}
		payChanged, err := o.sweepPayouts(ctx, d)
		if err != nil {
			return err
		}
		changed = changed || payChanged || len(d.PaidFor) != before
		endedNow = endedNow || payChanged && d.ended()
	}
	if d.running() {
		// Catch up a verification the click writer could not apply.
		for _, t := range d.Tracking {
			var st linkStat
			if _, err := h.get(ctx, kindLinkStat, t.Token, &st); err == nil && st.Verified != nil {
				if ob := d.obligation(t.Obligation); ob != nil && (ob.State == obPending || ob.State == obClaimed) {
					if err := h.verifyByLink(ctx, t.Token, *st.Verified); err != nil {
						return err
					}
					res.Verified++
					return h.sweepDealOnce(ctx, id, res)
				}
			}
		}
	}
	if d.Activated != nil && len(d.Tracking) > 0 || d.Activated != nil && hasPay(d) {
		from := *d.Activated
		if d.OutcomeTo != nil {
			from = *d.OutcomeTo
		}
		final := d.ended() && !d.FinalSent
		if final || d.running() && !now.Before(from.Add(outcomeEvery)) {
			body, err := h.outcome(ctx, d, from, now, final)
			if err != nil {
				return err
			}
			if final || !identifiesOne(body) {
				if err := o.payClicks(ctx, d, body); err != nil {
					return err
				}
				if d.seated() {
					// Every seat gets it, in 0.4; its ids are kept so a
					// consumer seat can attest it (§20.7).
					for _, party := range d.seatIDs() {
						msg := o.messageV(Version04, "outcome", party, d.ID, body)
						o.deliver(party, msg)
						d.recordOutcome(msg)
						counted.Outcomes++
					}
				} else {
					for _, party := range []string{d.Offerer, d.Acceptor} {
						o.deliver(party, o.message("outcome", party, d.ID, body))
						counted.Outcomes++
					}
				}
				to := now
				d.OutcomeTo = &to
				d.FinalSent = d.FinalSent || final
				changed = true
			}
		}
	}
	if !changed {
		return nil
	}
	if endedNow {
		if err := o.plainLinks(ctx, d, "", now); err != nil {
			return err
		}
	}
	if endedNow || republish {
		if err := o.publish(ctx, d, nil); err != nil {
			return err
		}
	}
	o.saveDeal(d, r, false)
	if err := o.commit(ctx, nil); err != nil {
		return err
	}
	res.Outcomes += counted.Outcomes
	res.Expired += counted.Expired
	res.Revoked += counted.Revoked
	return nil
}

// identifiesOne reports an outcome whose money would describe one
// person's purchase: a row with a single sale, refund or reported
// conversion in the period. Such an outcome is delayed until the period
// holds more events, or the deal ends (§14.1); the next one covers the
// whole time since the last outcome sent.
func identifiesOne(b outcomeBody) bool {
	for _, r := range b.Rows {
		events := r.Conversions + r.Refunds
		if events == 0 {
			events = r.AttestedConversions
		}
		if events == 1 {
			return true
		}
	}
	return false
}

// clickEarnings is what pay per click yields for human clicks on the
// payee's tracked obligation, within its cap; nil without such pay.
func clickEarnings(d *dealRecord, obligation string, human int) *Money {
	for _, p := range d.payTerms() {
		if p.per != "click" || p.amount == nil || obligor(d, obligation) != p.payee {
			continue
		}
		m := Money{AmountMinor: clampMinor(new(big.Int).Mul(big.NewInt(int64(human)), big.NewInt(p.amount.AmountMinor))), Currency: p.amount.Currency}
		if p.cap != nil && p.cap.Currency == m.Currency && m.AmountMinor > p.cap.AmountMinor {
			m.AmountMinor = p.cap.AmountMinor
		}
		return &m
	}
	return nil
}

// payClicks records what pay per click owes for one outcome period: the
// human clicks on the payee's tracked links, at the amount per click,
// within what the cap leaves (basis link, S2). Clicks on a direct link
// are never counted, so they never earn (T11).
func (o *op) payClicks(ctx context.Context, d *dealRecord, body outcomeBody) error {
	for _, p := range d.payTerms() {
		if p.per != "click" || p.amount == nil {
			continue
		}
		human := 0
		var depends []string
		for _, row := range body.Rows {
			if obligor(d, row.Obligation) == p.payee {
				human += row.Clicks.Human
				depends = append(depends, row.Obligation)
			}
		}
		if human == 0 {
			continue
		}
		payouts, err := o.opPayouts(ctx, d.ID)
		if err != nil {
			return err
		}
		amount := Money{AmountMinor: clampMinor(new(big.Int).Mul(big.NewInt(int64(human)), big.NewInt(p.amount.AmountMinor))), Currency: p.amount.Currency}
		amount = capped(amount, remaining(p, payouts))
		if amount.AmountMinor == 0 {
			continue
		}
		r := o.newPayout(d, p, amount, "link", depends)
		pr := body.Period
		r.Period = &pr
		if err := o.addPayout(r); err != nil {
			return err
		}
	}
	return nil
}

func hasPay(d *dealRecord) bool {
	for _, ob := range d.t.Obligations {
		if ob.Action == "pay" {
			return true
		}
	}
	return false
}

// outcome counts each tracked link's clicks in [from, to) by class, human
// clicks by referring domain with small sources folded into other, and
// the conversions attributed to the link with what they earned.
func (h *Host) outcome(ctx context.Context, d *dealRecord, from, to time.Time, final bool) (outcomeBody, error) {
	body := outcomeBody{Period: period{From: stamp(from), To: stamp(to)}, Rows: []outcomeRow{}, Final: final}
	for _, t := range d.Tracking {
		row := outcomeRow{Obligation: t.Obligation}
		sources := map[string]int{}
		clicks, err := h.StoredClicks(ctx, t.Token, from, to)
		if err != nil {
			return body, err
		}
		for _, c := range clicks {
			switch c.Class {
			case classHuman:
				row.Clicks.Human++
				sources[c.Source]++
			case classBot:
				row.Clicks.Bot++
			case classPreview:
				row.Clicks.Preview++
			case classTest:
				row.Clicks.Test++
			case classRepeat:
				row.Clicks.Repeat++
			}
		}
		row.Sources = foldSources(sources)
		conv, err := h.conversions(ctx, d, t.Token, from, to)
		if err != nil {
			return body, err
		}
		row.Conversions, row.Refunds, row.AttestedConversions = conv.sales, conv.refunds, conv.attested
		if conv.revenue != nil {
			// Refunds beyond sales owe nothing back here.
			rev := Money{AmountMinor: max(clampMinor(conv.revenue), 0), Currency: conv.currency}
			row.Revenue, row.Earned = &rev, earned(d, conv)
		}
		if e := clickEarnings(d, t.Obligation, row.Clicks.Human); e != nil {
			row.Earned = e
		}
		body.Rows = append(body.Rows, row)
	}
	return body, nil
}

// foldSources names domains with at least sourceFloor human clicks and
// folds the rest into other; other itself is shown only when it reaches
// the floor too, so no row ever describes fewer than five clicks.
func foldSources(m map[string]int) []sourceRow {
	var rows []sourceRow
	other := 0
	for s, n := range m {
		if n >= sourceFloor && s != "other" {
			rows = append(rows, sourceRow{Source: s, Human: n})
		} else {
			other += n
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Human != rows[j].Human {
			return rows[i].Human > rows[j].Human
		}
		return strings.Compare(rows[i].Source, rows[j].Source) < 0
	})
	if other >= sourceFloor {
		rows = append(rows, sourceRow{Source: "other", Human: other})
	}
	return rows
}

// sessionKeep is how long an MCP session's join is kept after it was
// made; MCP sessions end long before.
const sessionKeep = 30 * 24 * time.Hour

// forget deletes the records of kind last written before cutoff: old
// idempotency keys (E7) and old session joins.
func (h *Host) forget(ctx context.Context, kind string, cutoff time.Time) (int, error) {
	after, n := "", 0
	for {
		recs, err := h.store.List(ctx, kind, "", after, 500)
		if err != nil {
			return n, fmt.Errorf("sweep: list %s: %w", kind, err)
		}
		for _, r := range recs {
			if r.UpdatedAt.Before(cutoff) {
				if err := h.store.Delete(ctx, r.Kind, r.Key, r.Version); err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
					return n, fmt.Errorf("sweep: forget %s: %w", kind, err)
				}
				n++
			}
		}
		if len(recs) < 500 {
			return n, nil
		}
		after = recs[len(recs)-1].Key
	}
}
