package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"time"

	"frontdesk/store"
)

// Reputation event kinds: verified and failed come from host receipts
// (ReputationInputs); lost disputes and completed deals, which trust
// shows beside the score, are kept as repRecords.
const (
	repVerified  = "verified"
	repFailed    = "failed"
	repLost      = "lost"
	repCompleted = "completed"
)

// Algorithm constants of orp-rep-1 (§15.3).
const (
	repAlgorithm = "orp-rep-1"
	repHalfLife  = 180 * 24 * time.Hour
	repZ         = 1.96
	repMinWeight = 3.0
	repValid     = 24 * time.Hour
)

// methodWeight is the reputation weight of a verified receipt by method
// (§13). attestation weighs 0: it never counts (P3).
var methodWeight = map[string]float64{
	"provider": 1, "platform_check": 1, "link": 0.9, "witness": 0.8, "proof_url": 0.7, "attestation": 0,
}

// repRecord is a lost dispute or a completed deal of a party, kept under
// the party's opaque id. It names the counterparty for the 1/k rule and
// the standing weight; what the host answers never lists counterparties.
type repRecord struct {
	Kind         string    `json:"kind"`
	Method       string    `json:"method,omitempty"`
	Counterparty string    `json:"counterparty"`
	Deal         string    `json:"deal"`
	At           time.Time `json:"at"`
}

// repWrite stores one event for subject.
func (o *op) repWrite(subject string, r repRecord) {
	opaque := o.h.opaqueOf(subject)
	if opaque == "" {
		return
	}
	key := fmt.Sprintf("%s/%019d-%s", opaque, r.At.UnixNano(), o.h.randomString(6, alphabet))
	o.writes = append(o.writes, create(kindRep, key, r, o.now))
}

// repLost records a lost dispute for loser.
func (o *op) repLost(d *dealRecord, loser, winner string) {
	o.repWrite(loser, repRecord{Kind: repLost, Counterparty: winner, Deal: d.ID, At: o.now})
}

// repCompletedDeal records a completed deal for both parties, for trust.
func (o *op) repCompletedDeal(d *dealRecord) {
	for _, p := range []string{d.Offerer, d.Acceptor} {
		o.repWrite(p, repRecord{Kind: repCompleted, Counterparty: d.other(p), Deal: d.ID, At: o.now})
	}
}

// RepEvent is one input of a reputation computation.
type RepEvent struct {
	Kind         string // verified, failed or lost
	Method       string // for verified
	Counterparty string
	At           time.Time
}

// RepResult is an orp-rep-1 computation: the score (nil when null) and
// its aggregate components.
type RepResult struct {
	Score          *int
	Verified       float64 // positive weight
	Failed         float64 // negative weight: failed receipts and lost disputes
	DisputesLost   int
	Counterparties int
	EvidenceWeight float64 // total weight
}

// ComputeReputation is orp-rep-1 (§15.3) over events: a verified receipt
// adds its method weight, a failed receipt subtracts 1 and a lost dispute
// 2; the k-th event with one counterparty weighs 1/k; each event weighs
// 0.25 + 0.75 × min(1, score/1000) of its counterparty's score (an
// unknown score counts as 0); events halve in weight every 180 days. The
// score is round(1000 × the Wilson lower bound at z = 1.96) of positive
// over total weight, or null while the total is below 3 or the subject
// is not claimed.
func ComputeReputation(events []RepEvent, standing func(counterparty string) *int, claimed bool, now time.Time) RepResult {
	events = slices.Clone(events)
	sort.SliceStable(events, func(i, j int) bool { return events[i].At.Before(events[j].At) })
	seen := map[string]int{}
	var res RepResult
	for _, e := range events {
		var base float64
		switch e.Kind {
		case repVerified:
			w, ok := methodWeight[e.Method]
			if !ok || e.Method == "attestation" {
				continue // attestation receipts are no input (P3)
			}
			base = w
		case repFailed:
			base = 1
		case repLost:
			base = 2
			res.DisputesLost++
		default:
			continue
		}
		seen[e.Counterparty]++
		w := base / float64(seen[e.Counterparty])
		score := 0.0
		if s := standing(e.Counterparty); s != nil {
			score = float64(*s)
		}
		w *= 0.25 + 0.75*math.Min(1, score/1000)
		w *= math.Pow(0.5, float64(now.Sub(e.At))/float64(repHalfLife))
		if e.Kind == repVerified {
			res.Verified += w
		} else {
			res.Failed += w
		}
	}
	res.Counterparties = len(seen)
	res.EvidenceWeight = res.Verified + res.Failed
	if res.EvidenceWeight >= repMinWeight && claimed {
		s := int(math.Round(1000 * wilsonLower(res.Verified, res.EvidenceWeight)))
		res.Score = &s
	}
	return res
}

// wilsonLower is the Wilson score interval's lower bound for pos
// positive out of n, at z = 1.96.
func wilsonLower(pos, n float64) float64 {
	p := pos / n
	z2 := repZ * repZ
	return (p + z2/(2*n) - repZ*math.Sqrt((p*(1-p)+z2/(4*n))/n)) / (1 + z2/n)
}

// repEvents reads a party's stored events.
func (h *Host) repEvents(ctx context.Context, opaque string) ([]repRecord, error) {
	var out []repRecord
	after := ""
	for {
		recs, err := h.store.List(ctx, kindRep, opaque+"/", after, 500)
		if err != nil {
			return nil, fmt.Errorf("list reputation: %w", err)
		}
		for _, r := range recs {
			var e repRecord
			if json.Unmarshal(r.Value, &e) == nil {
				out = append(out, e)
			}
		}
		if len(recs) < 500 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// repInputs are a party's reputation events: its host receipts, verified
// or failed, and its lost disputes.
func (h *Host) repInputs(ctx context.Context, party string) ([]RepEvent, error) {
	ins, err := h.ReputationInputs(ctx, party)
	if err != nil {
		return nil, err
	}
	var events []RepEvent
	for _, in := range ins {
		switch in.Result {
		case "verified":
			events = append(events, RepEvent{Kind: repVerified, Method: in.Method, Counterparty: in.Counterparty, At: in.At})
		case "failed":
			events = append(events, RepEvent{Kind: repFailed, Method: in.Method, Counterparty: in.Counterparty, At: in.At})
		}
	}
	stored, err := h.repEvents(ctx, h.opaqueOf(party))
	if err != nil {
		return nil, err
	}
	for _, e := range stored {
		if e.Kind == repLost {
			events = append(events, RepEvent{Kind: repLost, Counterparty: e.Counterparty, At: e.At})
		}
	}
	return events, nil
}

// Reputation computes a party's orp-rep-1 at now. The counterparties'
// standing is their own score computed one level down, where every
// counterparty counts as unknown, so a ring of parties cannot lift
// itself and the computation ends.
func (h *Host) Reputation(ctx context.Context, party string) (RepResult, error) {
	return h.reputationAt(ctx, party, h.clock.Now(), 1)
}

func (h *Host) reputationAt(ctx context.Context, party string, now time.Time, depth int) (RepResult, error) {
	opaque := h.opaqueOf(party)
	var p Party
	if _, err := h.get(ctx, kindParty, opaque, &p); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return RepResult{}, refuse(NotFound, "No such party on this host.")
		}
		return RepResult{}, err
	}
	events, err := h.repInputs(ctx, party)
	if err != nil {
		return RepResult{}, err
	}
	standings := map[string]*int{}
	var ferr error
	standing := func(c string) *int {
		if depth == 0 {
			return nil
		}
		if s, ok := standings[c]; ok {
			return s
		}
		r, err := h.reputationAt(ctx, c, now, depth-1)
		if err != nil && ferr == nil && AsError(err).Code != NotFound {
			ferr = err
		}
		standings[c] = r.Score
		return r.Score
	}
	res := ComputeReputation(events, standing, p.Claimed, now)
	return res, ferr
}

// trust is what discovery shows of a party beside a result (§9.2):
// its score, its completed deals and the methods its work was verified by.
func (h *Host) trust(ctx context.Context, party string) (map[string]any, error) {
	res, err := h.Reputation(ctx, party)
	if err != nil {
		return nil, err
	}
	stored, err := h.repEvents(ctx, h.opaqueOf(party))
	if err != nil {
		return nil, err
	}
	completed := 0
	for _, e := range stored {
		if e.Kind == repCompleted {
			completed++
		}
	}
	ins, err := h.ReputationInputs(ctx, party)
	if err != nil {
		return nil, err
	}
	methods := []string{}
	for _, in := range ins {
		if in.Result == "verified" && !slices.Contains(methods, in.Method) {
			methods = append(methods, in.Method)
		}
	}
	sort.Strings(methods)
	t := map[string]any{"reputation": res.Score, "completed": completed}
	if len(methods) > 0 {
		t["verification"] = methods
	}
	return t, nil
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// reputation answers a party's query with a signed attestation using
// orp-rep-1 (§15.3): aggregate components only, never counterparties.
func (h *Host) reputation(ctx context.Context, o *op) error {
	var b struct {
		Subject string `json:"subject"`
	}
	if err := o.body(&b); err != nil {
		return err
	}
	res, err := h.reputationAt(ctx, b.Subject, o.now, 1)
	if err != nil {
		return err
	}
	body := map[string]any{
		"subject": b.Subject, "algorithm": repAlgorithm, "score": res.Score,
		"components": map[string]any{"verified": round1(res.Verified), "failed": round1(res.Failed), "disputes_lost": res.DisputesLost,
			"counterparties": res.Counterparties, "evidence_weight": round1(res.EvidenceWeight)},
		"computed_at": stamp(o.now), "valid_until": stamp(o.now.Add(repValid)),
	}
	msg, err := o.signed("reputation", o.party.ID, "", body)
	if err != nil {
		return err
	}
	o.status, o.reply = http.StatusOK, msg
	return nil
}
