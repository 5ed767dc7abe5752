package orp

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/sqlite"
)

func TestClickIDCarriesItsSecond(t *testing.T) {
	at := time.Date(2026, 11, 30, 13, 0, 0, 999_000_000, time.UTC)
	random := []byte("0123456789abcdef")
	id := newClickID(at, random)
	if len(id) != clickIDLength || strings.ContainsAny(id, "+/=") {
		t.Fatalf("click id %q: want %d base64url characters", id, clickIDLength)
	}
	if sec, ok := clickIDSecond(id); !ok || sec != at.Unix() {
		t.Fatalf("second of %q = %d %v, want %d", id, sec, ok, at.Unix())
	}
	for _, bad := range []string{"", id[:27], id + "A", "!" + id[1:]} {
		if _, ok := clickIDSecond(bad); ok {
			t.Errorf("clickIDSecond(%q) accepted a malformed id", bad)
		}
	}
}

// TestSplitDestination checks that joining the split destination with a
// click id gives what setting the parameters on the parsed URL gives.
func TestSplitDestination(t *testing.T) {
	const id = "AAAAAAZ-_0123456789abcdefghi"
	for _, c := range []struct{ dest, param, alias, want string }{
		{"https://acmenotes.example/pricing", "via", "", "https://acmenotes.example/pricing?via=ID"},
		// The destination's own query stays byte for byte: order, a bare
		// flag, repeated keys, its encoding (T3).
		{"https://acmenotes.example/pricing?plan=pro&flag&a=2&a=1#top", "via", "ref", "https://acmenotes.example/pricing?plan=pro&flag&a=2&a=1&via=ID&ref=ID#top"},
		// A via or ref already there is replaced, not doubled.
		{"https://acmenotes.example/p?via=old&ref=old", "via", "ref", "https://acmenotes.example/p?via=ID&ref=ID"},
		{"https://acmenotes.example/p?a=1&v%69a=old&b=2", "via", "", "https://acmenotes.example/p?a=1&b=2&via=ID"},
		{"https://acmenotes.example/p?via", "via", "", "https://acmenotes.example/p?via=ID"},
		{"https://acmenotes.example/p?x=a%20b+c", "ref", "ref", "https://acmenotes.example/p?x=a%20b+c&ref=ID"},
		{"https://acmenotes.example/p?", "via", "", "https://acmenotes.example/p?via=ID"},
		{"https://acmenotes.example/p?a=1&", "via", "", "https://acmenotes.example/p?a=1&via=ID"},
	} {
		want := strings.ReplaceAll(c.want, "ID", id)
		if got := strings.Join(splitDestination(c.dest, c.param, c.alias), id); got != want {
			t.Errorf("%s: got %s, want %s", c.dest, got, want)
		}
	}
}

// TestFullQueueWaits checks that a click arriving at a full queue waits
// for the writer to take the queue instead of being dropped.
func TestFullQueueWaits(t *testing.T) {
	b := newBatcher(&Host{})
	b.running = true
	b.open = &clickBatch{events: make([]clickEvent, queueMax), done: make(chan struct{})}
	added := make(chan struct{})
	go func() {
		b.add(clickEvent{token: "waiting1"})
		close(added)
	}()
	select {
	case <-added:
		t.Fatal("a click was queued past the bound")
	case <-time.After(50 * time.Millisecond):
	}
	if got := len(b.take().events); got != queueMax {
		t.Fatalf("took %d clicks, want %d", got, queueMax)
	}
	<-added
	if q := b.take().events; len(q) != 1 || q[0].token != "waiting1" {
		t.Fatalf("after the wait the queue holds %v, want the waiting click", q)
	}
}

// TestFlushWaitsForTheWriter: a batch the writer took a moment ago is
// stored before Flush returns, so a caller that flushes then reads sees
// every click it made.
func TestFlushWaitsForTheWriter(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "orp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h, err := New(Options{Store: db, Clock: clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)), Rand: rand.Reader, Origin: "https://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	h.clicks.writing.Lock() // the writer is storing a batch it took
	done := make(chan struct{})
	go func() {
		h.Flush(context.Background())
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Flush returned while the writer was still storing its batch")
	case <-time.After(50 * time.Millisecond):
	}
	h.clicks.writing.Unlock()
	<-done
}
