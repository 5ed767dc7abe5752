package orp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/golden"
	"frontdesk/orp"
)

// TestEnvelopeRules checks each of E1 to E9 and the body rules with the
// code, HTTP status and field of §16, and that a refusal changes nothing
// (L0-SCHEMA, L0-STALE).
func TestEnvelopeRules(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	other := e.join("{}")
	hello := map[string]any{"versions": []string{"0.3"}}
	raw := func(s string) []byte { return []byte(s) }
	withFrom := func(s string) []byte { return []byte(strings.ReplaceAll(s, "FROM", p.id)) }
	cases := []struct {
		name   string
		token  string
		msg    []byte
		code   string
		status int
		field  string
	}{
		{"not json", p.token, raw(`{"orp":`), "invalid_message", 400, ""},
		{"duplicate key", p.token, withFrom(`{"orp":"0.3","orp":"0.3","type":"hello","id":"m_dup_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","body":{"versions":["0.3"]}}`), "invalid_message", 400, "/orp"},
		{"unknown field", p.token, withFrom(`{"orp":"0.3","type":"hello","id":"m_unk_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","body":{"versions":["0.3"],"email":"x"}}`), "invalid_message", 400, "/body/email"},
		{"semver", p.token, withFrom(`{"orp":"0.3.0","type":"hello","id":"m_sem_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","body":{"versions":["0.3"]}}`), "invalid_message", 400, "/orp"},
		{"too big", p.token, []byte(`{"orp":"0.3","pad":"` + strings.Repeat("x", 70000) + `"}`), "invalid_message", 400, ""},
		{"bidi", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "hello \u202e world"}), "invalid_message", 400, "/body/note"},
		{"zero width", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "hi\u200bthere"}), "invalid_message", 400, "/body/note"},
		{"control", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "bell\u0007"}), "invalid_message", 400, "/body/note"},
		{"markup", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "see <a href=x>this</a>"}), "invalid_message", 400, "/body/note"},
		{"email in note", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "write to jane@example.com"}), "invalid_message", 400, "/body/note"},
		{"phone in note", p.token, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "call +1 303 555 0100"}), "invalid_message", 400, "/body/note"},
		{"version", p.token, withFrom(`{"orp":"0.5","type":"hello","id":"m_ver_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","body":{"versions":["0.5"]}}`), "unsupported_version", 400, ""},
		{"leave on 0.3", p.token, withFrom(`{"orp":"0.3","type":"leave","id":"m_lv3_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","deal":"deal_x","body":{}}`), "invalid_message", 400, "/type"},
		{"extension type", p.token, withFrom(`{"orp":"0.3","type":"com.example.boost","id":"m_ext_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","body":{}}`), "unsupported_type", 400, ""},
		{"critical", p.token, withFrom(`{"orp":"0.3","type":"hello","id":"m_crt_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","critical":["com.example.boost"],"ext":{"com.example.boost":{}},"body":{"versions":["0.3"]}}`), "unsupported_extension", 400, ""},
		{"no credential", "", e.msg(p, "hello", nil, hello), "unauthorized", 401, ""},
		{"bad credential", "orpt_nope", e.msg(p, "hello", nil, hello), "unauthorized", 401, ""},
		{"someone else's from", other.token, e.msg(p, "hello", nil, hello), "forbidden", 403, ""},
		{"host-only type", p.token, withFrom(`{"orp":"0.3","type":"consent","id":"m_cns_0001","ts":"2026-10-21T09:00:00Z","from":"FROM","to":"FROM","deal":"deal_x","body":{"consent":"c1","escalation":"e1","party":"FROM","decision":"approved","step":"accept","terms_hash":"` + affiliateHash + `","assurance":"passkey","at":"2026-10-21T09:00:00Z"}}`), "forbidden", 403, ""},
		{"stale", p.token, withFrom(`{"orp":"0.3","type":"hello","id":"m_old_0001","ts":"2026-10-21T08:44:59Z","from":"FROM","body":{"versions":["0.3"]}}`), "stale", 400, ""},
		{"future", p.token, withFrom(`{"orp":"0.3","type":"hello","id":"m_new_0001","ts":"2026-10-21T09:15:01Z","from":"FROM","body":{"versions":["0.3"]}}`), "stale", 400, ""},
		{"unknown deal", p.token, e.msg(p, "decline", map[string]any{"deal": "deal_nope"}, map[string]any{"reason": "price"}), "not_found", 404, ""},
		{"unknown offer", p.token, e.msg(p, "accept", nil, map[string]any{"offer": "ofr_nope", "terms_hash": affiliateHash}), "not_found", 404, ""},
		{"unhandled type", p.token, e.msg(p, "dispute", map[string]any{"deal": "deal_nope"}, map[string]any{"action": "withdraw", "dispute": "d1"}), "not_found", 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.host.Send(context.Background(), c.token, testAddr, c.msg)
			var m map[string]any
			if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatalf("reply is not JSON: %s", r.Body)
			}
			e.mustValidate("message.schema.json", r.Body)
			if m["type"] != "error" || errCode(m) != c.code || r.Status != c.status {
				t.Fatalf("reply = %d %s, want %d %s", r.Status, r.Body, c.status, c.code)
			}
			if f, _ := body(m)["field"].(string); c.code == "invalid_message" && f != c.field {
				t.Fatalf("field = %q, want %q", f, c.field)
			}
		})
	}
	if n := len(e.inbox(other)); n != 0 {
		t.Fatalf("refused messages delivered %d inbox messages", n)
	}
	if recs, _ := e.db.List(context.Background(), "orp.msg", "", "", 10); len(recs) != 0 {
		t.Fatalf("refused messages stored %d idempotency keys", len(recs))
	}
}

// TestErrorMessageGolden pins the exact bytes of one refusal.
func TestErrorMessageGolden(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	r := e.host.Send(context.Background(), p.token, testAddr, []byte(`{"orp":"0.3","type":"hello","id":"m_old_0001","ts":"2026-10-21T08:00:00Z","from":"`+p.id+`","body":{"versions":["0.3"]}}`))
	golden.Check(t, "stale.json", r.Body)
}

// TestIdempotency checks E7 (L0-IDEMPOTENT, L0-REPLAY): the same message
// returns the original reply again and changes nothing, different content
// under the same id is replay, and both survive a restart of the host on
// the same store.
func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	offerer := e.join("{}")
	first := e.msg(offerer, "offer", nil, map[string]any{"terms": affiliateTerms})
	r1, m1 := e.send(offerer, first)
	if r1.Status != 200 || m1["type"] != "offer" {
		t.Fatalf("offer = %d %v", r1.Status, m1)
	}
	r2, _ := e.send(offerer, first)
	if r2.Status != r1.Status || string(r2.Body) != string(r1.Body) {
		t.Fatalf("repeat reply = %s, want the original %s", r2.Body, r1.Body)
	}
	recs, _ := e.db.List(context.Background(), "orp.offer", "", "", 10)
	if len(recs) != 1 {
		t.Fatalf("%d offers stored, want 1", len(recs))
	}
	var changed map[string]any
	json.Unmarshal(first, &changed)
	changed["body"].(map[string]any)["limit"] = 3
	replay, _ := json.Marshal(changed)
	if r, m := e.send(offerer, replay); r.Status != 409 || errCode(m) != "replay" {
		t.Fatalf("changed content = %d %v, want 409 replay", r.Status, m)
	}

	// Restart: close the store, open the same file, build a new host.
	e.db.Close()
	e.db = openDB(t, e.dir)
	e.host = e.newHost(e.db)
	e.clock.Advance(10 * time.Minute)
	if r := e.host.Send(context.Background(), offerer.token, testAddr, first); r.Status != 200 || string(r.Body) != string(r1.Body) {
		t.Fatalf("after restart = %d %s, want the original reply", r.Status, r.Body)
	}
	if r, m := e.send(offerer, replay); r.Status != 409 || errCode(m) != "replay" {
		t.Fatalf("after restart changed content = %d %v, want replay", r.Status, m)
	}
}

// TestChainAndSignature checks E8 and E9.
func TestChainAndSignature(t *testing.T) {
	e := newEnv(t)
	key, x := newKey(t)
	offerer, acceptor, deal, _ := e.activeDeal()
	_ = offerer
	// E8: once the acceptor chains, every later message must carry the
	// hash of its previous one in the deal: here its accept.
	prev, err := orp.Hash(e.lastAccept)
	if err != nil {
		t.Fatal(err)
	}
	bad := e.msg(acceptor, "execute", map[string]any{"deal": deal, "prev": "sha256-" + strings.Repeat("A", 43)}, map[string]any{"obligation": "place"})
	if r, m := e.send(acceptor, bad); r.Status != 409 || errCode(m) != "chain_broken" {
		t.Fatalf("wrong prev = %d %v, want chain_broken", r.Status, m)
	}
	chained := e.msg(acceptor, "execute", map[string]any{"deal": deal, "prev": prev}, map[string]any{"obligation": "place"})
	// Under ask the execute is held until approved (§11).
	r, m := e.send(acceptor, chained)
	w, _ := body(m)["waiting"].(map[string]any)
	if r.Status != 200 || body(m)["obligations"].([]any)[0].(map[string]any)["state"] != "pending" || w["step"] != "execute" {
		t.Fatalf("chained execute = %d %v, want the obligation pending and the execute step waiting", r.Status, m)
	}
	approved := e.approve(acceptor, w["url"].(string))
	if body(approved)["obligations"].([]any)[0].(map[string]any)["state"] != "claimed" || body(approved)["waiting"] != nil {
		t.Fatalf("approved execute = %v, want claimed", approved)
	}
	unchained := e.msg(acceptor, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "other"})
	if r, m := e.send(acceptor, unchained); r.Status != 409 || errCode(m) != "chain_broken" {
		t.Fatalf("missing prev after chaining = %d %v, want chain_broken", r.Status, m)
	}

	// E9: a party that registered a key must sign binding messages, and a
	// bad signature is refused.
	signer := e.join(`{"agent":{"name":"signer","version":"1"},"key":{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}}`)
	unsigned := e.msg(signer, "offer", nil, map[string]any{"terms": affiliateTerms})
	if r, m := e.send(signer, unsigned); r.Status != 401 || errCode(m) != "unauthorized" {
		t.Fatalf("unsigned offer = %d %v, want unauthorized", r.Status, m)
	}
	signer.key = key
	if r, m := e.send(signer, e.msg(signer, "offer", nil, map[string]any{"terms": affiliateTerms})); r.Status != 200 {
		t.Fatalf("signed offer = %d %v", r.Status, m)
	}
	forged := e.msg(signer, "offer", nil, map[string]any{"terms": affiliateTerms})
	forged = []byte(strings.Replace(string(forged), "Acme Notes", "Acme Nates", 1))
	if r, m := e.send(signer, forged); r.Status != 401 || errCode(m) != "bad_signature" {
		t.Fatalf("forged offer = %d %v, want bad_signature", r.Status, m)
	}
	keys, err := e.host.PartyKeys(context.Background(), strings.TrimPrefix(signer.id, "orp:hub.example/"))
	if err != nil || len(keys.Keys) != 1 || keys.Keys[0].X != x {
		t.Fatalf("party keys = %v, %v", keys, err)
	}
}
