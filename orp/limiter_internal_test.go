package orp

import (
	"fmt"
	"testing"
	"time"
)

// TestLimiterNotFlushedByFreshKeys: a flood of new keys beyond the bound
// never resets a key that used up its limit (the audit's 100,002 fresh
// keys did); the flood shares one overflow window and limits itself; a
// minute later every ended window is dropped.
func TestLimiterNotFlushedByFreshKeys(t *testing.T) {
	t0 := time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)
	l := newLimiter(3)
	for i := 0; i < 3; i++ {
		l.allow("victim", t0)
	}
	limited := 0
	for i := 0; i < limiterKeys+10; i++ {
		if l.allow(fmt.Sprint("flood", i), t0.Add(time.Second)) > 0 {
			limited++
		}
	}
	if wait := l.allow("victim", t0.Add(2*time.Second)); wait == 0 {
		t.Fatal("a flood of new keys reset the limit of a key that had used it up")
	}
	if len(l.window) > limiterKeys+1 {
		t.Fatalf("the limiter holds %d keys, want at most %d", len(l.window), limiterKeys+1)
	}
	if limited == 0 {
		t.Fatal("the keys beyond the bound were never limited")
	}
	l.allow("later", t0.Add(2*time.Minute))
	if len(l.window) != 1 {
		t.Fatalf("%d windows after every one ended, want 1", len(l.window))
	}
}

// TestAddressKey: IPv6 clients are keyed by their /64; IPv4 and mapped
// IPv4 by the address.
func TestAddressKey(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"not an address", "not an address"},
	} {
		if got := addressKey(c.addr); got != c.want {
			t.Errorf("addressKey(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
}
