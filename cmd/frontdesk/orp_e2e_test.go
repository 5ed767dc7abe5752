package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/orp/schema"
)

// orpServer is a running frontdesk serve with the demo business (ORP
// enabled) on a data dir or database that outlives it, for restarts.
type orpServer struct {
	t     testing.TB
	url   string
	clock *clock.Fixed
	stop  func()
	main  *Main // the running process, for its store and scheduled work
	// mcp makes the parties that join through join, tryJoin and suggest
	// speak the MCP binding (§4.3) at /orp/mcp instead of the HTTP one.
	mcp bool
	// sessions are the MCP sessions opened on this server, closed before
	// it stops so that a restart does not wait out their open streams.
	sessions []*mcp.ClientSession
}

// startORP starts the server on addr ("127.0.0.1:0" for any port). The
// host's party ids carry its origin, so a restart reuses the first port.
func startORP(t *testing.T, dataDir, database string, clk *clock.Fixed) *orpServer {
	return startORPAt(t, dataDir, database, clk, "127.0.0.1:0")
}

func startORPAt(t testing.TB, dataDir, database string, clk *clock.Fixed, addr string, change ...func(*config.Config)) *orpServer {
	t.Helper()
	c := config.Demo()
	c.Store.DataDir, c.Store.Database = dataDir, database
	// The spec's example merchants are the owner's sites in these tests.
	c.ORP.Sites = append(c.ORP.Sites, "acmenotes.example", "notes.example")
	for _, f := range change {
		f(&c)
	}
	m, stop := launch(t, c, addr, clk)
	s := &orpServer{t: t, url: m.URL, clock: clk, main: m}
	s.stop = func() {
		for _, cs := range s.sessions {
			cs.Close()
		}
		stop()
	}
	return s
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (s *orpServer) do(method, path, token string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	s.t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = s.url + path
	}
	req, _ := http.NewRequest(method, target, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" && (strings.HasPrefix(path, "/orp") || strings.HasPrefix(path, "/.well-known/orp") || strings.Contains(path, "/go/")) {
		s.t.Fatalf("%s %s: Cache-Control = %q, want no-store", method, path, cc)
	}
	return resp, b
}

// orpParty is one party as a client of the host. A party with a session
// sends, reads its inbox and reads deals through the MCP binding; one
// without, through the HTTP binding with its bearer token.
type orpParty struct {
	id, token string
	n         int
	session   *mcp.ClientSession
}

// join joins a party through the server's binding and fails the test on
// a refusal.
func (s *orpServer) join(body string) *orpParty {
	s.t.Helper()
	status, b, p := s.tryJoin(body)
	if status != http.StatusCreated {
		s.t.Fatalf("join = %d %s", status, b)
	}
	return p
}

// tryJoin joins through the server's binding and returns the HTTP status
// and body the binding answers with (for MCP, those of the ORP error a
// refusal carries), and the party when it joined.
func (s *orpServer) tryJoin(body string) (int, []byte, *orpParty) {
	s.t.Helper()
	var status int
	var b []byte
	var session *mcp.ClientSession
	if s.mcp {
		status, b, session = s.joinMCP(body)
	} else {
		resp, rb := s.do("POST", "/orp/join", "", []byte(body), nil)
		status, b = resp.StatusCode, rb
	}
	if status != http.StatusCreated {
		return status, b, nil
	}
	var j struct{ Party, Token string }
	json.Unmarshal(b, &j)
	return status, b, &orpParty{id: j.Party, token: j.Token, session: session}
}

// anonymous is a client that claims to be p but holds no credential: no
// bearer on HTTP, a session that never joined on MCP.
func (s *orpServer) anonymous(p *orpParty) *orpParty {
	s.t.Helper()
	if !s.mcp {
		return &orpParty{id: p.id}
	}
	return &orpParty{id: p.id, session: s.connectMCP("")}
}

func (s *orpServer) msg(p *orpParty, typ string, extra map[string]any, body any) []byte {
	p.n++
	m := map[string]any{"orp": "0.3", "type": typ, "id": fmt.Sprintf("m_e2e_%04d", p.n), "ts": s.clock.Now().Format(time.RFC3339), "from": p.id, "body": body}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// send sends one message as p through p's binding and returns the HTTP
// status and reply message (for MCP, those of the tool's result).
func (s *orpServer) send(p *orpParty, raw []byte) (int, map[string]any) {
	s.t.Helper()
	var status int
	var b []byte
	if p.session != nil {
		status, b = s.callORP(p.session, "orp_send", map[string]any{"message": json.RawMessage(raw)}, http.StatusOK)
	} else {
		resp, rb := s.do("POST", "/orp", p.token, raw, nil)
		status, b = resp.StatusCode, rb
	}
	var m map[string]any
	if len(b) > 0 {
		json.Unmarshal(b, &m)
		validate(s.t, schema.Message, b)
	}
	return status, m
}

// snapshot is p's deal snapshot through p's binding.
func (s *orpServer) snapshot(p *orpParty, deal string) []byte {
	s.t.Helper()
	if p.session != nil {
		_, b := s.callORP(p.session, "orp_deal", map[string]any{"deal": deal}, http.StatusOK)
		return b
	}
	_, b := s.do("GET", "/orp/deals/"+deal, p.token, nil, nil)
	return b
}

func validate(t testing.TB, name string, b []byte) {
	t.Helper()
	set, err := schema.New()
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	d.Decode(&v)
	if err := set.Validate(name, v); err != nil {
		t.Fatalf("%s does not validate: %v\n%s", name, err, b)
	}
}

func obody(m map[string]any) map[string]any { b, _ := m["body"].(map[string]any); return b }

var e2eTerms = map[string]any{
	"title": "Acme Notes: 30% of first-year revenue", "kind": "affiliate", "categories": []string{"software.productivity"},
	"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "must_not_include": []string{"free forever"}},
			"destination": "https://acmenotes.example/pricing", "proof": []string{"link"}},
		map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "window": "P30D", "rail": "stripe", "proof": []string{"provider"}},
	},
}

const e2eHash = "sha256-Bti4pak22vzeA0HAuX0eLXhUQy1pnbf9YGiGKYgJpNo"

func (s *orpServer) approve(p *orpParty, approval string) map[string]any {
	s.t.Helper()
	if resp, _ := s.do("GET", approval, "", nil, nil); resp.StatusCode != 200 {
		s.t.Fatalf("approval page = %d", resp.StatusCode)
	}
	resp, b := s.do("POST", approval, p.token, nil, nil)
	if resp.StatusCode != 200 {
		s.t.Fatalf("approve = %d %s", resp.StatusCode, b)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// listOffer lists the affiliate offer from a fresh party.
func (s *orpServer) listOffer() (*orpParty, string) {
	s.t.Helper()
	maker := s.join(`{"agent":{"name":"maker agent","version":"1.0"}}`)
	code, m := s.send(maker, s.msg(maker, "offer", nil, map[string]any{"terms": e2eTerms}))
	if code != 200 || obody(m)["terms_hash"] != e2eHash {
		s.t.Fatalf("offer = %d %v", code, m)
	}
	listed := s.approve(maker, obody(m)["waiting"].(map[string]any)["url"].(string))
	return maker, obody(listed)["id"].(string)
}

// TestORP_L0 runs L0-SCHEMA, L0-HASH, L0-IDEMPOTENT, L0-REPLAY and
// L0-STALE against the started server over the HTTP binding, with a
// restart in the middle. TestORP_MCPSuite runs them over MCP.
func TestORP_L0(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { runL0(t, t.TempDir(), "", false) })
	t.Run("postgres", func(t *testing.T) { runL0(t, t.TempDir(), pgtest.Schema(t), false) })
}

// runL0 runs the L0 tests in order on one server, each a subtest named
// for it, through the MCP binding when overMCP is set. The later tests
// use the party and the offer of the earlier ones.
func runL0(t *testing.T, dir, database string, overMCP bool) {
	clk := clock.NewFixed(testNow)
	s := startORP(t, dir, database, clk)
	s.mcp = overMCP
	var p *orpParty

	// Discovery and every reply validate; invalid messages are refused
	// with the code, status and field of §16.
	t.Run("L0-SCHEMA", func(t *testing.T) {
		resp, b := s.do("GET", "/.well-known/orp.json", "", nil, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("discovery = %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
		validate(t, schema.Discovery, b)
		p = s.join("{}")
		for _, c := range []struct {
			name   string
			raw    string
			status int
			code   string
		}{
			{"a field the schema does not have", `{"orp":"0.3","type":"hello","id":"m_e2e_bad1","ts":"2026-11-30T17:00:00Z","from":"` + p.id + `","body":{"versions":["0.3"],"email":"a@b.example"}}`, 400, "invalid_message"},
			{"a SemVer version", `{"orp":"0.3.0","type":"hello","id":"m_e2e_bad2","ts":"2026-11-30T17:00:00Z","from":"` + p.id + `","body":{"versions":["0.3"]}}`, 400, "invalid_message"},
			{"a duplicate key", `{"orp":"0.3","type":"hello","id":"m_e2e_bad3","id":"m_e2e_bad3","ts":"2026-11-30T17:00:00Z","from":"` + p.id + `","body":{"versions":["0.3"]}}`, 400, "invalid_message"},
			{"a version not spoken", `{"orp":"0.9","type":"hello","id":"m_e2e_bad4","ts":"2026-11-30T17:00:00Z","from":"` + p.id + `","body":{"versions":["0.9"]}}`, 400, "unsupported_version"},
		} {
			code, m := s.send(p, []byte(c.raw))
			if code != c.status || obody(m)["code"] != c.code {
				t.Fatalf("%s = %d %v, want %d %s", c.name, code, m, c.status, c.code)
			}
		}
		if code, m := s.send(s.anonymous(p), s.msg(p, "hello", nil, map[string]any{"versions": []string{"0.3"}})); code != 401 || obody(m)["code"] != "unauthorized" {
			t.Fatalf("no credential = %d %v", code, m)
		}
		resp, _ = s.do("GET", "/orp/schemas/message.schema.json", "", nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("schema file = %d", resp.StatusCode)
		}
	})
	if p == nil {
		t.FailNow() // every later test needs the party
	}

	t.Run("L0-STALE", func(t *testing.T) {
		for _, ts := range []string{"2026-11-30T16:44:59Z", "2026-11-30T17:15:01Z"} {
			raw := `{"orp":"0.3","type":"hello","id":"m_e2e_stale` + ts[17:19] + `","ts":"` + ts + `","from":"` + p.id + `","body":{"versions":["0.3"]}}`
			if code, m := s.send(p, []byte(raw)); code != 400 || obody(m)["code"] != "stale" {
				t.Fatalf("ts %s = %d %v, want 400 stale", ts, code, m)
			}
		}
	})

	// The host computes the spec's terms_hash for the spec's terms.
	offer := s.msg(p, "offer", nil, map[string]any{"terms": e2eTerms, "terms_hash": e2eHash})
	var first map[string]any
	t.Run("L0-HASH", func(t *testing.T) {
		var code int
		code, first = s.send(p, offer)
		if code != 200 || obody(first)["terms_hash"] != e2eHash {
			t.Fatalf("offer = %d %v", code, first)
		}
		bad := s.msg(p, "offer", nil, map[string]any{"terms": e2eTerms, "terms_hash": "sha256-" + strings.Repeat("x", 43)})
		if code, m := s.send(p, bad); code != 409 || obody(m)["code"] != "terms_mismatch" {
			t.Fatalf("wrong hash = %d %v", code, m)
		}
	})
	if first == nil {
		t.FailNow()
	}

	// Idempotency and replay hold before and after a restart.
	var changed map[string]any
	json.Unmarshal(offer, &changed)
	changed["body"].(map[string]any)["limit"] = 7
	replay, _ := json.Marshal(changed)
	t.Run("L0-IDEMPOTENT", func(t *testing.T) {
		if _, again := s.send(p, offer); again["id"] != first["id"] {
			t.Fatalf("repeat = %v, want the original reply %v", again, first)
		}
	})
	t.Run("L0-REPLAY", func(t *testing.T) {
		if code, m := s.send(p, replay); code != 409 || obody(m)["code"] != "replay" {
			t.Fatalf("replay = %d %v", code, m)
		}
	})
	s.stop()
	clk.Advance(10 * time.Minute)
	s = startORPAt(t, dir, database, clk, strings.TrimPrefix(s.url, "http://"))
	s.mcp = overMCP
	if overMCP {
		// The joined session ended with the server; the party comes back
		// with its bearer, as any MCP client can.
		p.session = s.connectMCP(p.token)
	}
	t.Run("L0-IDEMPOTENT-AFTER-RESTART", func(t *testing.T) {
		if _, m := s.send(p, offer); m["id"] != first["id"] {
			t.Fatalf("after restart = %v, want the original reply", m)
		}
	})
	t.Run("L0-REPLAY-AFTER-RESTART", func(t *testing.T) {
		if code, m := s.send(p, replay); code != 409 || obody(m)["code"] != "replay" {
			t.Fatalf("replay after restart = %d %v", code, m)
		}
	})
}

// TestORP_C2_NoEmailNoSignup is C2-NO-EMAIL-NO-SIGNUP over HTTP, with
// L1-NO-PII's join refusals and L1-POLICIES.
func TestORP_C2_NoEmailNoSignup(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	s.listOffer()
	resp, b := s.do("POST", "/orp/suggest", "", []byte(`{"text":"Thread draft: five tools that keep a solo founder organised, notes and revenue","platform":"x","join":{}}`), map[string]string{"Origin": "https://elsewhere.example"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("suggest = %d %s", resp.StatusCode, b)
	}
	validate(t, schema.SuggestResponse, b)
	var sug struct {
		Items []struct {
			Offer struct {
				ID        string `json:"id"`
				TermsHash string `json:"terms_hash"`
			} `json:"offer"`
			Pitch string
		}
		Joined struct{ Party, Token, Claim string }
	}
	json.Unmarshal(b, &sug)
	if len(sug.Items) == 0 || sug.Items[0].Pitch == "" || sug.Joined.Token == "" {
		t.Fatalf("suggest = %s", b)
	}
	me := &orpParty{id: sug.Joined.Party, token: sug.Joined.Token}
	code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": sug.Items[0].Offer.ID, "terms_hash": sug.Items[0].Offer.TermsHash}))
	w, _ := obody(m)["waiting"].(map[string]any)
	if code != 200 || obody(m)["state"] != "awaiting" || w == nil || !strings.HasPrefix(w["url"].(string), s.url+"/approve/") {
		t.Fatalf("accept = %d %v, want awaiting with an approval url", code, m)
	}
	if strings.Contains(strings.ToLower(string(b)), "email") {
		t.Fatalf("suggest mentions email: %s", b)
	}

	// L1-NO-PII: join takes no email, name, domain or password.
	for _, body := range []string{`{"email":"a@b.example"}`, `{"name":"Jane"}`, `{"agent":{"name":"writer (beta)"}}`} {
		resp, b := s.do("POST", "/orp/join", "", []byte(body), nil)
		if resp.StatusCode != 400 || !strings.Contains(string(b), "invalid_message") {
			t.Fatalf("join %s = %d %s", body, resp.StatusCode, b)
		}
	}

	// L1-POLICIES: the discovery policies point at pages the server serves.
	_, b = s.do("GET", "/.well-known/orp.json", "", nil, nil)
	var d struct{ Policies map[string]string }
	json.Unmarshal(b, &d)
	for _, k := range []string{"terms", "privacy"} {
		u := d.Policies[k]
		if !strings.HasPrefix(u, s.url) {
			t.Fatalf("policies.%s = %q, not on this server", k, u)
		}
		if resp, _ := s.do("GET", u, "", nil, nil); resp.StatusCode != 200 {
			t.Fatalf("policies.%s %s = %d", k, u, resp.StatusCode)
		}
	}
}

// TestORP_C1_UniversalLink is C1-UNIVERSAL-LINK-NO-ADAPTER with
// L1-TEST-CLICKS and L1-PLAIN-AFTER-REVOKE, and the outcome made by
// `frontdesk sweep` a week later on the same data.
func TestORP_C1_UniversalLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := clock.NewFixed(testNow)
	s := startORP(t, dir, "", clk)
	maker, offer := s.listOffer()
	pub := s.join("{}")
	_, m := s.send(pub, s.msg(pub, "accept", nil, map[string]any{"offer": offer, "terms_hash": e2eHash}))
	deal := m["deal"].(string)
	active := s.approve(pub, obody(m)["waiting"].(map[string]any)["url"].(string))
	link := obody(active)["tracking"].([]any)[0].(map[string]any)["link"].(string)

	seen := map[string]bool{}
	for _, ref := range []string{"", "https://x.com/indie/status/1", "https://blog.example/post"} {
		resp, _ := s.do("GET", link, "", nil, map[string]string{"User-Agent": browserUA, "Referer": ref})
		loc, _ := url.Parse(resp.Header.Get("Location"))
		via := loc.Query().Get("via")
		if resp.StatusCode != 302 || loc.Host != "acmenotes.example" || via == "" || seen[via] ||
			resp.Header.Get("Referrer-Policy") != "no-referrer" || resp.Header.Get("X-Robots-Tag") != "noindex" || len(resp.Cookies()) > 0 {
			t.Fatalf("click = %d %v", resp.StatusCode, resp.Header)
		}
		seen[via] = true
		clk.Advance(6 * time.Second)
	}
	s.do("GET", link+"?orp_test=1", "", nil, map[string]string{"User-Agent": browserUA})
	s.do("HEAD", link, "", nil, map[string]string{"User-Agent": browserUA})
	s.main.orp.host.Flush(context.Background()) // the click writer's batch, now

	_, b := s.do("GET", "/orp/deals/"+deal, pub.token, nil, nil)
	if !strings.Contains(string(b), `"state":"verified"`) {
		t.Fatalf("no link verification after the first human click: %s", b)
	}

	// Revoke: the link still redirects, plain.
	if code, m := s.send(maker, s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); code != 200 {
		t.Fatalf("revoke = %d %v", code, m)
	}
	resp, _ := s.do("GET", link, "", nil, map[string]string{"User-Agent": browserUA})
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://acmenotes.example/pricing" {
		t.Fatalf("plain link = %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	s.stop()

	// One sweep pass, as `frontdesk sweep` runs it, on the same data a
	// week later.
	clk.Advance(7 * 24 * time.Hour)
	c := config.Demo()
	c.Store.DataDir = dir
	addr := strings.TrimPrefix(s.url, "http://")
	sweeper := &Main{Config: c, Addr: addr, Logger: slog.New(slog.DiscardHandler), Clock: clk, Out: io.Discard}
	var out bytes.Buffer
	if err := sweeper.RunSweep(context.Background(), &out); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	if !strings.Contains(out.String(), "outcomes=2") {
		t.Fatalf("sweep printed %q, want two outcomes", out.String())
	}
	s = startORPAt(t, dir, "", clk, addr)
	_, b = s.do("GET", "/orp/inbox", pub.token, nil, nil)
	validate(t, schema.Inbox, b)
	var page struct{ Messages []map[string]any }
	json.Unmarshal(b, &page)
	var last map[string]any
	for _, m := range page.Messages {
		if m["type"] == "outcome" {
			last = m
		}
	}
	if last == nil {
		t.Fatalf("no outcome in the inbox: %s", b)
	}
	row := obody(last)["rows"].([]any)[0].(map[string]any)
	clicks := row["clicks"].(map[string]any)
	if obody(last)["final"] != true || clicks["human"] != float64(3) || clicks["test"] != float64(1) || clicks["preview"] != float64(1) {
		t.Fatalf("outcome = %v", last)
	}
}

const browserUA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"

// TestSweepCommand runs `frontdesk sweep` as a command on a fresh data dir.
func TestSweepCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), clock.System{}, []string{"sweep", "--data", t.TempDir()}, nil, &out, io.Discard); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "sweep: orp outcomes=0 ") {
		t.Fatalf("sweep printed %q", got)
	}
}
