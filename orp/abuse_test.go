package orp_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// nestingProbe is one 64 KiB message with arrays nested 32,000 deep in ext.
func nestingProbe(from string) []byte {
	head := `{"orp":"0.3","type":"hello","id":"m_deep_0001","ts":"2026-10-21T09:00:00Z","from":"` + from + `","body":{"versions":["0.3"]},"ext":{"com.example.x":`
	return []byte(head + strings.Repeat("[", 32000) + strings.Repeat("]", 32000) + `}}`)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNestingProbeIsCheap: E1's work is bounded by a depth limit, so the
// audit's probe is refused with invalid_message after a few KiB of work,
// not a gigabyte, with or without a bearer.
func TestNestingProbeIsCheap(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	for _, token := range []string{"", p.token} {
		var code string
		n := allocated(func() {
			r := e.host.Send(context.Background(), token, testAddr, nestingProbe(p.id))
			var m map[string]any
			json.Unmarshal(r.Body, &m)
			code = errCode(m)
		})
		if code != "invalid_message" {
			t.Fatalf("nesting probe answered %s, want invalid_message", code)
		}
		if n > 4<<20 {
			t.Fatalf("nesting probe allocated %d MiB, want under 4", n>>20)
		}
	}
}

// TestUnauthenticatedSendsLimitedByAddress: messages without a working
// credential are counted per address before decoding; a party's own
// messages from the same address are not.
func TestUnauthenticatedSendsLimitedByAddress(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	codes := map[string]int{}
	for i := 0; i < 40; i++ {
		token := ""
		if i%2 == 1 {
			token = "orpt_not_a_token"
		}
		r := e.host.Send(context.Background(), token, "203.0.113.5", []byte(`{"orp":`))
		var m map[string]any
		json.Unmarshal(r.Body, &m)
		codes[errCode(m)]++
	}
	if codes["rate_limited"] != 10 || codes["invalid_message"] != 30 {
		t.Fatalf("40 unauthenticated sends from one address = %v, want 30 invalid_message then 10 rate_limited", codes)
	}
	r := e.host.Send(context.Background(), "", "203.0.113.6", []byte(`{"orp":`))
	if r.Status != 400 {
		t.Fatalf("another address = %d, want 400", r.Status)
	}
	r = e.host.Send(context.Background(), p.token, "203.0.113.5", e.msg(p, "hello", nil, map[string]any{"versions": []string{"0.3"}}))
	if r.Status != 200 {
		t.Fatalf("a party's hello from the limited address = %d %s, want 200", r.Status, r.Body)
	}
}
