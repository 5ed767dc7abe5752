package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// storedClicks are every click stored for the tracked link, after the
// click writer's queue is flushed.
func (s *orpServer) storedClicks(link string) []orp.StoredClick {
	s.t.Helper()
	s.main.orp.host.Flush(context.Background())
	clicks, err := s.main.orp.host.StoredClicks(context.Background(), link[strings.LastIndex(link, "/")+1:], time.Unix(0, 0), s.clock.Now().Add(time.Hour))
	if err != nil {
		s.t.Fatal(err)
	}
	return clicks
}

// Three places a person meets a link (C1): a mail client, a social post
// and a plain page.
const (
	mailUA   = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Thunderbird/128.0"
	socialUA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)

// activeDeal lists the affiliate offer, accepts it from a fresh party and
// approves the ask, returning the parties, the deal and its tracked link.
func (s *orpServer) activeDeal() (maker, pub *orpParty, deal, link string) {
	s.t.Helper()
	maker, offer := s.listOffer()
	pub = s.join("{}")
	_, m := s.send(pub, s.msg(pub, "accept", nil, map[string]any{"offer": offer, "terms_hash": e2eHash}))
	deal = m["deal"].(string)
	active := s.approve(pub, obody(m)["waiting"].(map[string]any)["url"].(string))
	if obody(active)["state"] != "active" {
		s.t.Fatalf("deal = %v, want active", active)
	}
	link = obody(active)["tracking"].([]any)[0].(map[string]any)["link"].(string)
	return maker, pub, deal, link
}

// click requests a tracked link the way a browser would, without
// following the redirect.
func (s *orpServer) click(method, link string, hdr map[string]string) (status int, location string) {
	s.t.Helper()
	resp, _ := s.do(method, link, "", nil, hdr)
	if len(resp.Cookies()) > 0 || resp.Header.Get("Referrer-Policy") != "no-referrer" || resp.Header.Get("X-Robots-Tag") != "noindex" {
		s.t.Fatalf("%s %s: headers %v (T4)", method, link, resp.Header)
	}
	return resp.StatusCode, resp.Header.Get("Location")
}

// inbox returns every message in a party's inbox through its binding,
// validating each page.
func (s *orpServer) inbox(p *orpParty) []map[string]any {
	s.t.Helper()
	var all []map[string]any
	after := ""
	for {
		var b []byte
		if p.session != nil {
			_, b = s.callORP(p.session, "orp_inbox", map[string]any{"after": after}, http.StatusOK)
		} else {
			_, b = s.do("GET", "/orp/inbox?after="+url.QueryEscape(after), p.token, nil, nil)
		}
		validate(s.t, schema.Inbox, b)
		var page struct {
			Messages []map[string]any
			Next     string
		}
		json.Unmarshal(b, &page)
		all = append(all, page.Messages...)
		if len(page.Messages) < 100 {
			return all
		}
		after = page.Next
	}
}

// suggest asks for offers through the server's binding, from a client
// with no credential, and returns the status, the response and the party
// it joined as when body asks to join.
func (s *orpServer) suggest(body string) (int, []byte, *orpParty) {
	s.t.Helper()
	var status int
	var b []byte
	var session *mcp.ClientSession
	if s.mcp {
		session = s.connectMCP("")
		var args map[string]any
		json.Unmarshal([]byte(body), &args)
		status, b = s.callORP(session, "orp_suggest", args, http.StatusOK)
	} else {
		resp, rb := s.do("POST", "/orp/suggest", "", []byte(body), nil)
		status, b = resp.StatusCode, rb
	}
	var sug struct {
		Joined *struct{ Party, Token string }
	}
	json.Unmarshal(b, &sug)
	if status != http.StatusOK || sug.Joined == nil {
		return status, b, nil
	}
	return status, b, &orpParty{id: sug.Joined.Party, token: sug.Joined.Token, session: session}
}

// sweep runs one pass of the scheduled work in the running server, as its
// ticker does.
func (s *orpServer) sweep() {
	s.t.Helper()
	if _, err := s.main.orp.host.Sweep(context.Background()); err != nil {
		s.t.Fatalf("sweep: %v", err)
	}
}

// lastOutcome is the newest outcome in a party's inbox.
func (s *orpServer) lastOutcome(p *orpParty) map[string]any {
	s.t.Helper()
	var last map[string]any
	for _, m := range s.inbox(p) {
		if m["type"] == "outcome" {
			last = m
		}
	}
	if last == nil {
		s.t.Fatal("no outcome in the inbox")
	}
	return obody(last)["rows"].([]any)[0].(map[string]any)
}

// obligation is one obligation's state in a deal snapshot, read by field
// so that both bindings' key orders compare alike.
func obligation(snapshot []byte, id string) map[string]any {
	var m map[string]any
	json.Unmarshal(snapshot, &m)
	obs, _ := obody(m)["obligations"].([]any)
	for _, o := range obs {
		if o, _ := o.(map[string]any); o["id"] == id {
			return o
		}
	}
	return nil
}

func hasReceipt(msgs []map[string]any) bool {
	for _, m := range msgs {
		if m["type"] == "receipt" && obody(m)["method"] == "link" && obody(m)["obligation"] == "place" && obody(m)["result"] == "verified" {
			return true
		}
	}
	return false
}

// TestORP_L1 is the L1 Core suite of §17, one subtest per named test, run
// black-box over HTTP against the started server on both store engines.
// cmd/frontdesk claims L1 in discovery because this suite passes, here
// and over MCP in TestORP_MCPSuite.
func TestORP_L1(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { runL1(t, func(*testing.T) string { return "" }, false) })
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t)
		runL1(t, func(t *testing.T) string { return pgtest.Schema(t) }, false)
	})
}

// runL1 runs each test on a fresh store: database returns "" for SQLite
// in a temp dir, or a fresh PostgreSQL schema. With overMCP, every party
// joins, sends, reads its inbox and reads deals through the MCP binding;
// tracked links and the approval, claim and policy pages stay HTTP, as
// they are for any agent.
func runL1(t *testing.T, fresh func(*testing.T) string, overMCP bool) {
	start := func(t *testing.T) *orpServer {
		srv := startORP(t, t.TempDir(), fresh(t), clock.NewFixed(testNow))
		srv.mcp = overMCP
		return srv
	}
	t.Run("C1-UNIVERSAL-LINK-NO-ADAPTER", func(t *testing.T) {
		s := start(t)
		maker, pub, deal, link := s.activeDeal()
		seen := map[string]bool{}
		for i, c := range []map[string]string{
			{"User-Agent": mailUA},
			{"User-Agent": socialUA, "Referer": "https://t.co/x7Kq2"},
			{"User-Agent": browserUA, "Referer": "https://blog.example/posts/tools"},
		} {
			status, loc := s.click("GET", link, c)
			u, _ := url.Parse(loc)
			via := u.Query().Get("via")
			if status != 302 || u.Host != "acmenotes.example" || u.Path != "/pricing" || len(via) < 16 || seen[via] {
				t.Fatalf("click %d = %d %s, want a 302 with a fresh via id", i, status, loc)
			}
			seen[via] = true
			if i == 0 {
				// No plugin, adapter, execute or receipt came first; the first
				// human click proves the placement (T6, T7).
				s.main.orp.host.Flush(context.Background())
				if !hasReceipt(s.inbox(pub)) || !hasReceipt(s.inbox(maker)) {
					t.Fatal("no link receipt after the first human click was written")
				}
				b := s.snapshot(pub, deal)
				if ob := obligation(b, "place"); ob["state"] != "verified" || ob["receipt"] == nil {
					t.Fatalf("deal after the first click = %s", b)
				}
			}
			s.clock.Advance(6 * time.Second)
		}
		var humans int
		for _, c := range s.storedClicks(link) {
			if c.Class == "human" {
				humans++
			}
		}
		if humans != 3 {
			t.Fatalf("%d human clicks stored, want 3", humans)
		}
		s.clock.Advance(7 * 24 * time.Hour)
		s.sweep()
		row := s.lastOutcome(pub)
		if c := row["clicks"].(map[string]any); c["human"] != float64(3) {
			t.Fatalf("outcome clicks = %v, want 3 human", c)
		}
	})

	t.Run("C2-NO-EMAIL-NO-SIGNUP", func(t *testing.T) {
		s := start(t)
		s.listOffer()
		status, b, me := s.suggest(`{"text":"Thread draft: five tools that keep a solo founder organised, notes and revenue","join":{}}`)
		if status != 200 || me == nil {
			t.Fatalf("suggest = %d %s", status, b)
		}
		validate(t, schema.SuggestResponse, b)
		var sug struct {
			Items []struct {
				Offer struct {
					ID        string `json:"id"`
					TermsHash string `json:"terms_hash"`
				} `json:"offer"`
				Pitch string `json:"pitch"`
			} `json:"items"`
			Joined struct{ Party, Token, Claim string }
		}
		json.Unmarshal(b, &sug)
		if len(sug.Items) == 0 || sug.Items[0].Pitch == "" || len([]rune(sug.Items[0].Pitch)) > 280 || sug.Joined.Token == "" {
			t.Fatalf("suggest = %s", b)
		}
		code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": sug.Items[0].Offer.ID, "terms_hash": sug.Items[0].Offer.TermsHash}))
		w, _ := obody(m)["waiting"].(map[string]any)
		if code != 200 || obody(m)["state"] != "awaiting" || w == nil || !strings.HasPrefix(w["url"].(string), s.url+"/approve/") {
			t.Fatalf("accept = %d %v", code, m)
		}
		// Nothing along the way asked for an email: not suggest, not the
		// reply, not the approval page, not the claim page.
		_, approval := s.do("GET", w["url"].(string), "", nil, nil)
		_, claim := s.do("GET", sug.Joined.Claim, "", nil, nil)
		for _, page := range [][]byte{b, mustJSON(m), approval} {
			if strings.Contains(strings.ToLower(string(page)), "email") {
				t.Fatalf("a step mentions email: %s", page)
			}
		}
		if strings.Contains(string(claim), `type="email"`) || strings.Contains(string(claim), `type="password"`) {
			t.Fatalf("the claim page asks for an email or password: %s", claim)
		}
	})

	// C2 on the demo as shipped: nothing listed by a test, only the
	// business's own referral offer (orp.referral_bps in the demo config).
	t.Run("C2-NO-EMAIL-NO-SIGNUP-DEMO", func(t *testing.T) {
		s := start(t)
		status, b, me := s.suggest(`{"text":"A weekend by the river: where we stayed and what we booked","join":{}}`)
		if status != 200 || me == nil {
			t.Fatalf("suggest = %d %s", status, b)
		}
		var sug struct {
			Items []struct {
				Offer struct {
					ID        string          `json:"id"`
					TermsHash string          `json:"terms_hash"`
					Terms     json.RawMessage `json:"terms"`
				} `json:"offer"`
				Pitch string `json:"pitch"`
			} `json:"items"`
		}
		json.Unmarshal(b, &sug)
		if len(sug.Items) != 1 || sug.Items[0].Pitch == "" || !strings.Contains(string(sug.Items[0].Offer.Terms), "/book/riverside") {
			t.Fatalf("suggest on the demo = %s, want the business's referral offer", b)
		}
		code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": sug.Items[0].Offer.ID, "terms_hash": sug.Items[0].Offer.TermsHash}))
		w, _ := obody(m)["waiting"].(map[string]any)
		if code != 200 || obody(m)["state"] != "awaiting" || w == nil || !strings.HasPrefix(w["url"].(string), s.url+"/approve/") {
			t.Fatalf("accept = %d %v", code, m)
		}
		if strings.Contains(strings.ToLower(string(b)+string(mustJSON(m))), "email") {
			t.Fatal("a step mentions email")
		}
	})

	t.Run("L1-PLAIN-AFTER-REVOKE", func(t *testing.T) {
		s := start(t)
		maker, pub, deal, link := s.activeDeal()
		if code, m := s.send(maker, s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); code != 200 || obody(m)["state"] != "revoked" {
			t.Fatalf("revoke = %d %v", code, m)
		}
		for _, method := range []string{"GET", "HEAD"} {
			if status, loc := s.click(method, link, map[string]string{"User-Agent": browserUA}); status != 302 || loc != "https://acmenotes.example/pricing" {
				t.Fatalf("plain link %s = %d %s, want a 302 to the bare destination (T8)", method, status, loc)
			}
		}
		b := s.snapshot(pub, deal)
		if !strings.Contains(string(b), `"status":"plain"`) {
			t.Fatalf("snapshot after revoke = %s", b)
		}
		// An unknown token goes to the home page, never a 404.
		if status, loc := s.click("GET", s.url+"/go/NoSuchToken1", map[string]string{"User-Agent": browserUA}); status != 302 || loc != s.url+"/" {
			t.Fatalf("unknown token = %d %s", status, loc)
		}
		if clicks := s.storedClicks(link); len(clicks) != 0 {
			t.Fatalf("the plain link stored %d clicks, want none (T8)", len(clicks))
		}
		s.sweep()
		row := s.lastOutcome(pub)
		if c := row["clicks"].(map[string]any); c["human"] != float64(0) || c["preview"] != float64(0) {
			t.Fatalf("final outcome clicks = %v, want nothing counted after revoke", c)
		}
	})

	t.Run("L1-NO-PII", func(t *testing.T) {
		s := start(t)
		for _, body := range []string{`{"email":"a@b.example"}`, `{"name":"Jane Doe"}`, `{"password":"hunter2"}`, `{"domain":"jane.example"}`} {
			if status, b, _ := s.tryJoin(body); status != 400 || !strings.Contains(string(b), `"invalid_message"`) {
				t.Fatalf("join %s = %d %s", body, status, b)
			}
		}
		maker, pub, deal, link := s.activeDeal()
		for _, c := range []struct {
			name string
			raw  []byte
		}{
			{"email in free text", s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "other", "note": "Write to jane@acmenotes.example"})},
			{"phone in free text", s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "other", "note": "Call +1 303 555 0142"})},
			{"a field the schema does not have", s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "other", "buyer_email": "x@y.example"})},
		} {
			if code, m := s.send(maker, c.raw); code != 400 || obody(m)["code"] != "invalid_message" {
				t.Fatalf("%s = %d %v", c.name, code, m)
			}
		}
		// A click with everything a browser sends leaves none of it behind.
		_, loc := s.click("GET", link, map[string]string{"User-Agent": browserUA, "Referer": "https://news.example/private/path?user=jane", "X-Forwarded-For": "203.0.113.9", "Cookie": "sid=abc123"})
		via, _ := url.Parse(loc)
		clickID := via.Query().Get("via")
		if n := len(s.storedClicks(link)); n != 1 {
			t.Fatalf("%d clicks stored, want 1", n)
		}
		for _, kind := range []string{"orp.party", "orp.token", "orp.msg", "orp.deal", "orp.offer", "orp.inbox", "orp.link", "orp.linkstat", "orp.clicks", "orp.clickids", "orp.esc", "orp.open"} {
			recs, err := s.main.store.List(context.Background(), kind, "", "", 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				for _, secret := range []string{"Safari/605", "private/path", "user=jane", "203.0.113.9", "abc123"} {
					if strings.Contains(r.Key+string(r.Value), secret) {
						t.Fatalf("%s %s holds %q: %s", kind, r.Key, secret, r.Value)
					}
				}
			}
		}
		// The publisher side never sees a click id (T10); outcomes name the
		// referring domain only, folded into other below five clicks.
		s.clock.Advance(7 * 24 * time.Hour)
		s.sweep()
		for _, p := range []*orpParty{pub, maker} {
			for _, m := range s.inbox(p) {
				if b := mustJSON(m); strings.Contains(string(b), clickID) || strings.Contains(string(b), "news.example") {
					t.Fatalf("a message to %s carries the click id or a small source: %s", p.id, b)
				}
			}
		}
	})

	t.Run("L1-TEST-CLICKS", func(t *testing.T) {
		s := start(t)
		_, pub, deal, link := s.activeDeal()
		status, loc := s.click("GET", link+"?orp_test=1", map[string]string{"User-Agent": browserUA})
		if status != 302 || !strings.Contains(loc, "via=") {
			t.Fatalf("test click = %d %s", status, loc)
		}
		if clicks := s.storedClicks(link); len(clicks) != 1 || clicks[0].Class != "test" {
			t.Fatalf("stored clicks = %+v, want one test click", clicks)
		}
		b := s.snapshot(pub, deal)
		if ob := obligation(b, "place"); ob["state"] != "pending" || ob["receipt"] != nil || hasReceipt(s.inbox(pub)) {
			t.Fatalf("a test click verified the placement: %s", b)
		}
		s.clock.Advance(7 * 24 * time.Hour)
		s.sweep()
		if c := s.lastOutcome(pub)["clicks"].(map[string]any); c["test"] != float64(1) || c["human"] != float64(0) {
			t.Fatalf("outcome clicks = %v, want one test click and no human", c)
		}
	})

	t.Run("L1-POLICIES", func(t *testing.T) {
		s := start(t)
		_, b := s.do("GET", "/.well-known/orp.json", "", nil, nil)
		validate(t, schema.Discovery, b)
		var d struct {
			Policies    map[string]string
			Conformance struct{ Levels []string }
			MCP         struct{ URL string }
		}
		json.Unmarshal(b, &d)
		pages := map[string]string{"terms": "does not hold money", "privacy": "Tracked-link clicks"}
		for k, want := range pages {
			u := d.Policies[k]
			if !strings.HasPrefix(u, s.url+"/") {
				t.Fatalf("policies.%s = %q, not a page of this server", k, u)
			}
			resp, page := s.do("GET", u, "", nil, nil)
			if resp.StatusCode != 200 || !strings.Contains(string(page), want) {
				t.Fatalf("policies.%s %s = %d, want a page saying %q", k, u, resp.StatusCode, want)
			}
		}
		if strings.Join(d.Conformance.Levels, ",") != strings.Join(orpLevels, ",") {
			t.Fatalf("conformance = %v, want %v", d.Conformance.Levels, orpLevels)
		}
		if overMCP {
			// An MCP agent finds the policies where it finds the binding: the
			// discovery document names both, and the binding answers there.
			if d.MCP.URL != s.url+"/orp/mcp" {
				t.Fatalf("mcp.url = %q, want %q", d.MCP.URL, s.url+"/orp/mcp")
			}
			if status, b := s.callORP(s.connectMCP(""), "orp_suggest", map[string]any{"text": "notes"}, http.StatusOK); status != 200 {
				t.Fatalf("orp_suggest at mcp.url = %d %s", status, b)
			}
		}
	})
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
