package staff

import (
	"context"
	"sync"
)

// Lazy opens the staff logins on the first staff request: opening
// hashes a password, which a process that never serves staff should not
// pay for at start.
type Lazy struct {
	open func() (*Service, error)
	once sync.Once
	svc  *Service
	err  error
}

// NewLazy opens the logins with open on the first call that needs them.
func NewLazy(open func() (*Service, error)) *Lazy { return &Lazy{open: open} }

// Admin is the users page's view of the same logins.
func (l *Lazy) Admin() LazyAdmin { return LazyAdmin{l} }

func (l *Lazy) get() (*Service, error) {
	l.once.Do(func() { l.svc, l.err = l.open() })
	return l.svc, l.err
}

func (l *Lazy) SignInFrom(ctx context.Context, a Attempt) (SignedIn, error) {
	svc, err := l.get()
	if err != nil {
		return SignedIn{}, err
	}
	return svc.SignInFrom(ctx, a)
}

func (l *Lazy) BeginPasskeySignIn(ctx context.Context, rp RP) ([]byte, string, error) {
	svc, err := l.get()
	if err != nil {
		return nil, "", err
	}
	return svc.BeginPasskeySignIn(ctx, rp)
}

func (l *Lazy) FinishPasskeySignIn(ctx context.Context, rp RP, token string, answer []byte, device string) (SignedIn, error) {
	svc, err := l.get()
	if err != nil {
		return SignedIn{}, err
	}
	return svc.FinishPasskeySignIn(ctx, rp, token, answer, device)
}

func (l *Lazy) BeginPasskeyRegistration(ctx context.Context, rp RP, username string) ([]byte, string, error) {
	svc, err := l.get()
	if err != nil {
		return nil, "", err
	}
	return svc.BeginPasskeyRegistration(ctx, rp, username)
}

func (l *Lazy) FinishPasskeyRegistration(ctx context.Context, rp RP, username, token string, answer []byte) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.FinishPasskeyRegistration(ctx, rp, username, token, answer)
}

func (l *Lazy) Session(ctx context.Context, token string) (Session, User, error) {
	svc, err := l.get()
	if err != nil {
		return Session{}, User{}, err
	}
	return svc.Session(ctx, token)
}

func (l *Lazy) SignOut(ctx context.Context, token string) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.SignOut(ctx, token)
}

func (l *Lazy) SignOutEverywhere(ctx context.Context, username string) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.SignOutEverywhere(ctx, username)
}

// LazyAdmin is the users page's view of the same lazily opened logins.
type LazyAdmin struct{ l *Lazy }

// callOpen runs f on the logins once they are open.
func callOpen[T any](a LazyAdmin, f func(*Service) (T, error)) (T, error) {
	svc, err := a.l.get()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(svc)
}

func (a LazyAdmin) HasUsers(ctx context.Context) (bool, error) {
	return callOpen(a, func(s *Service) (bool, error) { return s.HasUsers(ctx) })
}

func (a LazyAdmin) Users(ctx context.Context) ([]User, error) {
	return callOpen(a, func(s *Service) ([]User, error) { return s.Users(ctx) })
}

func (a LazyAdmin) AddUser(ctx context.Context, username, password string, role Role, locations []string) (User, error) {
	return callOpen(a, func(s *Service) (User, error) { return s.AddUser(ctx, username, password, role, locations) })
}

func (a LazyAdmin) SetScope(ctx context.Context, username string, role Role, locations []string) (User, error) {
	return callOpen(a, func(s *Service) (User, error) { return s.SetScope(ctx, username, role, locations) })
}

func (a LazyAdmin) SetDisabled(ctx context.Context, username string, disabled bool) (User, error) {
	return callOpen(a, func(s *Service) (User, error) { return s.SetDisabled(ctx, username, disabled) })
}

func (a LazyAdmin) ResetPassword(ctx context.Context, username, password string) (User, error) {
	return callOpen(a, func(s *Service) (User, error) { return s.ResetPassword(ctx, username, password) })
}

func (a LazyAdmin) RemoveUser(ctx context.Context, username string) error {
	_, err := callOpen(a, func(s *Service) (struct{}, error) { return struct{}{}, s.RemoveUser(ctx, username) })
	return err
}
