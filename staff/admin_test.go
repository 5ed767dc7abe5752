package staff

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"frontdesk/store"
)

// TestAdministerLogins on both engines: an owner lists logins, rescopes
// a clerk, disables one (whose session ends and who cannot sign in),
// resets a password (which ends the sessions opened before it) and
// removes a login; the last enabled owner cannot be disabled, demoted or
// removed.
func TestAdministerLogins(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		s, clk := newService(t, st)
		ctx := context.Background()
		if has, err := s.HasUsers(ctx); err != nil || has {
			t.Fatalf("HasUsers on a fresh store = %v, %v", has, err)
		}
		mustAdd := func(name string, role Role, locations ...string) {
			t.Helper()
			if _, err := s.AddUser(ctx, name, "a long enough password", role, locations); err != nil {
				t.Fatal(err)
			}
		}
		mustAdd("olga", Owner)
		mustAdd("carl", Clerk, "oldtown")
		if has, err := s.HasUsers(ctx); err != nil || !has {
			t.Fatalf("HasUsers = %v, %v", has, err)
		}
		users, err := s.Users(ctx)
		if err != nil || len(users) != 2 || users[0].Username != "carl" || users[1].Username != "olga" {
			t.Fatalf("Users = %+v, %v", users, err)
		}

		u, err := s.SetScope(ctx, "carl", Clerk, []string{"riverside", "oldtown"})
		if err != nil || !u.CanSee("riverside") || !u.CanSee("oldtown") || u.CanSee("airport") {
			t.Fatalf("SetScope = %+v, %v", u, err)
		}
		if _, err := s.SetScope(ctx, "carl", Clerk, []string{"moon"}); ErrorCode(err) != CodeInvalid {
			t.Fatalf("scope outside the config = %v", err)
		}

		_, token, err := s.SignIn(ctx, "carl", "a long enough password", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetDisabled(ctx, "carl", true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Session(ctx, token); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("a disabled login's session = %v", err)
		}
		if _, _, err := s.SignIn(ctx, "carl", "a long enough password", "192.0.2.1"); ErrorCode(err) != CodeDenied {
			t.Fatalf("a disabled login signs in: %v", err)
		}
		if _, err := s.SetDisabled(ctx, "carl", false); err != nil {
			t.Fatal(err)
		}
		_, token, err = s.SignIn(ctx, "carl", "a long enough password", "192.0.2.1")
		if err != nil {
			t.Fatalf("enabled again: %v", err)
		}

		clk.Advance(time.Minute)
		if _, err := s.ResetPassword(ctx, "carl", "short"); ErrorCode(err) != CodeInvalid {
			t.Fatalf("short password = %v", err)
		}
		if _, err := s.ResetPassword(ctx, "carl", "a brand new password"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Session(ctx, token); ErrorCode(err) != CodeSignedOut {
			t.Fatalf("a session from before the reset = %v", err)
		}
		if _, _, err := s.SignIn(ctx, "carl", "a long enough password", "192.0.2.1"); ErrorCode(err) != CodeDenied {
			t.Fatalf("the old password signs in: %v", err)
		}
		if _, _, err := s.SignIn(ctx, "carl", "a brand new password", "192.0.2.1"); err != nil {
			t.Fatalf("the new password: %v", err)
		}

		// The only enabled owner stays one.
		for name, err := range map[string]error{
			"disable": func() error { _, err := s.SetDisabled(ctx, "olga", true); return err }(),
			"demote":  func() error { _, err := s.SetScope(ctx, "olga", Clerk, []string{"riverside"}); return err }(),
			"remove":  s.RemoveUser(ctx, "olga"),
		} {
			if ErrorCode(err) != CodeInvalid {
				t.Errorf("%s the last owner = %v", name, err)
			}
		}
		if err := s.RemoveUser(ctx, "carl"); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveUser(ctx, "carl"); ErrorCode(err) != CodeDenied {
			t.Fatalf("removing twice = %v", err)
		}
		if users, _ := s.Users(ctx); len(users) != 1 {
			t.Fatalf("after removal: %+v", users)
		}
	})
}

// TestParallelChangesKeepAnOwner on both engines: two enabled owners
// are removed, disabled or demoted at the same moment, round after
// round; exactly one of the two changes passes, the other is refused as
// touching the only enabled owner, and one enabled owner always stays.
func TestParallelChangesKeepAnOwner(t *testing.T) {
	remove := func(s *Service, name string) error { return s.RemoveUser(context.Background(), name) }
	disable := func(s *Service, name string) error {
		_, err := s.SetDisabled(context.Background(), name, true)
		return err
	}
	demote := func(s *Service, name string) error {
		_, err := s.SetScope(context.Background(), name, Clerk, []string{"oldtown"})
		return err
	}
	pairs := [][2]func(*Service, string) error{{remove, remove}, {remove, disable}, {demote, remove}, {disable, demote}}
	engines(t, func(t *testing.T, st store.Store) {
		s, _ := newService(t, st)
		ctx := context.Background()
		const rounds = 24
		for round := range rounds {
			names := [2]string{fmt.Sprintf("owner%da", round), fmt.Sprintf("owner%db", round)}
			for _, name := range names {
				if _, err := s.AddUser(ctx, name, "a long enough password", Owner, nil); err != nil {
					t.Fatal(err)
				}
			}
			// The last round's logins go, so the pair are the only owners.
			users, err := s.Users(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range users {
				if u.Username != names[0] && u.Username != names[1] {
					if err := s.RemoveUser(ctx, u.Username); err != nil {
						t.Fatal(err)
					}
				}
			}
			ops := pairs[round%len(pairs)]
			var errs [2]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 2 {
				wg.Go(func() {
					<-start
					errs[i] = ops[i](s, names[i])
				})
			}
			close(start)
			wg.Wait()
			passed := 0
			for _, err := range errs {
				switch {
				case err == nil:
					passed++
				case ErrorCode(err) != CodeInvalid:
					t.Fatalf("round %d: unexpected error %v", round, err)
				}
			}
			users, err = s.Users(ctx)
			if err != nil {
				t.Fatal(err)
			}
			owners := 0
			for _, u := range users {
				if u.Role == Owner && !u.Disabled {
					owners++
				}
			}
			if passed != 1 || owners != 1 {
				t.Fatalf("round %d: %d changes passed (%v), %d enabled owners left", round, passed, errs, owners)
			}
		}
	})
}
