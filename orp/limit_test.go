package orp_test

import "testing"

// TestOpenDealsLimit enforces the join response's open_deals: an
// unclaimed party at its limit enters no further deal, as either side,
// until one of its deals ends.
func TestOpenDealsLimit(t *testing.T) {
	e := newEnv(t)
	pub := e.join("{}")
	var deals []string
	for i := 0; i < 5; i++ {
		maker := e.join("{}")
		offer := e.listOffer(maker)
		r, m := e.send(pub, e.msg(pub, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
		if r.Status != 200 {
			t.Fatalf("accept %d = %d %v", i, r.Status, m)
		}
		deals = append(deals, m["deal"].(string))
	}
	maker := e.join("{}")
	offer := e.listOffer(maker)
	accept := func() (int, map[string]any) {
		r, m := e.send(pub, e.msg(pub, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
		return r.Status, m
	}
	if code, m := accept(); code != 403 || errCode(m) != "forbidden" {
		t.Fatalf("sixth accept = %d %v, want 403 forbidden", code, m)
	}
	// A directed offer to the full party is refused too.
	if r, m := e.send(maker, e.msg(maker, "offer", map[string]any{"to": pub.id}, map[string]any{"terms": affiliateTerms})); r.Status != 403 || errCode(m) != "forbidden" {
		t.Fatalf("directed offer to a full party = %d %v", r.Status, m)
	}
	// Declining one frees a place.
	if r, m := e.send(pub, e.msg(pub, "decline", map[string]any{"deal": deals[0]}, map[string]any{"reason": "timing"})); r.Status != 200 {
		t.Fatalf("decline = %d %v", r.Status, m)
	}
	if code, m := accept(); code != 200 || body(m)["state"] != "awaiting" {
		t.Fatalf("accept after a decline = %d %v", code, m)
	}
}
