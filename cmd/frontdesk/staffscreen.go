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
	screen := &web.StaffScreen{Config: m.Config, Core: m.office, Logger: m.Logger.With("component", "staffscreen"),
		Logins: &lazyLogins{open: func() (*staff.Service, error) {
			return staff.New(m.store, m.Config, staff.Options{Clock: m.Clock, Random: m.Rand})
		}}}
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

var _ web.Logins = (*lazyLogins)(nil)

func (l *lazyLogins) get() (*staff.Service, error) {
	l.once.Do(func() { l.svc, l.err = l.open() })
	return l.svc, l.err
}

func (l *lazyLogins) SignIn(ctx context.Context, username, password, addr string) (staff.Session, string, error) {
	svc, err := l.get()
	if err != nil {
		return staff.Session{}, "", err
	}
	return svc.SignIn(ctx, username, password, addr)
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
