package orp

import (
	"fmt"
	"testing"
	"time"
)

// TestLimiterEvictsOldestFirst: a flood of new keys beyond the bound
// drops the oldest windows only; a key that used up its limit in the
// meantime stays limited.
func TestLimiterEvictsOldestFirst(t *testing.T) {
	t0 := time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)
	l := newLimiter(3)
	for i := 0; i < 1000; i++ {
		l.allow(fmt.Sprint("old", i), t0)
	}
	for i := 0; i < 3; i++ {
		l.allow("victim", t0.Add(time.Second))
	}
	for i := 0; i < limiterKeys-1; i++ {
		l.allow(fmt.Sprint("flood", i), t0.Add(2*time.Second))
	}
	if wait := l.allow("victim", t0.Add(3*time.Second)); wait == 0 {
		t.Fatal("a flood of new keys reset the limit of a key that had used it up")
	}
	if len(l.window) > limiterKeys {
		t.Fatalf("the limiter holds %d keys, want at most %d", len(l.window), limiterKeys)
	}
	if _, ok := l.window["old0"]; ok {
		t.Fatal("the oldest window survived the flood")
	}
	// A minute later every window has ended and is dropped as new ones start.
	l.allow("later", t0.Add(2*time.Minute))
	if len(l.window) != 1 {
		t.Fatalf("%d windows after every one ended, want 1", len(l.window))
	}
}
