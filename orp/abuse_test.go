package orp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// nestingProbe is one 64 KiB message with arrays nested 32,000 deep in ext.
func nestingProbe(from string) []byte {
	head := `{"orp":"0.3","type":"hello","id":"m_deep_0001","ts":"2026-10-21T09:00:00Z","from":"` + from + `","body":{"versions":["0.3"]},"ext":{"com.example.x":`
	return []byte(head + strings.Repeat("[", 32000) + strings.Repeat("]", 32000) + `}}`)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNestingProbeIsCheap: E1's work is bounded by a depth limit, so the
// audit's probe is refused with invalid_message after a few KiB of work,
// not a gigabyte, with or without a bearer.
func TestNestingProbeIsCheap(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	for _, token := range []string{"", p.token} {
		var code string
		n := allocated(func() {
			r := e.host.Send(context.Background(), token, testAddr, nestingProbe(p.id))
			var m map[string]any
			json.Unmarshal(r.Body, &m)
			code = errCode(m)
		})
		if code != "invalid_message" {
			t.Fatalf("nesting probe answered %s, want invalid_message", code)
		}
		if n > 4<<20 {
			t.Fatalf("nesting probe allocated %d MiB, want under 4", n>>20)
		}
	}
}

// TestUnauthenticatedSendsLimitedByAddress: messages without a working
// credential are counted per address before decoding; a party's own
// messages from the same address are not.
func TestUnauthenticatedSendsLimitedByAddress(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	codes := map[string]int{}
	for i := 0; i < 40; i++ {
		token := ""
		if i%2 == 1 {
			token = "orpt_not_a_token"
		}
		r := e.host.Send(context.Background(), token, "203.0.113.5", []byte(`{"orp":`))
		var m map[string]any
		json.Unmarshal(r.Body, &m)
		codes[errCode(m)]++
	}
	if codes["rate_limited"] != 10 || codes["invalid_message"] != 30 {
		t.Fatalf("40 unauthenticated sends from one address = %v, want 30 invalid_message then 10 rate_limited", codes)
	}
	r := e.host.Send(context.Background(), "", "203.0.113.6", []byte(`{"orp":`))
	if r.Status != 400 {
		t.Fatalf("another address = %d, want 400", r.Status)
	}
	r = e.host.Send(context.Background(), p.token, "203.0.113.5", e.msg(p, "hello", nil, map[string]any{"versions": []string{"0.3"}}))
	if r.Status != 200 {
		t.Fatalf("a party's hello from the limited address = %d %s, want 200", r.Status, r.Body)
	}
}

// termsTo is affiliateTerms with another destination.
func termsTo(destination string) map[string]any {
	b, _ := json.Marshal(affiliateTerms)
	var t map[string]any
	json.Unmarshal(b, &t)
	t["obligations"].([]any)[0].(map[string]any)["destination"] = destination
	return t
}

// TestDestinationRules: two anonymous parties cannot point the host's
// links at a site nobody declared; userinfo, other ports, addresses and
// blocked domains are refused; a claimed party's listed web space
// declares its site (§18).
func TestDestinationRules(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	other := e.join("{}")
	cases := []struct {
		name, destination, code string
	}{
		{"userinfo", "https://acmenotes.example@evil.example/", "invalid_message"},
		{"port 22", "https://acmenotes.example:22/", "invalid_message"},
		{"address", "https://203.0.113.9/", "invalid_message"},
		{"undeclared site", "https://evil.example/", "forbidden"},
		{"look-alike", "https://acmenotes.example.evil.example/", "forbidden"},
		{"blocked", "https://shop.blocked.example/", "forbidden"},
		{"owner's site", "https://acmenotes.example/pricing", ""},
		{"owner's subdomain, default port", "https://shop.acmenotes.example:443/x", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, to := range []map[string]any{nil, {"to": other.id}} {
				r, m := e.send(p, e.msg(p, "offer", to, map[string]any{"terms": termsTo(c.destination)}))
				if got := errCode(m); got != c.code {
					t.Fatalf("offer to %s (%v) = %d %s, want %q", c.destination, to, r.Status, got, c.code)
				}
			}
		})
	}

	// An unclaimed party's space declares nothing; once claimed, it does.
	space := map[string]any{"action": "put", "space": map[string]any{"id": "blog", "kind": "web.article", "platform": "web",
		"title": "My blog", "locator": "https://myblog.example/posts"}}
	_, m := e.send(p, e.msg(p, "space", nil, space))
	e.approve(p, body(m)["waiting"].(map[string]any)["url"].(string))
	if _, m := e.send(p, e.msg(p, "offer", nil, map[string]any{"terms": termsTo("https://myblog.example/join")})); errCode(m) != "forbidden" {
		t.Fatalf("unclaimed party's own site = %v, want forbidden", m)
	}
	joined, err := e.host.Join(context.Background(), []byte("{}"), testAddr)
	if err != nil {
		t.Fatal(err)
	}
	claimed := &party{id: joined.Party, token: joined.Token}
	_, m = e.send(claimed, e.msg(claimed, "space", nil, space))
	e.approve(claimed, body(m)["waiting"].(map[string]any)["url"].(string))
	e.claimByMail(joined.Claim, "owner@example.org")
	if r, m := e.send(claimed, e.msg(claimed, "offer", nil, map[string]any{"terms": termsTo("https://myblog.example/join")})); r.Status != 200 {
		t.Fatalf("claimed party's declared site = %d %v, want 200", r.Status, m)
	}
}

// TestBlockedLaterSendsHome: links minted before the owner blocked their
// domain send browsers to the host's home page and count nothing.
func TestBlockedLaterSendsHome(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	h, err := orp.New(orp.Options{Store: e.db, Clock: e.clock, Rand: newSeeded(), Origin: "https://hub.example", BlockedDomains: []string{"acmenotes.example"}})
	if err != nil {
		t.Fatal(err)
	}
	e.host = h
	if got := e.click(link, map[string]string{"User-Agent": "Mozilla/5.0"}, ""); got != "https://hub.example/" {
		t.Fatalf("redirect = %s, want the host's home page", got)
	}
}

// TestNumbersReadExactly: integers in exponent or fraction form, and
// integers beyond the I-JSON range, are refused with the field, since the
// host would hash one value and read another (§2).
func TestNumbersReadExactly(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	base := `{"title":"T","kind":"affiliate","disclosure":{"label":"Ad","lang":"en"},"obligations":[` +
		`{"id":"place","by":"acceptor","action":"place","content":{"link":true},"destination":"https://acmenotes.example/","clicks":CLICKS,"proof":["link"]},` +
		`{"id":"pay","by":"offerer","action":"pay","per":"conversion","rate_bps":RATE,"window":"P30D","rail":"stripe","proof":["provider"]}]}`
	cases := []struct {
		name, clicks, rate, field string
	}{
		{"exponent clicks", "1e1", "3000", "/body/terms/obligations/0/clicks"},
		{"exponent rate", "1", "3e3", "/body/terms/obligations/1/rate_bps"},
		{"fraction", "1.0", "3000", "/body/terms/obligations/0/clicks"},
		{"beyond 2^53", "9007199254740993", "3000", "/body/terms/obligations/0/clicks"},
		{"plain", "10", "3000", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			terms := strings.NewReplacer("CLICKS", c.clicks, "RATE", c.rate).Replace(base)
			p.n++
			raw := []byte(fmt.Sprintf(`{"orp":"0.3","type":"offer","id":"m_num_%04d","ts":"2026-10-21T09:00:00Z","from":"%s","body":{"terms":%s}}`, p.n, p.id, terms))
			r, m := e.send(p, raw)
			f, _ := body(m)["field"].(string)
			if c.field == "" && r.Status != 200 || c.field != "" && (errCode(m) != "invalid_message" || f != c.field) {
				t.Fatalf("offer with clicks %s and rate_bps %s = %d %v, want field %q", c.clicks, c.rate, r.Status, body(m), c.field)
			}
		})
	}
}

// TestNoPersonalDataInExtensions: L1-NO-PII and text hygiene cover ext:
// an email or phone number anywhere in it, as a value, a key or a number,
// is refused and nothing is delivered.
func TestNoPersonalDataInExtensions(t *testing.T) {
	e := newEnv(t)
	p, other := e.join("{}"), e.join("{}")
	cases := []struct {
		name string
		ext  map[string]any
	}{
		{"email", map[string]any{"com.example.crm": map[string]any{"contact": "jane@example.com"}}},
		{"phone", map[string]any{"com.example.crm": map[string]any{"contact": []any{"call +1 303 555 0100"}}}},
		{"phone as a number", map[string]any{"com.example.crm": map[string]any{"contact": 13035550100}}},
		{"email as a key", map[string]any{"com.example.crm": map[string]any{"jane@example.com": true}}},
		{"markup", map[string]any{"com.example.crm": map[string]any{"x": "<script>"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := e.send(p, e.msg(p, "request", map[string]any{"to": other.id, "ext": c.ext}, map[string]any{"note": "Terms for a newsletter slot?"}))
			if errCode(m) != "invalid_message" || !strings.HasPrefix(body(m)["field"].(string), "/ext") {
				t.Fatalf("request with %s in ext = %d %v, want invalid_message at /ext", c.name, r.Status, body(m))
			}
		})
	}
	if n := len(e.inbox(other)); n != 0 {
		t.Fatalf("%d requests delivered", n)
	}
	if r, _ := e.send(p, e.msg(p, "request", map[string]any{"to": other.id, "ext": map[string]any{"com.example.crm": map[string]any{"tier": 3}}}, map[string]any{"note": "Hi"})); r.Status != 202 {
		t.Fatalf("request with plain ext = %d, want 202", r.Status)
	}
}

// TestWeakKeysRefused: join refuses small-order and non-canonical Ed25519
// keys, and a weak key stored before cannot verify the fixed signature
// that would pass for any message (E9).
func TestWeakKeysRefused(t *testing.T) {
	e := newEnv(t)
	identity := append([]byte{1}, make([]byte, 31)...)
	nonCanonical := bytes.Repeat([]byte{0xff}, 32)
	nonCanonical[31] = 0x7f // y = 2^255-1, above p
	order8 := []byte{0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
		0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x85}
	for name, x := range map[string][]byte{"identity": identity, "non-canonical": nonCanonical, "order 8, sign set": order8} {
		body := fmt.Sprintf(`{"key":{"kty":"OKP","crv":"Ed25519","x":%q}}`, base64.RawURLEncoding.EncodeToString(x))
		_, err := e.host.Join(context.Background(), []byte(body), testAddr)
		if e, ok := err.(*orp.Error); !ok || e.Code != orp.InvalidMessage || e.Field != "/key/x" {
			t.Errorf("join with the %s key = %v, want invalid_message at /key/x", name, err)
		}
	}

	// A party whose stored key is the identity point.
	p := e.join("{}")
	rec, err := e.db.Get(context.Background(), "orp.party", p.id[strings.LastIndex(p.id, "/")+1:])
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	json.Unmarshal(rec.Value, &stored)
	stored["key"] = map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(identity)}
	rec.Value, _ = json.Marshal(stored)
	if _, err := e.db.Swap(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA"}`))
	forged := hdr + ".." + base64.RawURLEncoding.EncodeToString(append(identity, make([]byte, 32)...))
	r, m := e.send(p, e.msg(p, "hello", map[string]any{"sig": forged}, map[string]any{"versions": []string{"0.3"}}))
	if errCode(m) != "bad_signature" {
		t.Fatalf("the fixed signature under the identity key = %d %v, want bad_signature", r.Status, body(m))
	}
}

// outcomeRow returns the last outcome row p received.
func (e *env) outcomeRow(p *party) map[string]any {
	e.t.Helper()
	var row map[string]any
	for _, m := range e.inbox(p) {
		if m["type"] == "outcome" {
			b, _ := json.Marshal(m)
			e.mustValidate(schema.Message, b)
			row = body(m)["rows"].([]any)[0].(map[string]any)
		}
	}
	if row == nil {
		e.t.Fatal("no outcome")
	}
	return row
}

// TestRevenueNeverWraps: a report beyond the host's maximum is refused,
// and sums too large for a message are clamped, never wrapped to 0.
func TestRevenueNeverWraps(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	via := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
	e.host.Flush(ctx)
	_, err := e.host.ProviderConversion(ctx, "stripe", orp.Conversion{Event: "evt_huge", Click: via, Amount: eur(math.MaxInt64)})
	if ae := orp.AsError(err); ae.Code != orp.InvalidMessage || ae.Field != "/amount/amount_minor" {
		t.Fatalf("a report of int64-max = %v, want invalid_message at /amount/amount_minor", err)
	}

	// A host whose owner allows any amount still never wraps the sum.
	h, err := orp.New(orp.Options{Store: e.db, Clock: e.clock, Rand: newSeeded(), Origin: "https://hub.example", Sites: testSites, MaxReport: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	_, acceptor, _, link := e.activeDeal()
	via = viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
	e.host.Flush(ctx)
	e.host = h
	for i, amount := range []int64{math.MaxInt64, 6400} {
		if res, err := h.ProviderConversion(ctx, "stripe", orp.Conversion{Event: fmt.Sprintf("evt_big_%d", i), Click: via, Amount: eur(amount)}); err != nil || !res.Counted {
			t.Fatalf("sale %d = %+v %v", i, res, err)
		}
	}
	e.clock.Advance(7 * 24 * time.Hour)
	if _, err := h.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	row := e.outcomeRow(acceptor)
	rev, _ := row["revenue"].(map[string]any)["amount_minor"].(float64)
	earned, _ := row["earned"].(map[string]any)["amount_minor"].(float64)
	if rev != 1<<53-1 || earned != 1<<53-1 {
		t.Fatalf("revenue %v and earned %v, want both clamped to 2^53-1", rev, earned)
	}
}

// TestOutcomeMarkedSentOnlyWhenDelivered: a sweep under another origin
// cannot deliver, so it marks nothing sent; the right host then delivers
// the final outcome.
func TestOutcomeMarkedSentOnlyWhenDelivered(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	offerer, acceptor, deal, _ := e.activeDeal()
	if r, m := e.send(offerer, e.msg(offerer, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); r.Status != 200 {
		t.Fatalf("revoke = %d %v", r.Status, m)
	}
	wrong, err := orp.New(orp.Options{Store: e.db, Clock: e.clock, Rand: newSeeded(), Origin: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := wrong.Sweep(ctx); err == nil || res.Outcomes != 0 {
		t.Fatalf("sweep under another origin = %+v, %v; want an error and no outcome", res, err)
	}
	if res, err := e.host.Sweep(ctx); err != nil || res.Outcomes != 2 {
		t.Fatalf("sweep under the host's origin = %+v, %v; want two outcomes", res, err)
	}
	if row := e.outcomeRow(acceptor); row == nil {
		t.Fatal("no outcome delivered")
	}
}

// setStep sets one of p's step modes in the store, as an owner would.
func (e *env) setStep(p *party, step, mode string) {
	e.t.Helper()
	rec, err := e.db.Get(context.Background(), "orp.party", p.id[strings.LastIndex(p.id, "/")+1:])
	if err != nil {
		e.t.Fatal(err)
	}
	var stored map[string]any
	json.Unmarshal(rec.Value, &stored)
	stored["steps"].(map[string]any)[step] = mode
	rec.Value, _ = json.Marshal(stored)
	if _, err := e.db.Swap(context.Background(), rec); err != nil {
		e.t.Fatal(err)
	}
}

// TestRequestChecksNegotiateStep: request falls under negotiate, so an
// owner who turned that step off stops it with step_off (§11).
func TestRequestChecksNegotiateStep(t *testing.T) {
	e := newEnv(t)
	p, other := e.join("{}"), e.join("{}")
	e.setStep(p, "negotiate", "off")
	r, m := e.send(p, e.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "Terms for a slot?"}))
	if errCode(m) != "step_off" || body(m)["step"] != "negotiate" {
		t.Fatalf("request with negotiate off = %d %v, want step_off", r.Status, body(m))
	}
	if n := len(e.inbox(other)); n != 0 {
		t.Fatalf("%d messages delivered", n)
	}
}
