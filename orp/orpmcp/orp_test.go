package orpmcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/mcpfront"
	"frontdesk/orp"
	"frontdesk/sqlite"
)

// TestCredential: an explicit bearer wins, whatever the case of its
// scheme; a session acts as the party it joined as, read from the store,
// so the join survives a restart of the host; a stateless request never
// reads a session id.
func TestCredential(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "orp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	newHost := func() *orp.Host {
		h, err := orp.New(orp.Options{Store: db, Clock: clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)), Rand: rand.Reader, Origin: "https://hub.example"})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := newHost()
	joinedParty, err := h.Join(ctx, []byte("{}"), "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Join(ctx, []byte("{}"), "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.RememberSession(ctx, "sess1", joinedParty.Token); err != nil {
		t.Fatal(err)
	}
	o := orpTools{host: newHost()} // a restart: nothing in memory
	cases := []struct {
		name   string
		header http.Header
		want   string // party id, or "" for unauthorized
	}{
		{"joined session", http.Header{"Mcp-Session-Id": {"sess1"}, "Mcp-Protocol-Version": {"2025-11-25"}}, joinedParty.Party},
		{"explicit bearer wins", http.Header{"Mcp-Session-Id": {"sess1"}, "Authorization": {"Bearer " + other.Token}}, other.Party},
		{"lower-case scheme", http.Header{"Authorization": {"bearer " + other.Token}}, other.Party},
		{"stateless ignores the session id", http.Header{"Mcp-Session-Id": {"sess1"}, "Mcp-Protocol-Version": {"2026-07-28"}}, ""},
		{"unknown session", http.Header{"Mcp-Session-Id": {"other"}}, ""},
		{"stdio", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if c.header != nil {
				ctx = mcpfront.WithHeader(ctx, c.header)
			}
			ctx, token := o.credential(ctx)
			p, err := o.host.Authenticate(ctx, token)
			got := ""
			if err == nil {
				got = p.ID
			}
			if got != c.want {
				t.Fatalf("acts as %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

// TestTextLeavesOutTheToken shows that the JSON text of a join, alone or
// inside a suggestion, never carries the bearer token, which the session
// keeps; the structured result still does.
func TestTextLeavesOutTheToken(t *testing.T) {
	j := orp.JoinResponse{Party: "orp:h/p_1", Token: "orpt_secret", Claim: "https://h/claim/c"}
	texts := map[string]any{
		"join":    withoutToken(j),
		"suggest": suggestedWithoutToken(orp.SuggestResponse{Joined: &j}),
	}
	for name, v := range texts {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "orpt_secret") || !strings.Contains(string(b), "orp:h/p_1") {
			t.Errorf("%s text = %s, want the party without the token", name, b)
		}
	}
	if j.Token != "orpt_secret" {
		t.Errorf("the result itself lost its token: %+v", j)
	}
}

// openSession opens a session on url and returns its id.
func openSession(t *testing.T, url string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := post(t, url, "", body)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize = %d, session %q", resp.StatusCode, id)
	}
	return id
}

func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// alive reports whether the server still knows a session.
func alive(t *testing.T, url, session string) bool {
	return post(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode != http.StatusNotFound
}

// TestLimitSessions: beyond Max a newcomer waits while every session is
// in use, then closes the session idle longest, and a session idle for
// Idle is closed on a later request, so unauthenticated initialize calls
// cannot hold memory forever.
func TestLimitSessions(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "orp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC))
	h, err := orp.New(orp.Options{Store: db, Clock: clk, Rand: rand.Reader, Origin: "https://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcpfront.LimitSessions(mcpfront.Handler(New(h, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}),
		mcpfront.SessionLimits{Idle: 10 * time.Minute, Max: 3, Evictable: time.Minute, Clock: clk}))
	defer srv.Close()
	first := openSession(t, srv.URL)
	clk.Advance(time.Second)
	second := openSession(t, srv.URL)
	clk.Advance(time.Second)
	openSession(t, srv.URL)
	if resp := post(t, srv.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a fourth session while three are in use = %d, want 503", resp.StatusCode)
	}
	clk.Advance(time.Minute)
	alive(t, srv.URL, second)
	openSession(t, srv.URL)
	if alive(t, srv.URL, first) {
		t.Fatal("the oldest of four sessions is still open with a limit of three")
	}
	if !alive(t, srv.URL, second) {
		t.Fatal("a session within the limit was closed")
	}
	clk.Advance(11 * time.Minute)
	openSession(t, srv.URL)
	if alive(t, srv.URL, second) {
		t.Fatal("a session idle for eleven minutes is still open")
	}
}
