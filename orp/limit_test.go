package orp_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

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
	// A directed offer to the full party does not count against it, but
	// the full party cannot accept it.
	r, m := e.send(maker, e.msg(maker, "offer", map[string]any{"to": pub.id}, map[string]any{"terms": affiliateTerms}))
	if r.Status != 200 {
		t.Fatalf("directed offer to a full party = %d %v", r.Status, m)
	}
	directed := m["deal"].(string)
	e.approve(maker, body(m)["waiting"].(map[string]any)["url"].(string))
	if r, m := e.send(pub, e.msg(pub, "accept", map[string]any{"deal": directed}, map[string]any{"terms_hash": affiliateHash})); r.Status != 403 || errCode(m) != "forbidden" {
		t.Fatalf("a full party's accept of a directed offer = %d %v, want forbidden", r.Status, m)
	}
	// Declining one frees a place.
	if r, m := e.send(pub, e.msg(pub, "decline", map[string]any{"deal": deals[0]}, map[string]any{"reason": "timing"})); r.Status != 200 {
		t.Fatalf("decline = %d %v", r.Status, m)
	}
	if code, m := accept(); code != 200 || body(m)["state"] != "awaiting" {
		t.Fatalf("accept after a decline = %d %v", code, m)
	}
}

// TestOpenDealsNotGriefed: a party's places count only deals it opened or
// approved (§9.3). Unsolicited offers from throwaway parties do not fill
// them; accepts nobody approved do not fill a standing offer's offerer;
// a proposed deal nobody binds expires (H5); an offer nobody can take is
// not suggested.
func TestOpenDealsNotGriefed(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	victim := e.join("{}")
	var unsolicited []string
	for i := 0; i < 5; i++ {
		griefer := e.join("{}")
		r, m := e.send(griefer, e.msg(griefer, "offer", map[string]any{"to": victim.id}, map[string]any{"terms": affiliateTerms}))
		if r.Status != 200 {
			t.Fatalf("unsolicited offer %d = %d %v", i, r.Status, m)
		}
		e.approve(griefer, body(m)["waiting"].(map[string]any)["url"].(string))
		unsolicited = append(unsolicited, m["deal"].(string))
	}
	maker := e.join("{}")
	offer := e.listOffer(maker)
	accept := func(p *party) map[string]any {
		r, m := e.send(p, e.msg(p, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
		if r.Status != 200 {
			t.Fatalf("accept = %d %v", r.Status, m)
		}
		return m
	}
	accept(victim) // five unsolicited offers left its places free

	// Five accepts never approved leave the offerer's places free.
	for i := 0; i < 5; i++ {
		accept(e.join("{}"))
	}
	taker := e.join("{}")
	m := accept(taker)
	if active := e.approve(taker, body(m)["waiting"].(map[string]any)["url"].(string)); body(active)["state"] != "active" {
		t.Fatalf("an approved accept after five unapproved ones = %v, want active", active)
	}

	// The directed deals, bound by their offerers only, expire after the
	// escalation time and stop counting.
	e.clock.Advance(7*24*time.Hour + time.Second)
	if _, err := e.host.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := e.host.Deal(ctx, victim.token, unsolicited[0])
	if err != nil || !strings.Contains(string(d), `"state":"expired"`) {
		t.Fatalf("an unbound proposed deal after seven days = %s %v, want expired", d, err)
	}

	// An offerer with no place left is not suggested.
	full := e.join("{}")
	fullOffer := e.listOffer(full)
	for i := 0; i < 5; i++ {
		p := e.join("{}")
		r, m := e.send(p, e.msg(p, "accept", nil, map[string]any{"offer": fullOffer, "terms_hash": affiliateHash}))
		if r.Status != 200 {
			t.Fatalf("accept %d = %d %v", i, r.Status, m)
		}
		e.approve(p, body(m)["waiting"].(map[string]any)["url"].(string))
	}
	s, err := e.host.Suggest(ctx, []byte(`{"text":"Acme Notes productivity software affiliate","limit":20}`), testAddr)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range s.Items {
		if it.Offer.ID == fullOffer {
			t.Fatal("suggest lists an offer whose unclaimed offerer has no place left")
		}
	}
}
