package main

import (
	"context"
	"sync"

	"frontdesk/staff"
	"frontdesk/web"
)

// staffScreen builds the staff screen on this process's store, clock and
// booking core.
func (m *Main) staffScreen() *web.StaffScreen {
	var partners web.PartnerOffers
	if m.orp != nil {
		partners = partnerOffers{m}
	}
	logins := &lazyLogins{open: func() (*staff.Service, error) {
		return staff.New(m.store, m.Config.Portfolio, staff.Options{Clock: m.Clock, Random: m.Rand})
	}}
	screen := &web.StaffScreen{Config: webConfig(m.Config), Core: m.office, Logger: m.Logger.With("component", "staffscreen"), Partners: partners,
		Logins: logins, Admin: lazyAdmin{logins}, Clock: m.Clock, Channels: m.channels, ChannelRule: m.Config.OutboundRule()}
	if m.referrals != nil {
		screen.Referrals = m.referrals
	}
	return screen
}

// lazyLogins opens the staff logins on the first staff request: opening
// hashes a password, which a process that never serves staff should not
// pay for at start.
type lazyLogins struct {
	open func() (*staff.Service, error)
	once sync.Once
	svc  *staff.Service
	err  error
}

var (
	_ web.Logins = (*lazyLogins)(nil)
	_ web.Admin  = lazyAdmin{}
)

func (l *lazyLogins) get() (*staff.Service, error) {
	l.once.Do(func() { l.svc, l.err = l.open() })
	return l.svc, l.err
}

func (l *lazyLogins) SignInFrom(ctx context.Context, a staff.Attempt) (staff.SignedIn, error) {
	svc, err := l.get()
	if err != nil {
		return staff.SignedIn{}, err
	}
	return svc.SignInFrom(ctx, a)
}

func (l *lazyLogins) BeginPasskeySignIn(ctx context.Context, rp staff.RP) ([]byte, string, error) {
	svc, err := l.get()
	if err != nil {
		return nil, "", err
	}
	return svc.BeginPasskeySignIn(ctx, rp)
}

func (l *lazyLogins) FinishPasskeySignIn(ctx context.Context, rp staff.RP, token string, answer []byte, device string) (staff.SignedIn, error) {
	svc, err := l.get()
	if err != nil {
		return staff.SignedIn{}, err
	}
	return svc.FinishPasskeySignIn(ctx, rp, token, answer, device)
}

func (l *lazyLogins) BeginPasskeyRegistration(ctx context.Context, rp staff.RP, username string) ([]byte, string, error) {
	svc, err := l.get()
	if err != nil {
		return nil, "", err
	}
	return svc.BeginPasskeyRegistration(ctx, rp, username)
}

func (l *lazyLogins) FinishPasskeyRegistration(ctx context.Context, rp staff.RP, username, token string, answer []byte) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.FinishPasskeyRegistration(ctx, rp, username, token, answer)
}

func (l *lazyLogins) Session(ctx context.Context, token string) (staff.Session, staff.User, error) {
	svc, err := l.get()
	if err != nil {
		return staff.Session{}, staff.User{}, err
	}
	return svc.Session(ctx, token)
}

func (l *lazyLogins) SignOut(ctx context.Context, token string) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.SignOut(ctx, token)
}

func (l *lazyLogins) SignOutEverywhere(ctx context.Context, username string) error {
	svc, err := l.get()
	if err != nil {
		return err
	}
	return svc.SignOutEverywhere(ctx, username)
}

// lazyAdmin is the users page's view of the same lazily opened logins.
type lazyAdmin struct{ l *lazyLogins }

// call runs f on the logins once they are open.
func call[T any](a lazyAdmin, f func(*staff.Service) (T, error)) (T, error) {
	svc, err := a.l.get()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(svc)
}

func (a lazyAdmin) HasUsers(ctx context.Context) (bool, error) {
	return call(a, func(s *staff.Service) (bool, error) { return s.HasUsers(ctx) })
}

func (a lazyAdmin) Users(ctx context.Context) ([]staff.User, error) {
	return call(a, func(s *staff.Service) ([]staff.User, error) { return s.Users(ctx) })
}

func (a lazyAdmin) AddUser(ctx context.Context, username, password string, role staff.Role, locations []string) (staff.User, error) {
	return call(a, func(s *staff.Service) (staff.User, error) { return s.AddUser(ctx, username, password, role, locations) })
}

func (a lazyAdmin) SetScope(ctx context.Context, username string, role staff.Role, locations []string) (staff.User, error) {
	return call(a, func(s *staff.Service) (staff.User, error) { return s.SetScope(ctx, username, role, locations) })
}

func (a lazyAdmin) SetDisabled(ctx context.Context, username string, disabled bool) (staff.User, error) {
	return call(a, func(s *staff.Service) (staff.User, error) { return s.SetDisabled(ctx, username, disabled) })
}

func (a lazyAdmin) ResetPassword(ctx context.Context, username, password string) (staff.User, error) {
	return call(a, func(s *staff.Service) (staff.User, error) { return s.ResetPassword(ctx, username, password) })
}

func (a lazyAdmin) RemoveUser(ctx context.Context, username string) error {
	_, err := call(a, func(s *staff.Service) (struct{}, error) { return struct{}{}, s.RemoveUser(ctx, username) })
	return err
}
