package orp_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// hostKey is the test host's signing key (orp.NewSigner, kid host-test):
// a fixed seed, so signatures and signed golden bytes repeat.
var hostKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))

const (
	testWebhookSecret = "whsec_test_0123456789abcdef"
	testResolverToken = "resolver-test-token-0123456789"
)

// autoParty joins a party whose owner set every step to auto and a
// budget, so its messages bind by mandate without an approval (§11.1: a
// budget never set allows no spending).
func (e *env) autoParty() *party {
	e.t.Helper()
	p := e.join("{}")
	for _, step := range []string{"list", "negotiate", "accept", "execute", "amend", "settle", "share"} {
		e.setStep(p, step, "auto")
	}
	e.setBudget(p)
	return p
}

// setBudget gives p's agent a budget in the store, as its owner would.
func (e *env) setBudget(p *party) {
	e.t.Helper()
	rec, err := e.db.Get(context.Background(), "orp.party", p.id[strings.LastIndex(p.id, "/")+1:])
	if err != nil {
		e.t.Fatal(err)
	}
	var stored map[string]any
	json.Unmarshal(rec.Value, &stored)
	stored["constraints"] = map[string]any{"budget": map[string]any{
		"per_deal": map[string]any{"amount_minor": 100000000, "currency": "EUR"}, "max_rate_bps": 10000}}
	rec.Value, _ = json.Marshal(stored)
	if _, err := e.db.Swap(context.Background(), rec); err != nil {
		e.t.Fatal(err)
	}
}

// messages returns p's inbox messages of one type, each validated
// against the schema and, when signed, checked against the host key.
func (e *env) messages(p *party, typ string) []map[string]any {
	e.t.Helper()
	page, err := e.host.Inbox(context.Background(), p.token, "")
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, raw := range page.Messages {
		var m map[string]any
		json.Unmarshal(raw, &m)
		if m["type"] != typ {
			continue
		}
		e.mustValidate(schema.Message, raw)
		if sig, _ := m["sig"].(string); sig != "" && !orp.VerifyDetached(raw, sig, hostKey.Public().(ed25519.PublicKey)) {
			e.t.Fatalf("host signature does not verify: %s", raw)
		}
		out = append(out, m)
	}
	return out
}

// lastPayout is the newest payout record p received for payout id (or
// any payout when id is "").
func (e *env) lastPayout(p *party, id string) map[string]any {
	e.t.Helper()
	var last map[string]any
	for _, m := range e.messages(p, "payout") {
		if id == "" || body(m)["payout"] == id {
			last = body(m)
		}
	}
	if last == nil {
		e.t.Fatalf("no payout %q in the inbox", id)
	}
	return last
}

// stripe posts a signed Stripe-compatible event to the host now.
func (e *env) stripe(id, typ string, object map[string]any) orp.ProviderResult {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "type": typ, "object": "event", "data": map[string]any{"object": object}})
	res, err := e.host.ProviderEvent(context.Background(), "stripe", orp.StripeSignature(b, testWebhookSecret, e.clock.Now()), b)
	if err != nil {
		e.t.Fatalf("provider event %s: %v", id, err)
	}
	return res
}

// directDeal opens a directed offer of terms from offerer to acceptor and
// accepts it, both parties on auto, returning the active snapshot.
func (e *env) directDeal(offerer, acceptor *party, terms map[string]any) (string, map[string]any) {
	e.t.Helper()
	r, m := e.send(offerer, e.msg(offerer, "offer", map[string]any{"to": acceptor.id}, map[string]any{"terms": terms}))
	if w, _ := body(m)["waiting"].(map[string]any); w != nil && equalJSON(w["reasons"], []string{"over_budget"}) {
		// Pay per click or conversion without a cap is bounded by no
		// budget, so it escalates (§11.1); the offerer's agent approves.
		m = e.approve(offerer, w["url"].(string))
	}
	if r.Status != 200 || body(m)["state"] != "proposed" {
		e.t.Fatalf("directed offer = %d %v", r.Status, m)
	}
	deal := m["deal"].(string)
	r, m = e.send(acceptor, e.msg(acceptor, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": body(m)["terms_hash"]}))
	if r.Status != 200 || body(m)["state"] != "active" {
		e.t.Fatalf("accept = %d %v", r.Status, m)
	}
	return deal, body(m)
}

// linkOf is the tracked link of an obligation in a snapshot.
func linkOf(snapshot map[string]any, obligation string) string {
	tr, _ := snapshot["tracking"].([]any)
	for _, t := range tr {
		t := t.(map[string]any)
		if t["obligation"] == obligation {
			s, _ := t["link"].(string)
			return s
		}
	}
	return ""
}

func obState(snapshot map[string]any, id string) string {
	obs, _ := snapshot["obligations"].([]any)
	for _, o := range obs {
		if o := o.(map[string]any); o["id"] == id {
			return o["state"].(string)
		}
	}
	return ""
}

// snapshot reads p's copy of a deal.
func (e *env) snapshot(p *party, deal string) map[string]any {
	e.t.Helper()
	b, err := e.host.Deal(context.Background(), p.token, deal)
	if err != nil {
		e.t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	e.mustValidate(schema.Message, b)
	return body(m)
}

// payouts reads a deal's payout records.
func (e *env) payouts(deal string) []orp.Payout {
	e.t.Helper()
	ps, err := e.host.Payouts(context.Background(), deal)
	if err != nil {
		e.t.Fatal(err)
	}
	return ps
}

func (e *env) sweep() {
	e.t.Helper()
	if _, err := e.host.Sweep(context.Background()); err != nil {
		e.t.Fatalf("sweep: %v", err)
	}
}

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// noPersonalData fails when a message names a click id or anything that
// looks like a person's data.
func noPersonalData(t *testing.T, raw []byte, clickIDs ...string) {
	t.Helper()
	s := string(raw)
	for _, c := range clickIDs {
		if strings.Contains(s, c) {
			t.Fatalf("message carries a click id: %s", s)
		}
	}
	for _, bad := range []string{"@", "email", "user_agent", "referer", "address"} {
		if strings.Contains(strings.ToLower(s), bad) {
			t.Fatalf("message carries %q: %s", bad, s)
		}
	}
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
