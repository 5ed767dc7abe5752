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

// TestSessionsPerAddress: a client past its own cap loses its own oldest
// session, and when the endpoint is full a newcomer is refused; nobody's
// sessions are closed to make room for someone else's.
func TestSessionsPerAddress(t *testing.T) {
	url, _ := sessionServer(t, SessionLimits{Idle: time.Hour, Max: 4, PerAddress: 2})
	live := open(t, url, "192.0.2.10")
	first := open(t, url, "198.51.100.1")
	open(t, url, "198.51.100.1")
	open(t, url, "198.51.100.1")
	if alive(t, url, "198.51.100.1", first) {
		t.Fatal("the flooding client's oldest session is still open past its cap of 2")
	}
	open(t, url, "198.51.100.2")
	if status, _ := mcpPost(t, url, "198.51.100.3", "", initializeBody); status != http.StatusServiceUnavailable {
		t.Fatalf("initialize on a full endpoint = %d, want 503", status)
	}
	if !alive(t, url, "192.0.2.10", live) {
		t.Fatal("another client's session was closed to make room")
	}
}
