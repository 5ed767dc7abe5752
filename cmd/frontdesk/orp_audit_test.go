package main

import (
	"net/http"
	"strings"
	"testing"

	"frontdesk/internal/clock"
)

// TestORP_NestingProbe: the audit's nesting probe is refused cheaply on
// both bindings, POST /orp with invalid_message and /orp/mcp with a
// JSON-RPC error, before any value is built.
func TestORP_NestingProbe(t *testing.T) {
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
