package orp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"frontdesk/orp"
	"frontdesk/store"
)

// setMinReputation sets counterparties.min_reputation in p's stored
// constraints, as its owner would.
func (e *env) setMinReputation(p *party, min int) {
	e.t.Helper()
	ctx := context.Background()
	rec, err := e.db.Get(ctx, "orp.party", p.id[strings.LastIndex(p.id, "/")+1:])
	if err != nil {
		e.t.Fatal(err)
	}
	var stored map[string]any
	json.Unmarshal(rec.Value, &stored)
	c, _ := stored["constraints"].(map[string]any)
	c["counterparties"] = map[string]any{"min_reputation": min}
	rec.Value, _ = json.Marshal(stored)
	if _, err := e.db.Swap(ctx, rec); err != nil {
		e.t.Fatal(err)
	}
}

// verifiedHistory gives p n provider-verified receipts, each from a
// different counterparty, as host receipts would record them.
func (e *env) verifiedHistory(p *party, n int) {
	e.t.Helper()
	opaque := p.id[strings.LastIndex(p.id, "/")+1:]
	var writes []store.Write
	for i := range n {
		in := orp.ReputationInput{Deal: fmt.Sprintf("d_fixture_%02d", i), Obligation: "place",
			Counterparty: fmt.Sprintf("orp:hub.example/p_fixture%02d", i), Method: "provider", Result: "verified", At: e.clock.Now()}
		v, _ := json.Marshal(in)
		writes = append(writes, store.Write{Op: store.OpCreate, Record: store.Record{Kind: "orp.repin", Key: opaque + "/" + in.Deal + "/place", Value: v, UpdatedAt: e.clock.Now()}})
	}
	if _, err := e.db.Apply(context.Background(), writes); err != nil {
		e.t.Fatal(err)
	}
}

// TestMinReputationUsesScore: min_reputation weighs the counterparty's
// orp-rep-1 score on this host (§8.4, §11.1): a score at or above the
// minimum binds by mandate, one below it or a null score escalates with
// low_reputation.
func TestMinReputationUsesScore(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		maker, pub := e.autoParty(), e.autoParty()
		offer := func() map[string]any {
			t.Helper()
			r, m := e.send(maker, e.msg(maker, "offer", map[string]any{"to": pub.id}, map[string]any{"terms": affiliateTerms}))
			if r.Status != 200 {
				t.Fatalf("offer = %d %v", r.Status, m)
			}
			return body(m)
		}
		lowReputation := func(b map[string]any) bool {
			w, _ := b["waiting"].(map[string]any)
			raw, _ := json.Marshal(w["reasons"])
			return b["state"] == "awaiting" && strings.Contains(string(raw), `"low_reputation"`)
		}
		// Unclaimed, the counterparty's score is null: unknown escalates.
		e.verifiedHistory(pub, 16)
		e.setMinReputation(maker, 1)
		if b := offer(); !lowReputation(b) {
			t.Fatalf("null score = %v, want low_reputation", b)
		}
		e.claimByMail(mustJoinClaim(t, e, pub), "publisher@example.org")
		res, err := e.host.Reputation(ctx, pub.id)
		if err != nil || res.Score == nil {
			t.Fatalf("fixture score = %v %v", res.Score, err)
		}
		score := *res.Score
		e.setMinReputation(maker, score)
		if b := offer(); b["state"] != "proposed" || b["waiting"] != nil {
			t.Fatalf("score %d at min %d = %v, want proposed by mandate", score, score, b)
		}
		e.setMinReputation(maker, score+1)
		if b := offer(); !lowReputation(b) {
			t.Fatalf("score %d below min %d = %v, want low_reputation", score, score+1, b)
		}
	})
}
