package orp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/sqlite"
)

// FuzzSend: no message body or bearer token panics the ORP host or makes
// it fail inside; every reply is a JSON object with a status below 500
// (a 503 for contention aside), whatever arrives on POST /orp.
func FuzzSend(f *testing.F) {
	for _, seed := range []struct{ token, body string }{
		{"", `{}`},
		{"", `{"orp":"0.1","type":"hello","id":"m1","from":"orp:p:x","to":"orp:host","body":{}}`},
		{"orpt_x", `{"orp":"0.1","type":"offer","id":"m2","from":"orp:p:x","to":"orp:host","body":{"terms":{"obligations":[]}}}`},
		{"", `{"orp":"0.1","type":"accept","id":"m3","from":"orp:p:x","to":"orp:host","body":{"offer":"o1","terms_hash":"sha256-AAAA"}}`},
		{"", `[1,2]`}, {"", `{"a":1,"a":2}`}, {"", `{"n":1e400}`}, {"", "\xff"}, {"", `{"orp":"0.1","type":"x","id":"` + string(make([]byte, 300)) + `"}`},
	} {
		f.Add(seed.token, []byte(seed.body))
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "orp.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	h, err := New(Options{Store: db, Clock: clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)), Rand: rand.Reader, Origin: "https://hub.example"})
	if err != nil {
		f.Fatal(err)
	}
	// Each input comes from an address of its own, so the limit by
	// address does not answer for the decoder.
	var inputs atomic.Uint64
	f.Fuzz(func(t *testing.T, token string, body []byte) {
		r := h.Send(context.Background(), token, fmt.Sprintf("2001:db8::%x", inputs.Add(1)), body)
		if r.Status >= 500 && r.Status != 503 {
			t.Fatalf("Send(%q) = %d %s", body, r.Status, r.Body)
		}
		var obj map[string]any
		if err := json.Unmarshal(r.Body, &obj); err != nil {
			t.Fatalf("Send(%q) replied %q, not a JSON object", body, r.Body)
		}
	})
}
