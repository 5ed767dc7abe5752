package staff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"frontdesk/config"
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
		if !slices.ContainsFunc(s.cfg.Locations, func(l config.Location) bool { return l.Slug == slug }) {
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
	return s.change(ctx, username, func(u *User) { u.Role, u.Locations = role, scope })
}

// SetDisabled disables a login, which ends its sessions, or enables it
// again.
func (s *Service) SetDisabled(ctx context.Context, username string, disabled bool) (User, error) {
	return s.change(ctx, username, func(u *User) { u.Disabled = disabled })
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
	return s.change(ctx, username, func(u *User) { u.Hash, u.PasswordSet = hash, now })
}

// RemoveUser deletes a login; its sessions end with it.
func (s *Service) RemoveUser(ctx context.Context, username string) error {
	for range maxSwaps {
		r, u, err := s.userRecord(ctx, username)
		if err != nil {
			return err
		}
		if err := s.keepsAnOwner(ctx, u, nil); err != nil {
			return err
		}
		err = s.records.Delete(ctx, kindUser, username, r.Version)
		if errors.Is(err, store.ErrConflict) {
			continue // changed meanwhile: check again
		}
		if errors.Is(err, store.ErrNotFound) {
			return &Error{Code: CodeDenied, Message: fmt.Sprintf("no user %q", username)}
		}
		if err != nil {
			return internal("remove user", err)
		}
		return nil
	}
	return internal("remove user", store.ErrConflict)
}

// maxSwaps bounds a read-modify-write of one login under contention.
const maxSwaps = 20

// change applies edit to a login with a conditional write, refusing an
// edit that would leave no enabled owner.
func (s *Service) change(ctx context.Context, username string, edit func(*User)) (User, error) {
	for range maxSwaps {
		r, u, err := s.userRecord(ctx, username)
		if err != nil {
			return User{}, err
		}
		edited := u
		edit(&edited)
		if err := s.keepsAnOwner(ctx, u, &edited); err != nil {
			return User{}, err
		}
		r.Value, _ = json.Marshal(edited)
		r.UpdatedAt = s.clock.Now()
		_, err = s.records.Swap(ctx, r)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return User{}, internal("save user", err)
		}
		return edited, nil
	}
	return User{}, internal("save user", store.ErrConflict)
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
// else (edited), or removing them (edited nil).
func (s *Service) keepsAnOwner(ctx context.Context, before User, edited *User) error {
	if before.Role != Owner || before.Disabled || edited != nil && edited.Role == Owner && !edited.Disabled {
		return nil
	}
	users, err := s.Users(ctx)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.Username != before.Username && u.Role == Owner && !u.Disabled {
			return nil
		}
	}
	return invalid("%s is the only enabled owner: add or enable another owner first, or nobody could manage logins", before.Username)
}
