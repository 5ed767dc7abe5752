package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/orp/schema"
)

// bearerTransport adds an Authorization header to every request, as an
// MCP client configured with a bearer does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectBearer(t testing.TB, url, revision, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// structured returns a tool result's structured content as the JSON the
// HTTP binding would have answered with.
func structured(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// callORP calls one ORP tool and returns what the HTTP binding would have
// answered: the reply JSON with ok as its status, 202 and no body for a
// delivered request, or, for a refusal, the status and ORP error message
// the tool result carries after its summary line.
func (s *orpServer) callORP(cs *mcp.ClientSession, tool string, args map[string]any, ok int) (int, []byte) {
	s.t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil || res.StructuredContent == nil {
			s.t.Fatalf("%s: no structured content (%v): %s", tool, err, text(res))
		}
		if string(b) == "{}" {
			return http.StatusAccepted, nil
		}
		return ok, b
	}
	head, body, _ := strings.Cut(text(res), "\n")
	var code string
	var status int
	if _, err := fmt.Sscanf(head, "ORP error %s (HTTP %d):", &code, &status); err != nil || !strings.Contains(body, `"code":"`+code+`"`) {
		s.t.Fatalf("%s refused without an ORP error message: %s", tool, text(res))
	}
	return status, []byte(body)
}

// connectMCP opens a 2025-11-25 session on the server's MCP binding, with
// token as its bearer when set, and closes it before the server stops.
func (s *orpServer) connectMCP(token string) *mcp.ClientSession {
	s.t.Helper()
	var cs *mcp.ClientSession
	if token != "" {
		cs = connectBearer(s.t, s.url+"/orp/mcp", "2025-11-25", token)
	} else {
		cs = connect(s.t, s.url+"/orp/mcp", "2025-11-25")
	}
	s.sessions = append(s.sessions, cs)
	return cs
}

// joinMCP calls orp_join from a fresh session, which then acts as the
// party it joined as.
func (s *orpServer) joinMCP(body string) (int, []byte, *mcp.ClientSession) {
	s.t.Helper()
	cs := s.connectMCP("")
	var args map[string]any
	if err := json.Unmarshal([]byte(body), &args); err != nil {
		s.t.Fatalf("join body %s: %v", body, err)
	}
	status, b := s.callORP(cs, "orp_join", args, http.StatusCreated)
	return status, b, cs
}

// TestORP_MCPSuite runs the named L0 and L1 tests of §17 through the MCP
// binding with the go-sdk client, one subtest per test: every party joins
// with orp_join or orp_suggest in its own session and sends, reads its
// inbox and reads deals with orp_send, orp_inbox and orp_deal. Tracked
// links and the approval, claim and policy pages are HTTP by nature; the
// suite drives the deal through MCP and checks them over HTTP.
func TestORP_MCPSuite(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Run("L0", func(t *testing.T) { runL0(t, t.TempDir(), "", true) })
		runL1(t, func(*testing.T) string { return "" }, true)
	})
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t)
		t.Run("L0", func(t *testing.T) { runL0(t, t.TempDir(), pgtest.Schema(t), true) })
		runL1(t, func(t *testing.T) string { return pgtest.Schema(t) }, true)
	})
}

// TestORP_MCP runs C2-NO-EMAIL-NO-SIGNUP through the MCP binding with a
// real MCP client: a session that called orp_join keeps acting as that
// party without any header, refusals are tool results carrying the ORP
// error message, and a stateless request acts with its bearer.
func TestORP_MCP(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	s.listOffer()

	// Discovery lists the binding only because it is served.
	_, b := s.do("GET", "/.well-known/orp.json", "", nil, nil)
	var d struct {
		MCP struct {
			URL     string
			Binding bool
			Tools   []string
		}
	}
	json.Unmarshal(b, &d)
	if d.MCP.URL != s.url+"/orp/mcp" || !d.MCP.Binding || len(d.MCP.Tools) != 5 {
		t.Fatalf("discovery mcp = %+v", d.MCP)
	}

	cs := connect(t, d.MCP.URL, "2025-11-25")
	if got, want := toolNames(t, cs), "orp_deal,orp_inbox,orp_join,orp_send,orp_suggest"; got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}

	// Before joining, the session has no party.
	res, _ := callTool(t, cs, "orp_inbox", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "unauthorized") {
		t.Fatalf("inbox before join = %v %s", res.IsError, text(res))
	}

	res, _ = callTool(t, cs, "orp_suggest", map[string]any{"text": "Thread draft: five tools that keep a solo founder organised, notes and revenue", "platform": "x", "join": map[string]any{}})
	if res.IsError {
		t.Fatalf("suggest: %s", text(res))
	}
	validate(t, schema.SuggestResponse, structured(t, res))
	var sug struct {
		Items []struct {
			Offer struct {
				ID        string `json:"id"`
				TermsHash string `json:"terms_hash"`
			} `json:"offer"`
			Pitch string `json:"pitch"`
		} `json:"items"`
		Joined struct{ Party, Token string }
	}
	json.Unmarshal(structured(t, res), &sug)
	if len(sug.Items) == 0 || sug.Items[0].Pitch == "" || sug.Joined.Party == "" {
		t.Fatalf("suggest = %s", structured(t, res))
	}
	if strings.Contains(text(res), sug.Joined.Token) {
		t.Fatalf("the summary shows the bearer token: %s", text(res))
	}
	me := &orpParty{id: sug.Joined.Party}
	res, _ = callTool(t, cs, "orp_send", map[string]any{"message": json.RawMessage(s.msg(me, "accept", nil,
		map[string]any{"offer": sug.Items[0].Offer.ID, "terms_hash": sug.Items[0].Offer.TermsHash}))})
	if res.IsError {
		t.Fatalf("accept over MCP: %s", text(res))
	}
	validate(t, schema.Message, structured(t, res))
	var deal map[string]any
	json.Unmarshal(structured(t, res), &deal)
	w, _ := obody(deal)["waiting"].(map[string]any)
	if obody(deal)["state"] != "awaiting" || w == nil || !strings.HasPrefix(w["url"].(string), s.url+"/approve/") {
		t.Fatalf("accept = %v, want awaiting with an approval url", deal)
	}
	if !strings.Contains(text(res), "awaiting") {
		t.Fatalf("summary = %q", text(res))
	}

	res, _ = callTool(t, cs, "orp_deal", map[string]any{"deal": deal["deal"]})
	if res.IsError {
		t.Fatalf("deal: %s", text(res))
	}
	validate(t, schema.Message, structured(t, res))
	res, _ = callTool(t, cs, "orp_inbox", map[string]any{})
	if res.IsError {
		t.Fatalf("inbox: %s", text(res))
	}
	validate(t, schema.Inbox, structured(t, res))

	// Refusals are tool results with the ORP error message.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"orp_join", map[string]any{"email": "a@b.example"}, `"code":"invalid_message"`},
		{"orp_join", map[string]any{"agent": map[string]any{"name": "writer (beta)"}}, "ORP 0.4"},
		{"orp_send", map[string]any{"message": map[string]any{"orp": "0.3.0"}}, `"code":"invalid_message"`},
		{"orp_deal", map[string]any{"deal": "deal_nonexistent"}, `"code":"not_found"`},
		{"orp_deal", map[string]any{"deal": "x", "extra": 1}, "input schema"},
	} {
		res, _ := callTool(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Fatalf("%s %v = %v %s, want a refusal with %s", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}

	// Another session did not join, so it is not that party.
	other := connect(t, d.MCP.URL, "2025-11-25")
	if res, _ := callTool(t, other, "orp_deal", map[string]any{"deal": deal["deal"]}); !res.IsError {
		t.Fatalf("another session read the deal: %s", text(res))
	}

	// A stateless request has no session; it acts with its bearer.
	stateless := connectBearer(t, d.MCP.URL, "2026-07-28", sug.Joined.Token)
	res, _ = callTool(t, stateless, "orp_deal", map[string]any{"deal": deal["deal"]})
	if res.IsError {
		t.Fatalf("deal with a bearer: %s", text(res))
	}

	// A host that is not served is refused before any tool runs.
	resp, _ := s.do("POST", "/orp/mcp", "", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), map[string]string{"Origin": "https://evil.example"})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin = %d", resp.StatusCode)
	}
}

// rpc posts one JSON-RPC message to /orp/mcp in session (none when "")
// and returns the status, the session id the answer names and the
// message it carries, read from a JSON or event-stream answer.
func rpc(t *testing.T, url, session, body string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/orp/mcp", strings.NewReader(body))
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
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimPrefix(line, "data: ")
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &m) == nil {
			break
		}
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), m
}

// TestORP_MCPJoinSurvivesRestart: a session that called orp_join keeps
// acting as its party after the server restarts (§4.3): its old
// Mcp-Session-Id answered 404 before. A session id that never joined is
// still refused.
func TestORP_MCPJoinSurvivesRestart(t *testing.T) {
	clk := clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	s := startORP(t, dir, "", clk)
	code, session, _ := rpc(t, s.url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"restart","version":"1"}}}`)
	if code != 200 || session == "" {
		t.Fatalf("initialize = %d, session %q", code, session)
	}
	rpc(t, s.url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, _, joined := rpc(t, s.url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"orp_join","arguments":{}}}`)
	party, _ := joined["result"].(map[string]any)["structuredContent"].(map[string]any)["party"].(string)
	if party == "" {
		t.Fatalf("orp_join = %v", joined)
	}
	s.stop()
	s = startORPAt(t, dir, "", clk, strings.TrimPrefix(s.url, "http://"))
	defer s.stop()
	hello := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"orp_send","arguments":{"message":{"orp":"0.3","type":"hello","id":"m_restart_01","ts":"2026-10-21T09:00:00Z","from":%q,"body":{"versions":["0.3"]}}}}}`, party)
	code, _, m := rpc(t, s.url, session, hello)
	res, _ := m["result"].(map[string]any)
	if code != 200 || res == nil || res["isError"] == true {
		t.Fatalf("orp_send in the joined session after a restart = %d %v", code, m)
	}
	if got := res["structuredContent"].(map[string]any)["body"].(map[string]any)["party"]; got != party {
		t.Fatalf("hello party = %v, want %s", got, party)
	}
	if code, _, _ := rpc(t, s.url, "never-joined-session", hello); code != 404 {
		t.Fatalf("unknown session = %d, want 404", code)
	}
}
