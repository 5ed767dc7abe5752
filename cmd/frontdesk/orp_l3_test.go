package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/orp"
)

const (
	l3WebhookSecret = "whsec_l3_suite_0123456789"
	l3ResolverToken = "resolver-l3-suite-0123456789"
)

// startL3 starts the server with the provider webhook's secret and the
// resolver's token, as an operator configures them. With overMCP, the
// parties that join speak the MCP binding.
func startL3(t *testing.T, database string, overMCP bool) *orpServer {
	s := startORPAt(t, t.TempDir(), database, clock.NewFixed(testNow), "127.0.0.1:0", func(c *config.Config) {
		c.ORP.StripeWebhookSecret, c.ORP.ResolverToken = l3WebhookSecret, l3ResolverToken
	})
	s.mcp = overMCP
	return s
}

// step sends raw as p and, when the host holds it for p's own approval
// (an unclaimed party's steps all ask), approves it as p's agent would.
// It returns the message the step produced.
func (s *orpServer) step(p *orpParty, raw []byte) map[string]any {
	s.t.Helper()
	code, m := s.send(p, raw)
	if code != 200 {
		s.t.Fatalf("%s = %d %v", raw, code, m)
	}
	if w, _ := obody(m)["waiting"].(map[string]any); w != nil && (w["party"] == nil || w["party"] == p.id) {
		return s.approve(p, w["url"].(string))
	}
	if d, _ := m["deal"].(string); d != "" && m["type"] != "deal" {
		// A held step of an active deal shows in the deal's waiting.
		if w, _ := s.deal(p, d)["waiting"].(map[string]any); w != nil && w["party"] == p.id {
			return s.approve(p, w["url"].(string))
		}
	}
	return m
}

// l3Deal opens a directed offer from maker to pub and accepts it, each
// step approved by its party's agent, and returns the active snapshot.
func (s *orpServer) l3Deal(maker, pub *orpParty, terms map[string]any) (string, map[string]any) {
	s.t.Helper()
	m := s.step(maker, s.msg(maker, "offer", map[string]any{"to": pub.id}, map[string]any{"terms": terms}))
	deal := m["deal"].(string)
	m = s.step(pub, s.msg(pub, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": obody(m)["terms_hash"]}))
	if obody(m)["state"] != "active" {
		s.t.Fatalf("deal = %v, want active", m)
	}
	return deal, obody(m)
}

// webhook posts a Stripe-compatible event signed with the secret.
func (s *orpServer) webhook(id, typ string, object map[string]any) orp.ProviderResult {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "type": typ, "data": map[string]any{"object": object}})
	resp, rb := s.do("POST", "/orp/providers/stripe", "", b, map[string]string{"Stripe-Signature": orp.StripeSignature(b, l3WebhookSecret, s.clock.Now())})
	if resp.StatusCode != 200 {
		s.t.Fatalf("webhook %s = %d %s", id, resp.StatusCode, rb)
	}
	var res orp.ProviderResult
	json.Unmarshal(rb, &res)
	return res
}

// payout is the newest payout record p holds for id.
func (s *orpServer) payout(p *orpParty, id string) map[string]any {
	s.t.Helper()
	var last map[string]any
	for _, m := range s.inbox(p) {
		if m["type"] == "payout" && (id == "" || obody(m)["payout"] == id) {
			last = obody(m)
		}
	}
	if last == nil {
		s.t.Fatalf("no payout %q for %s", id, p.id)
	}
	return last
}

// reconnect gives MCP parties a new session with their bearer token, as
// an agent starts a new conversation weeks later: a session's join is
// kept 30 days.
func (s *orpServer) reconnect(ps ...*orpParty) {
	for _, p := range ps {
		if p.session != nil {
			p.session = s.connectMCP(p.token)
		}
	}
}

func l3State(snapshot map[string]any, id string) string {
	for _, o := range snapshot["obligations"].([]any) {
		if o := o.(map[string]any); o["id"] == id {
			return o["state"].(string)
		}
	}
	return ""
}

func (s *orpServer) deal(p *orpParty, deal string) map[string]any {
	s.t.Helper()
	var m map[string]any
	json.Unmarshal(s.snapshot(p, deal), &m)
	return obody(m)
}

func trackedLink(snapshot map[string]any, ob string) string {
	tr, _ := snapshot["tracking"].([]any)
	for _, t := range tr {
		if t := t.(map[string]any); t["obligation"] == ob {
			s, _ := t["link"].(string)
			return s
		}
	}
	return ""
}

func via(t *testing.T, loc string) string {
	u, _ := url.Parse(loc)
	v := u.Query().Get("via")
	if v == "" {
		t.Fatalf("no click id in %s", loc)
	}
	return v
}

// saleDeal is an affiliate deal with signed provider sales of 100.00 and
// 60.00 EUR on two human clicks; it returns the first sale's payout of
// 30.00 EUR, held, and its click id.
func (s *orpServer) saleDeal(t *testing.T) (maker, pub *orpParty, deal, payout, click string) {
	maker, pub = s.join("{}"), s.join("{}")
	deal, active := s.l3Deal(maker, pub, e2eTerms)
	_, loc := s.click("GET", trackedLink(active, "place"), map[string]string{"User-Agent": browserUA})
	click = via(t, loc)
	s.storedClicks(trackedLink(active, "place"))
	res := s.webhook("evt_sale_"+deal, "checkout.session.completed", map[string]any{"id": "cs_" + deal, "amount_total": 10000, "currency": "eur",
		"client_reference_id": click, "payment_intent": "pi_" + deal})
	if !res.Counted {
		t.Fatalf("sale = %+v", res)
	}
	p := s.payout(pub, "")
	if p["state"] != "held" || p["amount"].(map[string]any)["amount_minor"] != float64(3000) {
		t.Fatalf("payout = %v", p)
	}
	// A second sale of 60.00 EUR on a second click, so the outcome does
	// not describe one buyer (§14.1).
	s.clock.Advance(6 * time.Second)
	_, loc = s.click("GET", trackedLink(active, "place"), map[string]string{"User-Agent": browserUA})
	s.storedClicks(trackedLink(active, "place"))
	s.webhook("evt_sale2_"+deal, "charge.succeeded", map[string]any{"id": "ch2_" + deal, "amount": 6000, "currency": "eur",
		"payment_intent": "pi2_" + deal, "metadata": map[string]any{"orp_click": via(t, loc)}})
	return maker, pub, deal, p["payout"].(string), click
}

// TestORP_L3 is the L3 Full suite of §17, one subtest per named test,
// run black-box over HTTP against the started server on both engines,
// and on SQLite through the MCP binding too. The provider's webhook, the
// resolver's page, tracked links and approvals are HTTP by nature.
func TestORP_L3(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { runL3(t, func(*testing.T) string { return "" }, false) })
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t)
		runL3(t, func(t *testing.T) string { return pgtest.Schema(t) }, false)
	})
	t.Run("mcp", func(t *testing.T) { runL3(t, func(*testing.T) string { return "" }, true) })
}

func runL3(t *testing.T, fresh func(*testing.T) string, overMCP bool) {
	human := map[string]string{"User-Agent": browserUA}

	t.Run("L3-KINDS", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		maker, pub := s.join("{}"), s.join("{}")
		// A sponsored post paid per deal: owed once the post is verified by
		// its clicks, and the deal completes when the payee confirms.
		sponsored := map[string]any{"title": "Sponsored post", "kind": "sponsored", "disclosure": map[string]any{"label": "Ad", "lang": "en"},
			"obligations": []any{
				map[string]any{"id": "post", "by": "acceptor", "action": "place", "space": map[string]any{"kinds": []string{"social.post"}}, "content": map[string]any{"link": true},
					"destination": "https://acmenotes.example/", "proof": []string{"link"}},
				map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": map[string]any{"amount_minor": 15000, "currency": "EUR"}, "rail": "manual"},
			}}
		deal, active := s.l3Deal(maker, pub, sponsored)
		s.click("GET", trackedLink(active, "post"), human)
		s.storedClicks(trackedLink(active, "post"))
		p := s.payout(pub, "")
		if p["state"] != "payable" || p["basis"] != "receipt" {
			t.Fatalf("pay per deal = %v", p)
		}
		s.step(pub, s.msg(pub, "payout", map[string]any{"deal": deal}, map[string]any{"payout": p["payout"], "answer": "confirm"}))
		if d := s.deal(pub, deal); d["state"] != "completed" {
			t.Fatalf("sponsored deal = %v, want completed", d["state"])
		}
		// A link exchange has no tracked link (T11); a data partnership's
		// share fails at its deadline, counted from activation, with a host
		// receipt.
		exchange := map[string]any{"title": "Link exchange and data", "kind": "partnership", "obligations": []any{
			map[string]any{"id": "link_a", "by": "offerer", "action": "place", "content": map[string]any{"direct": true}, "destination": "https://acmenotes.example/", "keep": "P90D", "proof": []string{"proof_url"}},
			map[string]any{"id": "feed", "by": "acceptor", "action": "share", "data": map[string]any{"description": "Weekly opens, counts only."}, "due": "P7D", "proof": []string{"attestation"}},
		}}
		deal2, active2 := s.l3Deal(maker, pub, exchange)
		if active2["tracking"] != nil {
			t.Fatalf("direct link tracked: %v", active2["tracking"])
		}
		s.clock.Advance(7 * 24 * time.Hour)
		s.sweep()
		if d := s.deal(maker, deal2); l3State(d, "feed") != "failed" || l3State(d, "link_a") != "pending" {
			t.Fatalf("after the deadline = %v", d["obligations"])
		}
		failed := false
		for _, m := range s.inbox(maker) {
			failed = failed || m["type"] == "receipt" && obody(m)["result"] == "failed" && obody(m)["obligation"] == "feed"
		}
		if !failed {
			t.Fatal("no failed receipt")
		}
	})

	t.Run("L3-NEGOTIATE", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		a, b := s.join("{}"), s.join("{}")
		terms := func(n int) map[string]any {
			t := map[string]any{}
			for k, v := range e2eTerms {
				t[k] = v
			}
			t["title"] = fmt.Sprintf("Round %d", n)
			return t
		}
		// A request commits nobody; the answer is an offer with re.
		if code, _ := s.send(a, s.msg(a, "request", map[string]any{"to": b.id}, map[string]any{"note": "A slot next week?"})); code != 202 {
			t.Fatalf("request = %d", code)
		}
		m := s.step(b, s.msg(b, "offer", map[string]any{"to": a.id, "re": "m_e2e_0001"}, map[string]any{"terms": terms(1)}))
		deal := m["deal"].(string)
		var last map[string]any
		for i, p := range []*orpParty{a, b, a} {
			m = s.step(p, s.msg(p, "counter", map[string]any{"deal": deal}, map[string]any{"terms": terms(i + 2)}))
			bound := obody(m)["bound"].([]any)
			if obody(m)["state"] != "proposed" || len(bound) != 1 || bound[0].(map[string]any)["party"] != p.id {
				t.Fatalf("counter %d = %v, want only %s bound", i+1, obody(m), p.id)
			}
			last = obody(m)
		}
		m = s.step(b, s.msg(b, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": last["terms_hash"]}))
		if obody(m)["state"] != "active" || len(obody(m)["bound"].([]any)) != 2 {
			t.Fatalf("accept = %v", m)
		}
		// The round cap on a fresh deal: 19 counters reach round 20, the next is refused.
		m = s.step(a, s.msg(a, "offer", map[string]any{"to": b.id}, map[string]any{"terms": terms(1)}))
		deal = m["deal"].(string)
		for round := 2; round <= 20; round++ {
			p := []*orpParty{a, b}[round%2]
			s.step(p, s.msg(p, "counter", map[string]any{"deal": deal}, map[string]any{"terms": terms(round)}))
		}
		code, m := s.send(b, s.msg(b, "counter", map[string]any{"deal": deal}, map[string]any{"terms": terms(21)}))
		if code != 409 || obody(m)["code"] != "state_conflict" {
			t.Fatalf("round 21 = %d %v", code, m)
		}
	})

	t.Run("L3-SPACE", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		pub, maker := s.join("{}"), s.join("{}")
		// The demo admits loopback (outbound.allow_private), so the
		// refused locator is one refused in every mode: loopback written
		// as a short number.
		space := map[string]any{"id": "sp_news_1", "kind": "newsletter.issue", "platform": "newsletter", "title": "Indie Stack Weekly",
			"locator": "http://127.1:9/issues", "topics": []string{"software.productivity"},
			"audience": map[string]any{"size": "1k-10k", "source": "self_report", "regions": []any{
				map[string]any{"region": "DE", "share": "25-50%"}, map[string]any{"region": "AT", "share": "1-5%"}}}}
		if code, m := s.send(pub, s.msg(pub, "space", nil, map[string]any{"action": "put", "space": space})); code != 400 || obody(m)["code"] != "invalid_message" {
			t.Fatalf("private locator = %d %v", code, m)
		}
		space["locator"] = "https://indiestack.example/issues"
		m := s.step(pub, s.msg(pub, "space", nil, map[string]any{"action": "put", "space": space}))
		if obody(m)["status"] != "listed" || obody(m)["space"].(map[string]any)["verified"] != nil {
			t.Fatalf("listed = %v, want listed and not verified", m)
		}
		_, m = s.send(maker, s.msg(maker, "discover", nil, map[string]any{"want": "spaces", "context": map[string]any{"text": "software productivity"}}))
		it := obody(m)["items"].([]any)[0].(map[string]any)
		sp := it["space"].(map[string]any)
		regions := sp["audience"].(map[string]any)["regions"].([]any)
		if sp["locator"] != nil || len(regions) != 1 || sp["audience"].(map[string]any)["k_min"] != float64(50) || it["trust"] == nil || len(it["fit"].(map[string]any)["reasons"].([]any)) == 0 {
			t.Fatalf("discovered space = %v", it)
		}
	})

	t.Run("L3-DISPUTE", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		maker, pub, deal, po, _ := s.saleDeal(t)
		open := s.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "place", "claim": "invalid_traffic", "statement": "A burst of clicks."})
		var opened struct{ ID string }
		json.Unmarshal(open, &opened)
		m := s.step(maker, open)
		if obody(m)["state"] != "disputed" {
			t.Fatalf("open = %v", m)
		}
		s.step(pub, s.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "respond", "dispute": opened.ID, "statement": "One issue went out."}))
		s.clock.Advance(31 * 24 * time.Hour)
		s.sweep()
		s.reconnect(maker, pub)
		if p := s.payout(pub, po); p["state"] != "held" {
			t.Fatalf("payout during the dispute = %v", p)
		}
		form := url.Values{"deal": {deal}, "dispute": {opened.ID}, "token": {l3ResolverToken}, "resolution": {"rejected"}}
		resp, page := s.do("POST", "/orp/resolve", "", []byte(form.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if resp.StatusCode != 200 || !strings.Contains(string(page), "resolved: rejected") {
			t.Fatalf("resolver page = %d %s", resp.StatusCode, page)
		}
		if p := s.payout(pub, po); p["state"] != "payable" {
			t.Fatalf("payout after the resolution = %v", p)
		}
		if d := s.deal(pub, deal); d["state"] != "active" {
			t.Fatalf("deal = %v", d["state"])
		}
	})

	t.Run("L3-REPUTATION", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		// A publisher that a person claimed, with a scripted history: one
		// placement verified by its link, one share failed at its deadline.
		resp, b := s.do("POST", "/orp/join", "", []byte(`{}`), nil)
		var j struct{ Party, Token, Claim string }
		json.Unmarshal(b, &j)
		if resp.StatusCode != 201 {
			t.Fatalf("join = %d", resp.StatusCode)
		}
		pub := &orpParty{id: j.Party, token: j.Token}
		s.claimByMail(joined{Party: j.Party, Claim: j.Claim, Token: j.Token}, "publisher@example.org")
		m1, m2 := s.join("{}"), s.join("{}")
		_, active := s.l3Deal(m1, pub, e2eTerms)
		s.click("GET", trackedLink(active, "place"), human)
		s.storedClicks(trackedLink(active, "place"))
		share := map[string]any{"title": "Weekly opens", "kind": "data", "obligations": []any{
			map[string]any{"id": "feed", "by": "acceptor", "action": "share", "data": map[string]any{"description": "Weekly opens, counts only."}, "due": "P1D", "proof": []string{"attestation"}}}}
		s.l3Deal(m2, pub, share)
		s.clock.Advance(25 * time.Hour)
		s.sweep()
		code, m := s.send(m1, s.msg(m1, "reputation", nil, map[string]any{"subject": pub.id}))
		rb := obody(m)
		comp, _ := json.Marshal(rb["components"])
		// verified 0.9 × 0.25 (an unknown counterparty's standing), a day
		// old; failed 1 × 0.25; total 0.47, below 3, so the score is null.
		if code != 200 || rb["algorithm"] != "orp-rep-1" || rb["score"] != nil || rb["computed_at"] == nil ||
			string(comp) != `{"counterparties":2,"disputes_lost":0,"evidence_weight":0.5,"failed":0.3,"verified":0.2}` {
			t.Fatalf("reputation = %d %v %s", code, rb, comp)
		}
		raw, _ := json.Marshal(m)
		if strings.Contains(string(raw), m2.id) {
			t.Fatalf("reputation names a counterparty: %s", raw)
		}
	})

	t.Run("L3-PAYOUT", func(t *testing.T) {
		s := startL3(t, fresh(t), overMCP)
		maker, pub, deal, po, click := s.saleDeal(t)
		s.clock.Advance(30 * 24 * time.Hour)
		s.sweep()
		s.reconnect(maker, pub)
		if p := s.payout(pub, po); p["state"] != "payable" {
			t.Fatalf("after the hold = %v", p)
		}
		row := s.lastOutcome(pub)
		money, _ := json.Marshal([]any{row["conversions"], row["revenue"], row["earned"]})
		if string(money) != `[2,{"amount_minor":16000,"currency":"EUR"},{"amount_minor":4800,"currency":"EUR"}]` {
			t.Fatalf("outcome = %s", money)
		}
		s.step(maker, s.msg(maker, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "sent", "ref": "tr_l3_1"}))
		if p := s.payout(pub, po); p["state"] != "sent" || p["ref"] != "tr_l3_1" {
			t.Fatalf("sent = %v", p)
		}
		s.step(pub, s.msg(pub, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "confirm"}))
		if p := s.payout(pub, po); p["state"] != "paid" {
			t.Fatalf("confirmed = %v", p)
		}
		s.webhook("evt_refund_"+deal, "charge.refunded", map[string]any{"id": "ch_" + deal, "amount": 10000, "amount_refunded": 10000, "currency": "eur", "payment_intent": "pi_" + deal})
		if p := s.payout(pub, po); p["state"] != "reversed" {
			t.Fatalf("after the refund = %v", p)
		}
		for _, p := range []*orpParty{maker, pub} {
			for _, m := range s.inbox(p) {
				raw, _ := json.Marshal(m)
				if strings.Contains(string(raw), click) {
					t.Fatalf("a message carries the click id: %s", raw)
				}
			}
		}
	})
}

// TestORPSuitesExist: every level in orpSuites has its suite, a test
// function TestORP_<level> in this package, which CI runs; and the
// claimed levels are the unbroken run of them from L0 (§17).
func TestORPSuitesExist(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = true
			}
		}
	}
	for _, l := range orpSuites {
		if !funcs["TestORP_"+l] {
			t.Errorf("level %s is listed without its suite TestORP_%s", l, l)
		}
	}
	if got := strings.Join(orp.ClaimedLevels([]string{"L0", "L1", "L3"}), ","); got != "L0,L1" {
		t.Fatalf("claimed without L2 = %s, want L0,L1", got)
	}
	if got := strings.Join(orp.ClaimedLevels([]string{"L0", "L1", "L2", "L3"}), ","); got != "L0,L1,L2,L3" {
		t.Fatalf("claimed with every suite = %s", got)
	}
}

// TestORPSecretsLoaded: the provider webhook secret is read from the
// environment variable and the resolver token from the file that the
// config names.
func TestORPSecretsLoaded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "resolver")
	if err := os.WriteFile(file, []byte("resolver-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FRONTDESK_TEST_STRIPE_WHSEC", "whsec_from_env")
	c := config.Demo()
	c.ORP.StripeWebhookSecretEnv, c.ORP.ResolverTokenFile = "FRONTDESK_TEST_STRIPE_WHSEC", file
	if err := c.LoadSecrets(); err != nil {
		t.Fatal(err)
	}
	if c.ORP.StripeWebhookSecret != "whsec_from_env" || c.ORP.ResolverToken != "resolver-from-file" {
		t.Fatalf("secrets = %q, %q", c.ORP.StripeWebhookSecret, c.ORP.ResolverToken)
	}
}
