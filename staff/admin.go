package staff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"frontdesk/business"
	"frontdesk/store"
)

// Administration of logins: an owner lists, scopes, disables, resets and
// removes them, on the staff screen or from the command line. No change
// may leave the business without an enabled owner, who alone can undo it.

// checkScope checks a role and its locations and returns the scope to
// store: the locations once each, none for an owner.
func (s *Service) checkScope(role Role, locations []string) ([]string, error) {
	switch role {
	case Owner:
		if len(locations) > 0 {
			return nil, invalid("an owner sees every location; give locations only to a clerk")
		}
	case Clerk:
		if len(locations) == 0 {
			return nil, invalid("a clerk needs at least one location")
		}
	default:
		return nil, invalid("role must be owner or clerk")
	}
	var scope []string
	for _, slug := range locations {
		if !slices.ContainsFunc(s.cfg.Locations, func(l business.Location) bool { return l.Slug == slug }) {
			return nil, invalid("location %q is not in the config", slug)
		}
		if !slices.Contains(scope, slug) {
			scope = append(scope, slug)
		}
	}
	return scope, nil
}

// maxUsers bounds one listing of logins.
const maxUsers = 1000

// Users lists every login in order of username.
func (s *Service) Users(ctx context.Context) ([]User, error) {
	recs, err := s.records.List(ctx, kindUser, "", "", maxUsers)
	if err != nil {
		return nil, internal("list users", err)
	}
	out := make([]User, 0, len(recs))
	for _, r := range recs {
		var u User
		if err := json.Unmarshal(r.Value, &u); err != nil {
			return nil, internal("decode user", err)
		}
		out = append(out, u)
	}
	return out, nil
}

// HasUsers reports whether any login exists, so a fresh install's
// sign-in page can say how to create the first.
func (s *Service) HasUsers(ctx context.Context) (bool, error) {
	recs, err := s.records.List(ctx, kindUser, "", "", 1)
	if err != nil {
		return false, internal("list users", err)
	}
	return len(recs) > 0, nil
}

// SetScope changes a login's role and locations.
func (s *Service) SetScope(ctx context.Context, username string, role Role, locations []string) (User, error) {
	scope, err := s.checkScope(role, locations)
	if err != nil {
		return User{}, err
	}
	return s.write(ctx, username, func(u *User) { u.Role, u.Locations = role, scope })
}

// SetDisabled disables a login, which ends its sessions, or enables it
// again.
func (s *Service) SetDisabled(ctx context.Context, username string, disabled bool) (User, error) {
	return s.write(ctx, username, func(u *User) { u.Disabled = disabled })
}

// ResetPassword gives a login a new password and ends its sessions.
func (s *Service) ResetPassword(ctx context.Context, username, password string) (User, error) {
	if n := utf8.RuneCountInString(password); n < MinPasswordLength || n > MaxPasswordLength {
		return User{}, invalid("password must be %d to %d characters", MinPasswordLength, MaxPasswordLength)
	}
	hash, err := hashPassword(password, s.hashing, s.random)
	if err != nil {
		return User{}, internal("hash password", err)
	}
	now := s.clock.Now()
	return s.write(ctx, username, func(u *User) { u.Hash, u.PasswordSet = hash, now })
}

// RemoveUser deletes a login; its sessions end with it.
func (s *Service) RemoveUser(ctx context.Context, username string) error {
	_, err := s.write(ctx, username, nil)
	return err
}

// maxSwaps bounds a read-modify-write of one login under contention.
const maxSwaps = 20

// write edits a login, or removes it when edit is nil, with conditional
// writes. When the login is an enabled owner who would stop being one,
// the same transaction rewrites another enabled owner's record at the
// version it was read: two such changes at once touch each other's
// record, so one of them conflicts, reads again and is refused, and an
// enabled owner always stays.
func (s *Service) write(ctx context.Context, username string, edit func(*User)) (User, error) {
	var out User
	err := store.Retrier{Attempts: maxSwaps}.Run(ctx, func() error {
		r, u, err := s.userRecord(ctx, username)
		if err != nil {
			return err
		}
		var edited *User
		if edit != nil {
			e := u
			edit(&e)
			edited = &e
		}
		witness, err := s.keepsAnOwner(ctx, u, edited)
		if err != nil {
			return err
		}
		target := store.Write{Op: store.OpDelete, Record: r}
		if edited != nil {
			r.Value, _ = json.Marshal(edited)
			r.UpdatedAt = s.clock.Now()
			target = store.Write{Op: store.OpSwap, Record: r}
		}
		writes := []store.Write{target}
		if witness != nil {
			writes = append(writes, store.Write{Op: store.OpSwap, Record: *witness})
			// Both records in key order, so two such transactions lock
			// them in the same order and never deadlock.
			slices.SortFunc(writes, func(a, b store.Write) int { return strings.Compare(a.Record.Key, b.Record.Key) })
		}
		// Either record changed or went meanwhile: a lost race, which
		// checks again.
		if _, err := s.records.Apply(ctx, writes); err != nil {
			if store.LostRace(err) {
				return err
			}
			return internal("save user", err)
		}
		out = u
		if edited != nil {
			out = *edited
		}
		return nil
	})
	if _, lost := errors.AsType[*store.LostRaces](err); lost {
		return User{}, internal("save user", err)
	}
	if err != nil {
		return User{}, err
	}
	return out, nil
}

func (s *Service) userRecord(ctx context.Context, username string) (store.Record, User, error) {
	r, err := s.records.Get(ctx, kindUser, username)
	if errors.Is(err, store.ErrNotFound) {
		return store.Record{}, User{}, &Error{Code: CodeDenied, Message: fmt.Sprintf("no user %q", username)}
	}
	if err != nil {
		return store.Record{}, User{}, internal("read user", err)
	}
	var u User
	if err := json.Unmarshal(r.Value, &u); err != nil {
		return store.Record{}, User{}, internal("decode user", err)
	}
	return r, u, nil
}

// keepsAnOwner refuses turning the last enabled owner into something
// else (edited), or removing them (edited nil). When the change needs
// another enabled owner, it returns that owner's record as read, for the
// caller to rewrite in the same transaction; otherwise nil.
func (s *Service) keepsAnOwner(ctx context.Context, before User, edited *User) (*store.Record, error) {
	if before.Role != Owner || before.Disabled || edited != nil && edited.Role == Owner && !edited.Disabled {
		return nil, nil
	}
	recs, err := s.records.List(ctx, kindUser, "", "", maxUsers)
	if err != nil {
		return nil, internal("list users", err)
	}
	for _, r := range recs {
		var u User
		if err := json.Unmarshal(r.Value, &u); err != nil {
			return nil, internal("decode user", err)
		}
		if u.Username != before.Username && u.Role == Owner && !u.Disabled {
			return &r, nil
		}
	}
	return nil, invalid("%s is the only enabled owner: add or enable another owner first, or nobody could manage logins", before.Username)
}
