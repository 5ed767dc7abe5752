package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestServeMCPSessionIdleFlag: --mcp-session-idle reaches serve, a
// negative value is refused, and other commands do not take it.
func TestServeMCPSessionIdleFlag(t *testing.T) {
	m, err := newMain(clock.System{}, "serve", []string{"--mcp-session-idle", "90s"}, io.Discard, io.Discard)
	if err != nil || m.MCPSessionIdle != 90*time.Second {
		t.Fatalf("serve --mcp-session-idle 90s = %v, %v", m, err)
	}
	if _, err := newMain(clock.System{}, "serve", []string{"--mcp-session-idle", "-1s"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--mcp-session-idle: -1s is negative") {
		t.Errorf("a negative idle timeout = %v", err)
	}
	if _, err := newMain(clock.System{}, "sweep", []string{"--mcp-session-idle", "1s"}, io.Discard, io.Discard); err == nil {
		t.Error("sweep took --mcp-session-idle")
	}
}

// TestServeClosesMCPSessionsIdleForTheSetting: with a short idle timeout
// a session unused for longer is gone once later traffic arrives, while
// the default (30 minutes) would have kept it.
func TestServeClosesMCPSessionsIdleForTheSetting(t *testing.T) {
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard,
		ready: make(chan struct{}), MCPSessionIdle: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-m.ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	url := m.URL + "/mcp"
	open := func() string {
		_, h, body := post(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		id := h.Get("Mcp-Session-Id")
		if id == "" {
			t.Fatalf("initialize: no session: %s", body)
		}
		return id
	}
	list := func(id string) int {
		status, _, _ := post(t, url, map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		return status
	}
	old := open()
	if status := list(old); status != http.StatusOK {
		t.Fatalf("a fresh session answers %d", status)
	}
	time.Sleep(300 * time.Millisecond)
	open()
	if status := list(old); status != http.StatusNotFound {
		t.Errorf("a session idle past --mcp-session-idle answers %d, want 404", status)
	}
}
