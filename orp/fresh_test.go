package orp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"frontdesk/orp"
)

// TestStandingOfferFreshness (§20.4): a 0.4 standing offer is stored
// with checked_at, expires_at 90 days later and its claims "unknown"
// (the destination too, and no default the maker did not state), and
// hashed after the host wrote them; at expires_at it leaves discover
// and suggest until its maker sends {id, confirm: true}, which renews
// the window and leaves the claims unknown. A 0.3 offer is unchanged.
func TestStandingOfferFreshness(t *testing.T) {
	e := newEnv(t)
	maker, other := e.autoParty(), e.autoParty()
	terms := map[string]any{
		"title": "Notes freshness window", "kind": "affiliate",
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"claims":     map[string]any{"commission": "unknown"},
		"obligations": []any{map[string]any{"id": "place", "by": "acceptor", "action": "place",
			"content": map[string]any{"link": true, "brief": "Mention the notes app."}, "destination": "https://notes.example/pricing?plan=pro", "proof": []string{"link"}}},
	}
	r, m := e.send(maker, e.msg04(maker, "offer", nil, map[string]any{"terms": terms}))
	if r.Status != 200 || m["orp"] != "0.4" || body(m)["status"] != "listed" {
		t.Fatalf("0.4 offer = %d %s", r.Status, r.Body)
	}
	b := body(m)
	id := b["id"].(string)
	got := b["terms"].(map[string]any)
	wantClaims := map[string]any{"commission": "unknown", "destination": "unknown"}
	if got["checked_at"] != "2026-10-21T09:00:00.000Z" || got["expires_at"] != "2027-01-19T09:00:00.000Z" || !equalJSON(got["claims"], wantClaims) {
		t.Fatalf("terms = %v", got)
	}
	if h, _ := orp.Hash(mustRaw(got)); h != b["terms_hash"] {
		t.Fatalf("terms_hash = %v, want the hash of the stored terms %s", b["terms_hash"], h)
	}
	found := func() (bool, bool) {
		_, d := e.send(other, e.msg04(other, "discover", nil, map[string]any{"want": "offers", "context": map[string]any{"text": "notes app freshness"}}))
		inDiscover := false
		for _, it := range body(d)["items"].([]any) {
			inDiscover = inDiscover || it.(map[string]any)["offer"].(map[string]any)["id"] == id
		}
		sg, err := e.host.Suggest(context.Background(), []byte(`{"text":"notes app freshness window","limit":20}`), testAddr)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(sg)
		var sv map[string]any
		json.Unmarshal(raw, &sv)
		inSuggest := false
		for _, it := range sv["items"].([]any) {
			inSuggest = inSuggest || it.(map[string]any)["offer"].(map[string]any)["id"] == id
		}
		return inDiscover, inSuggest
	}
	if d, s := found(); !d || !s {
		t.Fatalf("fresh offer in discover %v, suggest %v", d, s)
	}
	e.clock.Advance(90 * 24 * time.Hour)
	if d, s := found(); d || s {
		t.Fatalf("offer at expires_at in discover %v, suggest %v, want neither", d, s)
	}
	// Only its maker refreshes it.
	if r, m := e.send(other, e.msg04(other, "offer", nil, map[string]any{"id": id, "confirm": true})); r.Status != 404 {
		t.Fatalf("refresh by another party = %d %v", r.Status, m)
	}
	r, m = e.send(maker, e.msg04(maker, "offer", nil, map[string]any{"id": id, "confirm": true}))
	got = body(m)["terms"].(map[string]any)
	if r.Status != 200 || got["checked_at"] != "2027-01-19T09:00:00.000Z" || got["expires_at"] != "2027-04-19T09:00:00.000Z" || !equalJSON(got["claims"], wantClaims) {
		t.Fatalf("refresh = %d %v", r.Status, body(m))
	}
	if d, s := found(); !d || !s {
		t.Fatalf("refreshed offer in discover %v, suggest %v", d, s)
	}
	// A 0.3 offer carries none of it.
	_, m = e.send(maker, e.msg(maker, "offer", nil, map[string]any{"terms": affiliateTerms}))
	if _, ok := body(m)["terms"].(map[string]any)["checked_at"]; ok || body(m)["terms_hash"] != affiliateHash {
		t.Fatalf("0.3 offer = %v", body(m))
	}
}

// TestAcceptStandingOffer04 (§20.2): accepting a 0.4 standing offer with
// the offer's hash opens a two-party 0.4 deal whose hash, of {terms,
// parties}, differs from it, active with its link; a 0.3 party neither
// finds the offer in discover nor accepts it, as no 0.3 message can
// carry its terms.
func TestAcceptStandingOffer04(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	terms := map[string]any{
		"title": "Notes freshness window", "kind": "affiliate",
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{map[string]any{"id": "place", "by": "acceptor", "action": "place",
			"content": map[string]any{"link": true, "brief": "Mention the notes app."}, "destination": "https://notes.example/pricing?plan=pro", "proof": []string{"link"}}},
	}
	_, m := e.send(maker, e.msg04(maker, "offer", nil, map[string]any{"terms": terms}))
	id, hash := body(m)["id"].(string), body(m)["terms_hash"].(string)
	_, d := e.send(pub, e.msg(pub, "discover", nil, map[string]any{"want": "offers", "context": map[string]any{"text": "notes app freshness"}}))
	for _, it := range body(d)["items"].([]any) {
		if it.(map[string]any)["offer"].(map[string]any)["id"] == id {
			t.Fatal("a 0.3 discover found a 0.4 offer")
		}
	}
	if r, m := e.send(pub, e.msg(pub, "accept", nil, map[string]any{"offer": id, "terms_hash": hash})); r.Status != 404 {
		t.Fatalf("0.3 accept of a 0.4 offer = %d %v", r.Status, m)
	}
	r, m := e.send(pub, e.msg04(pub, "accept", nil, map[string]any{"offer": id, "terms_hash": hash}))
	b := body(m)
	if r.Status != 200 || m["orp"] != "0.4" || b["state"] != "active" || b["terms_hash"] == hash || len(b["parties"].([]any)) != 2 || linkOf(b, "place") == "" {
		t.Fatalf("0.4 accept = %d %s", r.Status, r.Body)
	}
	want, _ := orp.SeatsHash(mustRaw(b["terms"]), seatsOf(t, b["parties"]))
	if b["terms_hash"] != want {
		t.Fatalf("deal hash = %v, want %s", b["terms_hash"], want)
	}
}
