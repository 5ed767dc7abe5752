package mcpfront

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/clock"
)

// sessionServer serves an MCP server with no tools behind LimitSessions
// with l. A request's X-Test-Client header stands for its address, and
// closed counts the DELETEs that reach the SDK.
func sessionServer(t *testing.T, l SessionLimits) (url string, closed *atomic.Int64) {
	t.Helper()
	closed = &atomic.Int64{}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	front := Handler(s, HTTPOptions{Hostnames: []string{"127.0.0.1"}})
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			closed.Add(1)
		}
		front.ServeHTTP(w, r)
	})
	limited := LimitSessions(counted, l)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := r.Header.Get("X-Test-Client"); c != "" {
			r.RemoteAddr = c + ":1"
		}
		limited.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, closed
}

// mcpPost posts body as client on session and returns the status and the
// session id of the answer.
func mcpPost(t *testing.T, url, client, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Test-Client", client)
	if session != "" {
		req.Header.Set(SessionHeader, session)
		req.Header.Set(VersionHeader, "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(SessionHeader)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func open(t *testing.T, url, client string) string {
	t.Helper()
	status, id := mcpPost(t, url, client, "", initializeBody)
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize from %s = %d, session %q", client, status, id)
	}
	return id
}

func alive(t *testing.T, url, client, session string) bool {
	t.Helper()
	status, _ := mcpPost(t, url, client, session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	return status != http.StatusNotFound
}

// TestSessionsExpireWithoutTraffic: abandoned sessions are closed by the
// timer alone; no request has to arrive for the SDK to let them go.
func TestSessionsExpireWithoutTraffic(t *testing.T) {
	url, closed := sessionServer(t, SessionLimits{Idle: 400 * time.Millisecond})
	for range 5 {
		open(t, url, "192.0.2.1")
	}
	deadline := time.Now().Add(3 * time.Second)
	for closed.Load() < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := closed.Load(); got != 5 {
		t.Fatalf("%d of 5 idle sessions closed with no traffic, want all", got)
	}
}

// TestManySessionsFromOneAddress: one address (a hosted assistant's
// egress) holds far more than the sixteen sessions it once could, and
// every one stays open.
func TestManySessionsFromOneAddress(t *testing.T) {
	url, closed := sessionServer(t, SessionLimits{Idle: time.Hour})
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = open(t, url, "192.0.2.1")
	}
	for i, id := range ids {
		if !alive(t, url, "192.0.2.1", id) {
			t.Fatalf("session %d of 100 from one address was closed", i)
		}
	}
	if n := closed.Load(); n != 0 {
		t.Fatalf("%d sessions closed, want none", n)
	}
}

// TestFullPoolEvictsOnlyIdleSessions: when the pool is full a newcomer
// closes the session idle longest only once it has idled for Evictable,
// never one with a request (here a GET stream) in flight, and is refused
// while every session is live.
func TestFullPoolEvictsOnlyIdleSessions(t *testing.T) {
	clk := clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC))
	url, _ := sessionServer(t, SessionLimits{Idle: time.Hour, Evictable: 5 * time.Minute, Max: 2, Clock: clk})
	streaming := open(t, url, "192.0.2.1")
	clk.Advance(time.Second)
	quiet := open(t, url, "192.0.2.1")
	clk.Advance(time.Minute)
	if status, _ := mcpPost(t, url, "192.0.2.1", "", initializeBody); status != http.StatusServiceUnavailable {
		t.Fatalf("initialize with every session used a minute ago = %d, want 503", status)
	}
	// The older session holds a GET stream open: a request in flight.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(SessionHeader, streaming)
	req.Header.Set(VersionHeader, "2025-06-18")
	req.Header.Set("X-Test-Client", "192.0.2.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream = %d", resp.StatusCode)
	}
	clk.Advance(10 * time.Minute)
	open(t, url, "198.51.100.1")
	if alive(t, url, "192.0.2.1", quiet) {
		t.Fatal("the session idle for ten minutes was not the one closed")
	}
	if !alive(t, url, "192.0.2.1", streaming) {
		t.Fatal("a session with its stream open was closed to make room")
	}
}

// TestSessionCreationRate: an address past its burst waits for its rate,
// with 429 and Retry-After, and another address is unaffected.
func TestSessionCreationRate(t *testing.T) {
	clk := clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC))
	url, _ := sessionServer(t, SessionLimits{Idle: time.Hour, CreatePerSecond: 1, CreateBurst: 3, Clock: clk})
	for range 3 {
		open(t, url, "192.0.2.1")
	}
	if status, _ := mcpPost(t, url, "192.0.2.1", "", initializeBody); status != http.StatusTooManyRequests {
		t.Fatalf("a fourth initialize within the burst of 3 = %d, want 429", status)
	}
	open(t, url, "198.51.100.1")
	clk.Advance(time.Second)
	open(t, url, "192.0.2.1")
}

// TestStatelessRequestsHoldNoSession: calls on the 2026-07-28 revision
// are answered without a session, and the pool holds none for them, so
// no creation rate or cap applies to them.
func TestStatelessRequestsHoldNoSession(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	pool := NewSessionPool(SessionLimits{Idle: time.Hour, CreatePerSecond: 1, CreateBurst: 1})
	srv := httptest.NewServer(pool.Limit(Handler(s, HTTPOptions{Hostnames: []string{"127.0.0.1"}})))
	t.Cleanup(srv.Close)
	for i := range 5 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(VersionHeader, RevisionStateless)
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get(SessionHeader) != "" {
			t.Fatalf("stateless call %d = %d, session %q", i, resp.StatusCode, resp.Header.Get(SessionHeader))
		}
	}
	if n := pool.Open(); n != 0 {
		t.Fatalf("the pool holds %d sessions for stateless calls", n)
	}
}
