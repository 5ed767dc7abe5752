package staff

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// cheap keeps tests fast; the cost parameters travel in each hash.
var cheap = Hashing{Time: 1, Memory: 64, Threads: 1}

// seeded is a deterministic random source.
type seeded struct {
	mu sync.Mutex
	n  byte
}

func (s *seeded) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range p {
		s.n++
		p[i] = s.n
	}
	return len(p), nil
}

func sqliteStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func postgresStore(t *testing.T) store.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newService(t *testing.T, st store.Store) (*Service, *clock.Fixed) {
	t.Helper()
	clk := clock.NewFixed(testNow)
	s, err := New(st, config.Demo(), Options{Clock: clk, Random: &seeded{}, Hashing: cheap})
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

// engines runs a test on SQLite and, when FRONTDESK_TEST_POSTGRES is set,
// on PostgreSQL.
func engines(t *testing.T, test func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, sqliteStore(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, postgresStore(t)) })
}

func TestAddUser(t *testing.T) {
	s, _ := newService(t, sqliteStore(t))
	ctx := context.Background()
	u, err := s.AddUser(ctx, "maria", "correct horse battery", Clerk, []string{"riverside", "riverside"})
	if err != nil {
		t.Fatal(err)
	}
	if !u.CanSee("riverside") || u.CanSee("oldtown") || len(u.Locations) != 1 {
		t.Fatalf("clerk scope = %v", u.Locations)
	}
	if strings.Contains(u.Hash, "correct horse") || !strings.HasPrefix(u.Hash, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash = %q", u.Hash)
	}
	if _, err := s.AddUser(ctx, "maria", "another long password", Owner, nil); ErrorCode(err) != CodeExists {
		t.Fatalf("second maria: %v", err)
	}
	owner, err := s.AddUser(ctx, "owner", "a long owner password", Owner, nil)
	if err != nil || !owner.CanSee("airport") {
		t.Fatalf("owner = %+v, %v", owner, err)
	}
	tests := []struct {
		name, user, password string
		role                 Role
		locations            []string
		want                 string
	}{
		{"short password", "ann", "short", Clerk, []string{"oldtown"}, "password must be 12 to 256 characters"},
		{"bad username", "Ann Lee", "long enough password", Clerk, []string{"oldtown"}, "username must be"},
		{"clerk without location", "ann", "long enough password", Clerk, nil, "a clerk needs at least one location"},
		{"owner with location", "ann", "long enough password", Owner, []string{"oldtown"}, "an owner sees every location"},
		{"unknown location", "ann", "long enough password", Clerk, []string{"nowhere"}, `location "nowhere" is not in the config`},
		{"unknown role", "ann", "long enough password", Role("admin"), nil, "role must be owner or clerk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.AddUser(ctx, tt.user, tt.password, tt.role, tt.locations)
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalid || !strings.Contains(e.Message, tt.want) {
				t.Fatalf("AddUser = %v, want %q", err, tt.want)
			}
			if _, err := s.User(ctx, tt.user); ErrorCode(err) != CodeDenied {
				t.Fatalf("a refused user was stored: %v", err)
			}
		})
	}
}

func TestSignInAndSessions(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newService(t, st)
		ctx := context.Background()
		if _, err := s.AddUser(ctx, "maria", "correct horse battery", Clerk, []string{"riverside"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.SignIn(ctx, "maria", "wrong horse battery", "192.0.2.1"); ErrorCode(err) != CodeDenied {
			t.Fatalf("wrong password: %v", err)
		}
		if _, _, err := s.SignIn(ctx, "nobody", "correct horse battery", "192.0.2.1"); ErrorCode(err) != CodeDenied {
			t.Fatalf("unknown user: %v", err)
		}
		ses, token, err := s.SignIn(ctx, " Maria ", "correct horse battery", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		got, u, err := s.Session(ctx, token)
		if err != nil || u.Username != "maria" || got.CSRF != ses.CSRF {
			t.Fatalf("Session = %+v %+v %v", got, u, err)
		}
		if !CheckCSRF(got, ses.CSRF) || CheckCSRF(got, "") || CheckCSRF(got, ses.CSRF[:len(ses.CSRF)-1]+"x") {
			t.Fatal("CSRF check is wrong")
		}
		if _, _, err := s.Session(ctx, token+"x"); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("forged token: %v", err)
		}
		// Idle sessions end; activity keeps one going up to its lifetime.
		for i := 0; i < 11; i++ {
			clk.Advance(time.Hour)
			if _, _, err := s.Session(ctx, token); err != nil {
				t.Fatalf("active session ended after %d hours: %v", i+1, err)
			}
		}
		clk.Advance(time.Hour)
		if _, _, err := s.Session(ctx, token); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("session outlived its lifetime: %v", err)
		}
		_, idle, err := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(SessionIdle)
		if _, _, err := s.Session(ctx, idle); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("idle session: %v", err)
		}
		// A session reused after sign-out is refused.
		_, out, err := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SignOut(ctx, out); err != nil {
			t.Fatal(err)
		}
		if err := s.SignOut(ctx, out); err != nil {
			t.Fatalf("second sign-out: %v", err)
		}
		if _, _, err := s.Session(ctx, out); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("session after sign-out: %v", err)
		}
	})
}

// TestParallelGuessesHoldTheLimit: attempts are claimed before the
// password is checked, so fifty guesses at once check at most the
// per-user limit, and the right password inside the burst is refused
// once the limit is spent.
func TestParallelGuessesHoldTheLimit(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newService(t, st)
		ctx := context.Background()
		if _, err := s.AddUser(ctx, "maria", "correct horse battery", Owner, nil); err != nil {
			t.Fatal(err)
		}
		var denied, limited, other atomic.Int32
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Go(func() {
				addr := "192.0.2." + string(rune('0'+i%10))
				_, _, err := s.SignIn(ctx, "maria", "wrong horse battery", addr)
				switch ErrorCode(err) {
				case CodeDenied:
					denied.Add(1)
				case CodeLimited:
					limited.Add(1)
				default:
					other.Add(1)
					t.Errorf("guess: %v", err)
				}
			})
		}
		wg.Wait()
		if denied.Load() != AttemptsPerUser || limited.Load() != 50-AttemptsPerUser {
			t.Fatalf("checked %d guesses and limited %d, want %d and %d", denied.Load(), limited.Load(), AttemptsPerUser, 50-AttemptsPerUser)
		}
		if _, _, err := s.SignIn(ctx, "maria", "correct horse battery", "198.51.100.7"); ErrorCode(err) != CodeLimited {
			t.Fatalf("right password inside the limit: %v", err)
		}
		clk.Advance(AttemptWindow)
		if _, _, err := s.SignIn(ctx, "maria", "correct horse battery", "198.51.100.7"); err != nil {
			t.Fatalf("after the window: %v", err)
		}
	})
}

// TestAddressLimit: one address trying many usernames is limited too.
func TestAddressLimit(t *testing.T) {
	s, _ := newService(t, sqliteStore(t))
	ctx := context.Background()
	for i := range AttemptsPerAddr {
		if _, _, err := s.SignIn(ctx, "user"+string(rune('a'+i%26))+string(rune('a'+i/26)), "whatever password", "203.0.113.9"); ErrorCode(err) != CodeDenied {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if _, _, err := s.SignIn(ctx, "someone", "whatever password", "203.0.113.9"); ErrorCode(err) != CodeLimited {
		t.Fatalf("attempt past the address limit: %v", err)
	}
}

func TestPurgeRemovesEndedSessionsAndOldWindows(t *testing.T) {
	st := sqliteStore(t)
	s, clk := newService(t, st)
	ctx := context.Background()
	if _, err := s.AddUser(ctx, "maria", "correct horse battery", Owner, nil); err != nil {
		t.Fatal(err)
	}
	_, old, _ := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.1")
	clk.Advance(SessionIdle + AttemptWindow*2 + time.Minute)
	_, fresh, _ := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.2")
	n, err := s.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The old session and the first address's counter, idle in this
	// window; maria's counter counts the fresh attempt and stays.
	if n != 2 {
		t.Fatalf("purged %d records, want 2", n)
	}
	if _, _, err := s.Session(ctx, fresh); err != nil {
		t.Fatalf("fresh session purged: %v", err)
	}
	if _, _, err := s.Session(ctx, old); ErrorCode(err) != CodeSignedOut {
		t.Fatalf("old session: %v", err)
	}
}

func TestPasswordHashes(t *testing.T) {
	h, err := hashPassword("correct horse battery", cheap, &seeded{})
	if err != nil {
		t.Fatal(err)
	}
	if !checkPassword(h, "correct horse battery") || checkPassword(h, "correct horse batterY") {
		t.Fatal("checkPassword is wrong")
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", strings.Replace(h, "t=1", "t=0", 1), "$argon2id$v=19$m=64,t=1,p=1$!!$AAAA"} {
		if checkPassword(bad, "correct horse battery") {
			t.Errorf("unreadable hash %q matched", bad)
		}
	}
}
