package staff

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/fault"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// cheap keeps tests fast; the cost parameters travel in each hash.
var cheap = Hashing{Time: 1, Memory: 64, Threads: 1}

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
	s, err := New(st, config.Demo().Portfolio, Options{Clock: clk, Random: random.SeededBy(1), Hashing: cheap})
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
		s, _ := newService(t, st)
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
		if err != nil || u.Username != "maria" || got.Subject != "maria" || got.CSRF != ses.CSRF {
			t.Fatalf("Session = %+v %+v %v", got, u, err)
		}
		if _, _, err := s.Session(ctx, token+"x"); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("forged token: %v", err)
		}
		// Expiry, CSRF and sign-out are internal/session's, tested there;
		// this checks the service hands them through.
		_, out, err := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SignOut(ctx, out); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Session(ctx, out); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("session after sign-out: %v", err)
		}
	})
}

// TestParallelGuessesHoldTheLimit: attempts are claimed before the
// password is checked, so fifty guesses at once from one address check
// at most the budget of that login at that address, and the right
// password from there is refused until the window ends, while the same
// login from another address signs in at once.
func TestParallelGuessesHoldTheLimit(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newService(t, st)
		ctx := context.Background()
		if _, err := s.AddUser(ctx, "maria", "correct horse battery", Owner, nil); err != nil {
			t.Fatal(err)
		}
		var denied, limited atomic.Int32
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				_, _, err := s.SignIn(ctx, "maria", "wrong horse battery", "192.0.2.9")
				switch ErrorCode(err) {
				case CodeDenied:
					denied.Add(1)
				case CodeLimited:
					limited.Add(1)
				default:
					t.Errorf("guess: %v", err)
				}
			})
		}
		wg.Wait()
		if denied.Load() != AttemptsPerClient || limited.Load() != 50-AttemptsPerClient {
			t.Fatalf("checked %d guesses and limited %d, want %d and %d", denied.Load(), limited.Load(), AttemptsPerClient, 50-AttemptsPerClient)
		}
		if _, _, err := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.9"); ErrorCode(err) != CodeLimited {
			t.Fatalf("right password from the guessing address: %v", err)
		}
		if _, _, err := s.SignIn(ctx, "maria", "correct horse battery", "198.51.100.7"); err != nil {
			t.Fatalf("right password from another address: %v", err)
		}
		clk.Advance(AttemptWindow)
		if _, _, err := s.SignIn(ctx, "maria", "correct horse battery", "192.0.2.9"); err != nil {
			t.Fatalf("after the window: %v", err)
		}
	})
}

// TestOthersCannotLockALoginOut: wrong passwords from eight addresses, or
// as many as the unknown-device budget allows from many more, do not
// stop the login's own device from signing in, and successful sign-ins
// never count: twenty in a row all succeed.
func TestOthersCannotLockALoginOut(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, _ := newService(t, st)
		ctx := context.Background()
		if _, err := s.AddUser(ctx, "olga", "correct horse battery", Owner, nil); err != nil {
			t.Fatal(err)
		}
		in, err := s.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Addr: "192.0.2.1"})
		if err != nil || in.Device == "" {
			t.Fatalf("first sign-in = %+v, %v", in, err)
		}
		device := in.Device
		for i := range AttemptsPerUserUnknown + 20 {
			_, _, err := s.SignIn(ctx, "olga", "wrong horse battery", fmt.Sprintf("203.0.%d.%d", i/200, i%200))
			if code := ErrorCode(err); code != CodeDenied && code != CodeLimited {
				t.Fatalf("guess %d: %v", i, err)
			}
		}
		if _, _, err := s.SignIn(ctx, "olga", "correct horse battery", "198.51.100.1"); ErrorCode(err) != CodeLimited {
			t.Fatalf("an unknown device past the login's unknown-device budget: %v", err)
		}
		for i := range 20 {
			in, err := s.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Addr: "203.0.0.1", Device: device})
			if err != nil {
				t.Fatalf("known device, sign-in %d under the flood: %v", i, err)
			}
			device = in.Device
		}
		// A forged device cookie is an unknown device.
		forged := strings.Replace(device, ".", ".A", 1)
		if _, err := s.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Addr: "198.51.100.1", Device: forged}); ErrorCode(err) != CodeLimited {
			t.Fatalf("a forged device cookie: %v", err)
		}
		// The device's own wrong passwords spend its own budget.
		for range AttemptsPerClient {
			if _, err := s.SignInFrom(ctx, Attempt{Username: "olga", Password: "wrong horse battery", Device: device}); ErrorCode(err) != CodeDenied {
				t.Fatalf("the device's own guess: %v", err)
			}
		}
		if _, err := s.SignInFrom(ctx, Attempt{Username: "olga", Password: "correct horse battery", Device: device}); ErrorCode(err) != CodeLimited {
			t.Fatalf("the device past its own budget: %v", err)
		}
	})
}

// TestSignInLimitInPropertyZone: the lockout names its end in the
// property's time zone, not UTC.
func TestSignInLimitInPropertyZone(t *testing.T) {
	s, _ := newService(t, sqliteStore(t))
	ctx := context.Background()
	var err error
	for range AttemptsPerClient + 1 {
		_, _, err = s.SignIn(ctx, "nobody", "wrong horse battery", "192.0.2.1")
	}
	// testNow is 17:00 UTC, 10:00 in Denver; the window ends at 17:15.
	if got, want := err.(*Error).Message, "too many failed sign-ins; try again after 10:15 MST"; got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
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
	// The old session and every counter: successful sign-ins gave their
	// uses back (login at address, address and login, for each of the
	// two addresses, maria's login counter once).
	if n != 6 {
		t.Fatalf("purged %d records, want 6", n)
	}
	if _, _, err := s.Session(ctx, fresh); err != nil {
		t.Fatalf("fresh session purged: %v", err)
	}
	if _, _, err := s.Session(ctx, old); ErrorCode(err) != CodeSignedOut {
		t.Fatalf("old session: %v", err)
	}
}

func TestPasswordHashes(t *testing.T) {
	h, err := hashPassword("correct horse battery", cheap, random.SeededBy(1))
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

// TestErrorCodeKeepsToStaffCodes: every domain shares one error type, so
// another domain's refusal must read as internal here, never as a staff
// refusal whose message the sign-in page would show.
func TestErrorCodeKeepsToStaffCodes(t *testing.T) {
	foreign := &fault.Error{Code: "conflict", Message: "The reservation changed meanwhile; read it again."}
	if got := ErrorCode(foreign); got != CodeInternal {
		t.Fatalf("ErrorCode(another domain's error) = %q, want %q", got, CodeInternal)
	}
	if _, ok := AsError(foreign); ok {
		t.Fatal("AsError took another domain's error for a staff one")
	}
	own := &Error{Code: CodeLimited, Message: "too many failed sign-ins"}
	if got := ErrorCode(fmt.Errorf("sign in: %w", &fault.Error{Code: "conflict", Err: own})); got != CodeLimited {
		t.Fatalf("ErrorCode = %q, want %q", got, CodeLimited)
	}
}
