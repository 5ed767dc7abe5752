package session

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// counting makes distinct, predictable tokens.
type counting struct{ n int }

func (c *counting) token() (string, error) {
	c.n++
	return "tok" + strconv.Itoa(c.n), nil
}

// engines runs a test on a SQLite file and on PostgreSQL.
func engines(t *testing.T, test func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st)
	})
}

var policy = Policy{Kind: "test.session", Lifetime: 12 * time.Hour, Idle: 2 * time.Hour}

func newStore(st store.Store, p Policy) (*Store, *clock.Fixed) {
	clk := clock.NewFixed(testNow)
	c := &counting{}
	return New(st, p, Options{Clock: clk, Token: c.token}), clk
}

func TestSessionLifecycle(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newStore(st, policy)
		ctx := context.Background()
		o, err := s.Start(ctx, "maria", "passkey")
		if err != nil {
			t.Fatal(err)
		}
		if o.Token == o.Session.CSRF {
			t.Fatal("the CSRF token is the session token")
		}
		// Only the hash of the token is stored.
		if _, err := st.Get(ctx, policy.Kind, o.Token); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("stored under the token itself: %v", err)
		}
		got, err := s.Get(ctx, o.Token)
		if err != nil || got.Subject != "maria" || got.Detail != "passkey" || got.CSRF != o.Session.CSRF {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		for _, bad := range []string{"", o.Token + "x", string(make([]byte, 101))} {
			if _, err := s.Get(ctx, bad); !errors.Is(err, ErrSignedOut) {
				t.Fatalf("Get(%q) = %v, want signed out", bad, err)
			}
		}
		// Activity keeps a session going up to its lifetime, no longer.
		for i := range 11 {
			clk.Advance(time.Hour)
			if _, err := s.Get(ctx, o.Token); err != nil {
				t.Fatalf("active session ended after %d hours: %v", i+1, err)
			}
		}
		clk.Advance(time.Hour)
		if _, err := s.Get(ctx, o.Token); !errors.Is(err, ErrSignedOut) {
			t.Fatalf("session outlived its lifetime: %v", err)
		}
		// An idle session ends.
		idle, err := s.Start(ctx, "maria", "")
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(policy.Idle)
		if _, err := s.Get(ctx, idle.Token); !errors.Is(err, ErrSignedOut) {
			t.Fatalf("idle session: %v", err)
		}
		// A session ended is refused, and ending it twice is fine.
		out, err := s.Start(ctx, "maria", "")
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.End(ctx, out.Token); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Get(ctx, out.Token); !errors.Is(err, ErrSignedOut) {
			t.Fatalf("session after sign-out: %v", err)
		}
	})
}

func TestNoIdleLimit(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newStore(st, Policy{Kind: "test.owner", Lifetime: 12 * time.Hour})
		ctx := context.Background()
		o, err := s.Start(ctx, "own_1", "")
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(11 * time.Hour)
		if _, err := s.Get(ctx, o.Token); err != nil {
			t.Fatalf("session without an idle limit ended: %v", err)
		}
		clk.Advance(time.Hour)
		if _, err := s.Get(ctx, o.Token); !errors.Is(err, ErrSignedOut) {
			t.Fatalf("session outlived its lifetime: %v", err)
		}
	})
}

// TestEndAll: signing out everywhere ends every browser of one person
// and no one else's.
func TestEndAll(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, _ := newStore(st, policy)
		ctx := context.Background()
		var maria []string
		for range 3 {
			o, err := s.Start(ctx, "maria", "")
			if err != nil {
				t.Fatal(err)
			}
			maria = append(maria, o.Token)
		}
		jo, err := s.Start(ctx, "jo", "")
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.EndAll(ctx, "maria")
		if err != nil || n != 3 {
			t.Fatalf("EndAll = %d, %v; want 3", n, err)
		}
		for _, tok := range maria {
			if _, err := s.Get(ctx, tok); !errors.Is(err, ErrSignedOut) {
				t.Fatalf("maria's session after signing out everywhere: %v", err)
			}
		}
		if _, err := s.Get(ctx, jo.Token); err != nil {
			t.Fatalf("another person's session ended: %v", err)
		}
	})
}

// TestPurge removes ended sessions, records it cannot read and records
// in the shape kept before this package, and keeps live ones.
func TestPurge(t *testing.T) {
	st := openSQLite(t)
	s, clk := newStore(st, policy)
	ctx := context.Background()
	old, _ := s.Start(ctx, "maria", "")
	clk.Advance(policy.Idle + time.Minute)
	fresh, _ := s.Start(ctx, "maria", "")
	legacy := `{"username":"maria","csrf":"c","created_at":"2026-11-30T17:00:00Z","last_seen":"2026-11-30T19:00:00Z","expires":"2026-12-01T05:00:00Z"}`
	if _, err := st.Create(ctx, store.Record{Kind: policy.Kind, Key: Key("legacy"), Value: []byte(legacy), UpdatedAt: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Purge(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Purge = %d, %v; want 2", n, err)
	}
	if _, err := s.Get(ctx, fresh.Token); err != nil {
		t.Fatalf("fresh session purged: %v", err)
	}
	for _, tok := range []string{old.Token, "legacy"} {
		if _, err := s.Get(ctx, tok); !errors.Is(err, ErrSignedOut) {
			t.Fatalf("Get(%s) = %v, want signed out", tok, err)
		}
	}
}

func openSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestDefaultTokens: without a token maker, tokens are 256 random bits,
// different for the session and its CSRF check.
func TestDefaultTokens(t *testing.T) {
	s := New(openSQLite(t), policy, Options{Clock: clock.NewFixed(testNow)})
	o, _, err := s.Open("maria", "", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Token) != 43 || len(o.Session.CSRF) != 43 || o.Token == o.Session.CSRF {
		t.Fatalf("tokens %q and %q", o.Token, o.Session.CSRF)
	}
}

func TestCheckCSRF(t *testing.T) {
	ses := Session{CSRF: "abcdef"}
	tests := []struct {
		name   string
		ses    Session
		posted string
		want   bool
	}{
		{"its token", ses, "abcdef", true},
		{"nothing posted", ses, "", false},
		{"one character off", ses, "abcdeg", false},
		{"a prefix", ses, "abc", false},
		{"a session without a token", Session{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckCSRF(tt.ses, tt.posted); got != tt.want {
				t.Fatalf("CheckCSRF = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLocatedTokens: with Locate, a session's token is spelled by it and
// still finds the session; the CSRF token is the bare random part.
func TestLocatedTokens(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		c := &counting{}
		s := New(st, policy, Options{Clock: clock.NewFixed(testNow), Token: c.token, Locate: func(r string) string { return "RIV." + r }})
		ctx := context.Background()
		o, err := s.Start(ctx, "maria", "password")
		if err != nil {
			t.Fatal(err)
		}
		if o.Token != "RIV.tok1" || o.Session.CSRF != "tok2" {
			t.Fatalf("token %q, csrf %q", o.Token, o.Session.CSRF)
		}
		if ses, err := s.Get(ctx, o.Token); err != nil || ses.Subject != "maria" {
			t.Fatalf("Get = %+v, %v", ses, err)
		}
	})
}
