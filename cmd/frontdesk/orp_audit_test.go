package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestORP_NestingProbe: the audit's nesting probe is refused cheaply on
// both bindings, POST /orp with invalid_message and /orp/mcp with a
// JSON-RPC error, before any value is built.
func TestORP_NestingProbe(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	defer s.stop()
	deep := strings.Repeat("[", 32000) + strings.Repeat("]", 32000)
	probe := []byte(`{"orp":"0.3","type":"hello","id":"m_deep_0001","ts":"2026-10-21T09:00:00Z","from":"x","body":{},"ext":{"com.example.x":` + deep + `}}`)
	resp, b := s.do("POST", "/orp", "", probe, nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"invalid_message"`) {
		t.Fatalf("POST /orp probe = %d %s, want 400 invalid_message", resp.StatusCode, b)
	}
	rpc := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"orp_send","arguments":{"message":` + deep + `}}}`)
	resp, b = s.do("POST", "/orp/mcp", "", rpc, map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `-32600`) {
		t.Fatalf("POST /orp/mcp probe = %d %s, want 400 with a JSON-RPC error", resp.StatusCode, b)
	}
}

// TestORP_SweepCommandUsesTheServedOrigin: `frontdesk sweep` without
// --addr delivers a revoked deal's final outcome to the parties of the
// origin serve used, so the outcome is in their inboxes after a restart.
func TestORP_SweepCommandUsesTheServedOrigin(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewFixed(testNow)
	s := startORP(t, dir, "", clk)
	addr := strings.TrimPrefix(s.url, "http://")
	maker, pub, deal, _ := s.activeDeal()
	if code, m := s.send(maker, s.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); code != 200 {
		t.Fatalf("revoke = %d %v", code, m)
	}
	s.stop()

	var out bytes.Buffer
	if err := run(context.Background(), clock.System{}, []string{"sweep", "--data", dir}, nil, &out, io.Discard); err != nil {
		t.Fatalf("sweep: %v (%s)", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "sweep: orp outcomes=2 ") {
		t.Fatalf("sweep printed %q, want two outcomes", out.String())
	}
	s = startORPAt(t, dir, "", clk, addr)
	defer s.stop()
	for _, p := range []*orpParty{maker, pub} {
		final := false
		for _, m := range s.inbox(p) {
			if m["type"] == "outcome" && obody(m)["final"] == true {
				final = true
			}
		}
		if !final {
			t.Fatalf("party %s has no final outcome after the sweep", p.id)
		}
	}
}

// TestORP_BearerSchemeCaseInsensitive: the Authorization scheme is
// case-insensitive (RFC 9110 §11.1).
func TestORP_BearerSchemeCaseInsensitive(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	defer s.stop()
	p := s.join("{}")
	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		resp, b := s.do("GET", "/orp/inbox", "", nil, map[string]string{"Authorization": scheme + " " + p.token})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("inbox with %q = %d %s, want 200", scheme, resp.StatusCode, b)
		}
	}
}

// TestORP_TrustedProxy: behind a trusted proxy, join's limit by address
// counts each client named in X-Forwarded-For, not the proxy; a client
// that writes the header itself gains nothing.
func TestORP_TrustedProxy(t *testing.T) {
	t.Parallel()
	s := startORPAt(t, t.TempDir(), "", clock.NewFixed(testNow), "127.0.0.1:0", func(c *config.Config) {
		c.Deployment.TrustedProxies = []string{"127.0.0.1"}
	})
	defer s.stop()
	joins := func(xff string) (created, limited int) {
		for i := 0; i < 31; i++ {
			resp, _ := s.do("POST", "/orp/join", "", []byte("{}"), map[string]string{"X-Forwarded-For": xff})
			switch resp.StatusCode {
			case http.StatusCreated:
				created++
			case http.StatusTooManyRequests:
				limited++
			}
		}
		return
	}
	if c, l := joins("198.51.100.1"); c != 30 || l != 1 {
		t.Fatalf("client one: %d joined, %d limited; want 30 and 1", c, l)
	}
	if c, l := joins("1.2.3.4, 198.51.100.2"); c != 30 || l != 1 {
		t.Fatalf("client two, with a spoofed entry: %d joined, %d limited; want 30 and 1", c, l)
	}
	if c, _ := joins("9.9.9.9, 198.51.100.2"); c != 0 {
		t.Fatalf("client two again behind a spoofed entry: %d joined, want 0", c)
	}
}

// TestORP_ValidHandledMessages sends a valid message of each type the
// discovery document lists as handled that no other test sends: hello,
// space, request and discover, on both bindings. Every reply and every
// delivered message validates (send and inbox check the schemas).
func TestORP_ValidHandledMessages(t *testing.T) {
	t.Parallel()
	for _, overMCP := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "mcp"}[overMCP], func(t *testing.T) {
			s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
			defer s.stop()
			s.mcp = overMCP
			_, offer := s.listOffer()
			p, other := s.join("{}"), s.join("{}")

			code, m := s.send(p, s.msg(p, "hello", nil, map[string]any{"versions": []string{"0.3"}}))
			if code != 200 || m["type"] != "hello" || obody(m)["party"] != p.id {
				t.Fatalf("hello = %d %v", code, m)
			}

			space := map[string]any{"id": "weekly", "kind": "newsletter.issue", "platform": "newsletter", "title": "Tools weekly",
				"locator": "https://tools.example/weekly", "topics": []string{"software.productivity"}}
			code, m = s.send(p, s.msg(p, "space", nil, map[string]any{"action": "put", "space": space}))
			if code != 200 || m["type"] != "space" || obody(m)["status"] != "waiting" {
				t.Fatalf("space = %d %v", code, m)
			}
			if listed := s.approve(p, obody(m)["waiting"].(map[string]any)["url"].(string)); obody(listed)["status"] != "listed" {
				t.Fatalf("approved space = %v", listed)
			}

			request := s.msg(p, "request", map[string]any{"to": other.id}, map[string]any{"note": "Would you sponsor the next issue?"})
			if code, m = s.send(p, request); code != 202 && !(overMCP && code == 200) {
				t.Fatalf("request = %d %v, want it delivered", code, m)
			}
			delivered := false
			for _, msg := range s.inbox(other) {
				if msg["type"] == "request" && msg["from"] == p.id {
					delivered = true
				}
			}
			if !delivered {
				t.Fatal("the request is not in the recipient's inbox")
			}

			code, m = s.send(other, s.msg(other, "discover", nil, map[string]any{"want": "offers", "context": map[string]any{"text": "productivity notes software"}}))
			items, _ := obody(m)["items"].([]any)
			if code != 200 || m["type"] != "results" || len(items) == 0 || items[0].(map[string]any)["offer"].(map[string]any)["id"] != offer {
				t.Fatalf("discover offers = %d %v, want the listed offer first", code, m)
			}
			code, m = s.send(other, s.msg(other, "discover", nil, map[string]any{"want": "spaces", "context": map[string]any{"text": "tools newsletter"}}))
			items, _ = obody(m)["items"].([]any)
			if code != 200 || len(items) != 1 {
				t.Fatalf("discover spaces = %d %v, want the listed space", code, m)
			}
			if sp := items[0].(map[string]any)["space"].(map[string]any); sp["id"] != "weekly" || sp["locator"] != nil {
				t.Fatalf("discovered space = %v, want it without its locator", sp)
			}
		})
	}
}
