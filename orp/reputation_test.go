package orp_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"frontdesk/internal/golden"
	"frontdesk/orp"
)

func score(n int) *int { return &n }

// TestReputationFixture computes orp-rep-1 over a fixed history and
// compares it with the score worked out by hand (§15.3):
//
//	provider verified, C1 (unknown, standing 0.25), 180 days ago  1   × 1   × 0.25 × 0.5 = 0.125
//	link verified, C1 again (1/2), today                          0.9 × 1/2 × 0.25       = 0.1125
//	proof_url verified, C2 (score 800, standing 0.85)             0.7 × 1   × 0.85       = 0.595
//	failed receipt, C2 again (1/2)                                1   × 1/2 × 0.85       = 0.425 (negative)
//	lost dispute, C3 (score 1200, standing 1)                     2   × 1   × 1          = 2     (negative)
//	attestation verified, C3                                      no input
//	platform_check verified, C4 (unknown)                         1   × 1   × 0.25       = 0.25
//
// The k of 1/k counts a counterparty's events in time order, so the
// older provider receipt is C1's first. Positive 1.0825 of total 3.5075:
// the Wilson lower bound at z = 1.96 is 0.0600, so the score is 60.
func TestReputationFixture(t *testing.T) {
	now := time.Date(2026, 10, 21, 0, 0, 0, 0, time.UTC)
	events := []orp.RepEvent{
		{Kind: "verified", Method: "link", Counterparty: "C1", At: now},
		{Kind: "verified", Method: "provider", Counterparty: "C1", At: now.Add(-180 * 24 * time.Hour)},
		{Kind: "verified", Method: "proof_url", Counterparty: "C2", At: now},
		{Kind: "failed", Counterparty: "C2", At: now},
		{Kind: "lost", Counterparty: "C3", At: now},
		{Kind: "verified", Method: "attestation", Counterparty: "C3", At: now},
		{Kind: "verified", Method: "platform_check", Counterparty: "C4", At: now},
	}
	standing := map[string]*int{"C2": score(800), "C3": score(1200)}
	lookup := func(c string) *int { return standing[c] }
	r := orp.ComputeReputation(events, lookup, true, now)
	got := []any{*r.Score, round(r.Verified), round(r.Failed), r.DisputesLost, r.Counterparties, round(r.EvidenceWeight)}
	want := []any{60, 1.0825, 2.425, 1, 4, 3.5075}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("reputation = %v, want %v", got, want)
		}
	}
	// Unclaimed, or below weight 3, the score is null.
	if r := orp.ComputeReputation(events, lookup, false, now); r.Score != nil {
		t.Fatalf("unclaimed score = %d, want null", *r.Score)
	}
	if r := orp.ComputeReputation(events[:4], lookup, true, now); r.Score != nil {
		t.Fatalf("score at weight %.4f = %d, want null", r.EvidenceWeight, *r.Score)
	}
}

// round keeps four decimals, so float sums compare exactly.
func round(x float64) float64 { return math.Round(x*10000) / 10000 }

// TestReputationMessage: a party asks with reputation and subject; the
// host answers with a signed orp-rep-1 attestation of aggregate
// components, null until the subject is claimed and has weight 3, and
// counting the host's link receipts and failed deadlines (§15.3).
func TestReputationMessage(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		pub := e.autoParty()
		m1, m2 := e.autoParty(), e.autoParty()
		_, active := e.directDeal(m1, pub, affiliateTerms)
		e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, "")
		e.host.Flush(ctx)
		late := termsWith("A mention within a day")
		late["obligations"] = []any{
			map[string]any{"id": "mention", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
				"destination": "https://acmenotes.example/", "due": "P1D", "proof": []string{"link"}},
			map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": map[string]any{"amount_minor": 5000, "currency": "EUR"}},
		}
		deal2, _ := e.directDeal(m2, pub, late)
		e.clock.Advance(25 * time.Hour)
		e.sweep()
		if s := e.snapshot(pub, deal2); obState(s, "mention") != "failed" {
			t.Fatalf("after the deadline = %v", s["obligations"])
		}
		rs := e.messages(pub, "receipt")
		if last := body(rs[len(rs)-1]); last["result"] != "failed" || last["obligation"] != "mention" || last["method"] != "link" {
			t.Fatalf("receipt = %v", last)
		}
		ask := func() map[string]any {
			r, m := e.send(m1, e.msg(m1, "reputation", nil, map[string]any{"subject": pub.id}))
			if r.Status != 200 || m["sig"] == nil || m["re"] == nil {
				t.Fatalf("reputation = %d %v", r.Status, m)
			}
			raw, _ := json.Marshal(m)
			noPersonalData(t, raw, m2.id) // components never list counterparties
			return body(m)
		}
		b := ask()
		comp, _ := json.Marshal(b["components"])
		if b["score"] != nil || b["algorithm"] != "orp-rep-1" || string(comp) != `{"counterparties":2,"disputes_lost":0,"evidence_weight":0.5,"failed":0.3,"verified":0.2}` {
			t.Fatalf("reputation = %v %s", b, comp)
		}
		if _, m := e.send(m1, e.msg(m1, "reputation", nil, map[string]any{"subject": "orp:hub.example/p_nobody"})); errCode(m) != "not_found" {
			t.Fatalf("unknown subject = %v", m)
		}
		if _, err := e.host.Reputation(ctx, pub.id); err != nil {
			t.Fatal(err)
		}
	})
}

// TestL3MessagesGolden pins the exact bytes of a signed payout record and
// a signed reputation attestation.
func TestL3MessagesGolden(t *testing.T) {
	e := newEnv(t)
	_, pub, _, po := e.saleDeal()
	var payout []byte
	page, err := e.host.Inbox(context.Background(), pub.token, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range page.Messages {
		var m struct {
			Type string
			Body struct{ Payout string }
		}
		json.Unmarshal(raw, &m)
		if m.Type == "payout" && m.Body.Payout == po {
			payout = raw
		}
	}
	golden.Check(t, "payout_held.json", payout)
	asker := e.join("{}")
	r := e.host.Send(context.Background(), asker.token, testAddr, e.msg(asker, "reputation", nil, map[string]any{"subject": pub.id}))
	golden.Check(t, "reputation.json", r.Body)
}
