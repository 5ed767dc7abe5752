package orp_test

import (
	"context"
	"net/url"
	"testing"
	"time"
)

// TestRevokeLater: a revoke with a later effective leaves the deal
// running until then; from effective the links turn plain, but verified
// work stays verified, earned money stays owed and released after its
// hold, and a sale inside the window of a click made before effective
// still counts (§15.1).
func TestRevokeLater(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		maker, pub := e.autoParty(), e.autoParty()
		deal, active := e.directDeal(maker, pub, affiliateTerms)
		link := linkOf(active, "place")
		via := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
		e.host.Flush(ctx)
		e.stripe("evt_r1", "checkout.session.completed", map[string]any{"id": "cs_r1", "amount_total": 5000, "currency": "eur", "client_reference_id": via, "payment_intent": "pi_r1"})
		effective := e.clock.Now().Add(days(7))
		r, m := e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request", "effective": effective.Format(time.RFC3339)}))
		if r.Status != 200 || body(m)["state"] != "active" {
			t.Fatalf("revoke later = %d %v", r.Status, m)
		}
		e.clock.Advance(days(8))
		e.sweep()
		s := e.snapshot(pub, deal)
		if s["state"] != "revoked" || obState(s, "place") != "verified" {
			t.Fatalf("after effective = %v %v", s["state"], s["obligations"])
		}
		if u, _ := url.Parse(e.click(link, map[string]string{"User-Agent": browser}, "")); u.Query().Get("via") != "" {
			t.Fatal("a plain link added a click id")
		}
		res := e.stripe("evt_r2", "checkout.session.completed", map[string]any{"id": "cs_r2", "amount_total": 5000, "currency": "eur", "client_reference_id": via, "payment_intent": "pi_r2"})
		if !res.Counted {
			t.Fatalf("sale in the window of an earlier click = %+v, want counted", res)
		}
		ps := e.payouts(deal)
		if len(ps) != 2 || ps[0].State != "held" {
			t.Fatalf("payouts = %+v, want two owed", ps)
		}
		e.clock.Advance(days(31))
		e.sweep()
		for _, p := range e.payouts(deal) {
			if p.State != "payable" {
				t.Fatalf("payout %s = %s after its hold, want payable", p.ID, p.State)
			}
		}
	})
}

// TestRevokeObligationLater: an obligation revoked with a later
// effective runs until then and is revoked at effective.
func TestRevokeObligationLater(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	deal, _ := e.directDeal(maker, pub, affiliateTerms)
	effective := e.clock.Now().Add(days(2))
	e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "obligation", "obligation": "place", "reason": "other", "effective": effective.Format(time.RFC3339)}))
	if s := e.snapshot(pub, deal); obState(s, "place") != "pending" {
		t.Fatalf("before effective = %v", s["obligations"])
	}
	e.clock.Advance(days(2))
	e.sweep()
	if s := e.snapshot(pub, deal); obState(s, "place") != "revoked" {
		t.Fatalf("at effective = %v", s["obligations"])
	}
}

// TestRevokeOffer: revoking a standing offer stops new deals from it;
// a deal it already opened continues (§15.1).
func TestRevokeOffer(t *testing.T) {
	e := newEnv(t)
	maker, pub, late := e.autoParty(), e.autoParty(), e.autoParty()
	_, m := e.send(maker, e.msg(maker, "offer", nil, map[string]any{"terms": affiliateTerms}))
	offer := body(m)["id"].(string)
	_, m = e.send(pub, e.msg(pub, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
	deal, _ := m["deal"].(string)
	if w, _ := body(m)["waiting"].(map[string]any); w != nil {
		m = e.approve(pub, w["url"].(string)) // claims are not checked, so accepting a standing offer asks
	}
	if body(m)["state"] != "active" {
		t.Fatalf("accept = %v", m)
	}
	if r, m := e.send(maker, e.msg(maker, "revoke", nil, map[string]any{"scope": "offer", "offer": offer, "reason": "owner_request"})); r.Status != 200 || body(m)["status"] != "revoked" {
		t.Fatalf("revoke offer = %d %v", r.Status, m)
	}
	if _, m := e.send(late, e.msg(late, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash})); errCode(m) != "not_found" {
		t.Fatalf("accept after the revoke = %v", m)
	}
	if _, m := e.send(pub, e.msg(pub, "revoke", nil, map[string]any{"scope": "offer", "offer": offer, "reason": "other"})); errCode(m) != "not_found" {
		t.Fatalf("another party revoking the offer = %v", m)
	}
	if s := e.snapshot(pub, deal); s["state"] != "active" {
		t.Fatalf("the open deal = %v, want it to continue", s["state"])
	}
}
