package orp_test

import (
	"fmt"
	"testing"

	"frontdesk/orp"
)

// termsWith is affiliateTerms with another title, so each round's hash
// differs.
func termsWith(title string) map[string]any {
	t := map[string]any{}
	for k, v := range affiliateTerms {
		t[k] = v
	}
	t["title"] = title
	return t
}

func boundParties(snapshot map[string]any) []string {
	var out []string
	for _, b := range snapshot["bound"].([]any) {
		out = append(out, b.(map[string]any)["party"].(string))
	}
	return out
}

// TestCounterClearsAcceptances: three counters, each replacing the terms
// and clearing every earlier acceptance, so only the counter's sender is
// bound; then the other party accepts the last hash and the deal is
// active (§9.4, H2). Accepting an earlier round's hash is terms_mismatch.
func TestCounterClearsAcceptances(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		a, b := e.autoParty(), e.autoParty()
		r, m := e.send(a, e.msg(a, "offer", map[string]any{"to": b.id}, map[string]any{"terms": termsWith("Round 1")}))
		deal := m["deal"].(string)
		if got := boundParties(body(m)); r.Status != 200 || len(got) != 1 || got[0] != a.id {
			t.Fatalf("offer = %d %v", r.Status, m)
		}
		first := body(m)["terms_hash"]
		senders := []*party{b, a, b}
		var last map[string]any
		for i, p := range senders {
			r, m := e.send(p, e.msg(p, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith(fmt.Sprintf("Round %d", i+2))}))
			s := body(m)
			if r.Status != 200 || s["state"] != "proposed" || s["round"] != float64(i+2) {
				t.Fatalf("counter %d = %d %v", i+1, r.Status, m)
			}
			if got := boundParties(s); len(got) != 1 || got[0] != p.id {
				t.Fatalf("counter %d bound = %v, want only the sender %s", i+1, got, p.id)
			}
			last = s
		}
		// The counterparty got each counter with its terms in its inbox.
		if n := len(e.messages(a, "counter")); n != 2 {
			t.Fatalf("%d counters delivered to a, want 2", n)
		}
		if _, m := e.send(a, e.msg(a, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": first})); errCode(m) != "terms_mismatch" {
			t.Fatalf("accepting round 1 = %v, want terms_mismatch", m)
		}
		r, m = e.send(a, e.msg(a, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": last["terms_hash"]}))
		if s := body(m); r.Status != 200 || s["state"] != "active" || len(boundParties(s)) != 2 || s["terms"].(map[string]any)["title"] != "Round 4" {
			t.Fatalf("accept = %d %v", r.Status, m)
		}
	})
}

// TestRoundCap: a deal has at most 20 rounds; the counter that would make
// the 21st is refused with state_conflict and changes nothing (§9.4).
func TestRoundCap(t *testing.T) {
	e := newEnv(t)
	a, b := e.autoParty(), e.autoParty()
	_, m := e.send(a, e.msg(a, "offer", map[string]any{"to": b.id}, map[string]any{"terms": termsWith("Round 1")}))
	deal := m["deal"].(string)
	for round := 2; round <= 20; round++ {
		p := []*party{a, b}[round%2]
		if r, m := e.send(p, e.msg(p, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith(fmt.Sprintf("Round %d", round))})); r.Status != 200 {
			t.Fatalf("round %d = %d %v", round, r.Status, m)
		}
	}
	r, m := e.send(b, e.msg(b, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith("Round 21")}))
	if r.Status != 409 || errCode(m) != "state_conflict" {
		t.Fatalf("round 21 = %d %v, want 409 state_conflict", r.Status, m)
	}
	if s := e.snapshot(a, deal); s["round"] != float64(20) || s["terms"].(map[string]any)["title"] != "Round 20" {
		t.Fatalf("after the refusal = round %v %v", s["round"], s["terms"].(map[string]any)["title"])
	}
}

// TestAmendment: a counter on an active deal proposes new terms under the
// amend step; the old hash stays in force, its tracked link keeps
// working, until both parties accept the new hash (§9.4).
func TestAmendment(t *testing.T) {
	e := newEnv(t)
	a, b := e.autoParty(), e.autoParty()
	deal, active := e.directDeal(a, b, affiliateTerms)
	link := linkOf(active, "place")
	newTerms := termsWith("Acme Notes: 35% of first-year revenue")
	r, m := e.send(a, e.msg(a, "counter", map[string]any{"deal": deal}, map[string]any{"terms": newTerms}))
	s := body(m)
	if r.Status != 200 || s["state"] != "active" || s["terms_hash"] != affiliateHash {
		t.Fatalf("amend = %d %v, want active under the old hash", r.Status, m)
	}
	newHash, _ := orp.Hash(mustMarshal(newTerms))
	// The old hash cannot be accepted again; the new one binds b.
	if _, m := e.send(b, e.msg(b, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": affiliateHash})); errCode(m) != "state_conflict" {
		t.Fatalf("accept old = %v", m)
	}
	r, m = e.send(b, e.msg(b, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": newHash}))
	s = body(m)
	if r.Status != 200 || s["state"] != "active" || s["terms_hash"] != newHash || linkOf(s, "place") != link {
		t.Fatalf("accept new = %d %v, want the new hash with the same link", r.Status, m)
	}
}

// TestAmendAsks: with the amend step on ask, the amendment waits for its
// sender's approval, and nothing changes until then.
func TestAmendAsks(t *testing.T) {
	e := newEnv(t)
	a, b := e.autoParty(), e.autoParty()
	deal, _ := e.directDeal(a, b, affiliateTerms)
	e.setStep(a, "amend", "ask")
	_, m := e.send(a, e.msg(a, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith("Amended")}))
	w, _ := body(m)["waiting"].(map[string]any)
	if body(m)["state"] != "active" || w["step"] != "amend" {
		t.Fatalf("held amend = %v", m)
	}
	e.setStep(a, "amend", "off")
	if _, m := e.send(a, e.msg(a, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith("Again")})); errCode(m) != "step_off" {
		t.Fatalf("amend off = %v", m)
	}
}

// TestRequestAnsweredByOffer: a request is delivered and commits nobody;
// the answer is a directed offer with re naming it. An offer whose re
// names no request to its sender is refused (§9.4).
func TestRequestAnsweredByOffer(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	req := e.msg(maker, "request", map[string]any{"to": pub.id}, map[string]any{"kinds": []string{"affiliate"}, "actions": []string{"place"}, "note": "Room in an issue next week?"})
	if r, _ := e.send(maker, req); r.Status != 202 {
		t.Fatalf("request = %d", r.Status)
	}
	reqs := e.messages(pub, "request")
	if len(reqs) != 1 {
		t.Fatalf("%d requests delivered", len(reqs))
	}
	reqID := reqs[0]["id"].(string)
	if _, m := e.send(pub, e.msg(pub, "offer", map[string]any{"to": maker.id, "re": "m_unknown_1"}, map[string]any{"terms": affiliateTerms})); errCode(m) != "not_found" {
		t.Fatalf("offer answering nothing = %v", m)
	}
	r, m := e.send(pub, e.msg(pub, "offer", map[string]any{"to": maker.id, "re": reqID}, map[string]any{"terms": affiliateTerms}))
	if r.Status != 200 || body(m)["state"] != "proposed" {
		t.Fatalf("answer = %d %v", r.Status, m)
	}
}

// TestRequestAnsweredByDecline: a request may be declined with re naming
// it and no deal; the decline reaches the requester, and a decline whose
// re names no request to its sender is refused and delivers nothing (§9.4).
func TestRequestAnsweredByDecline(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	req := e.msg(maker, "request", map[string]any{"to": pub.id}, map[string]any{"kinds": []string{"affiliate"}, "actions": []string{"place"}})
	if r, _ := e.send(maker, req); r.Status != 202 {
		t.Fatalf("request = %d", r.Status)
	}
	reqID := e.messages(pub, "request")[0]["id"].(string)
	if _, m := e.send(pub, e.msg(pub, "decline", map[string]any{"to": maker.id, "re": "m_unknown_1"}, map[string]any{"reason": "timing"})); errCode(m) != "not_found" {
		t.Fatalf("decline answering nothing = %v", m)
	}
	if _, m := e.send(pub, e.msg(pub, "decline", map[string]any{"re": reqID}, map[string]any{"reason": "timing"})); errCode(m) != "invalid_message" {
		t.Fatalf("decline of a request without to = %v", m)
	}
	if n := len(e.messages(maker, "decline")); n != 0 {
		t.Fatalf("refused declines delivered %d messages", n)
	}
	r, m := e.send(pub, e.msg(pub, "decline", map[string]any{"to": maker.id, "re": reqID}, map[string]any{"reason": "timing"}))
	if r.Status != 202 {
		t.Fatalf("decline of request = %d %v", r.Status, m)
	}
	got := e.messages(maker, "decline")
	if len(got) != 1 || got[0]["re"] != reqID || body(got[0])["reason"] != "timing" {
		t.Fatalf("requester got %v", got)
	}
}
