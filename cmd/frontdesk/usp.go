package main

import (
	"context"
	"errors"
	"time"

	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/staff"
	"frontdesk/usp"
)

// openUSP builds the business side of USP when the config enables it, on
// the opened store; origin is the public origin the profile names.
// Registered platforms authenticate with their API keys; without any,
// only the public methods are served.
func (m *Main) openUSP(ctx context.Context, origin string) error {
	if !m.Config.USP.Enabled {
		return nil
	}
	opts := usp.Options{
		Config: uspConfig(m.Config), Inventory: inventory.New(m.store), Pricer: pricing.New(m.Config.Portfolio, origin),
		Clock: m.Clock, Origin: origin, Logger: m.Logger, Store: m.store, Bookings: m.core,
		ProfileRootCAs: m.USPRootCAs, Count: m.metrics, Payments: m.payments, Rand: m.Rand,
	}
	if keys := usp.NewAPIKeys(opts.Config.Platforms); keys != nil {
		// Staff confirm USP bookings with their staff-screen session; an
		// owner's session only, as a clerk's scope is per location.
		logins := staff.NewLazy(func() (*staff.Service, error) {
			return staff.New(m.store, m.Config.Portfolio, staff.Options{Clock: m.Clock, Random: m.Rand})
		})
		opts.Authenticator = usp.Chain{keys, usp.StaffSessions{Check: func(ctx context.Context, token string) (string, error) {
			_, u, err := logins.Session(ctx, token)
			if err != nil {
				return "", err
			}
			if u.Role != staff.Owner {
				return "", errors.New("usp: only an owner's session confirms over USP")
			}
			return u.Username, nil
		}}}
	}
	if err := m.uspAuth(ctx, &opts); err != nil {
		return err
	}
	b, err := usp.New(opts)
	if err != nil {
		return err
	}
	m.usp = b
	m.core.GuardDecisions(b.DecisionGuard)
	return nil
}

// uspSweepEvery is how often serve ends lapsed USP holds and pending
// bookings: often, because an expired hold keeps its units until then
// for anyone who does not read it.
const uspSweepEvery = time.Minute

// uspSweepJob ends what is past its USP deadline, every minute.
func (m *Main) uspSweepJob() job {
	return job{name: "usp sweep", every: uspSweepEvery, run: func(ctx context.Context) error {
		_, _, _, err := m.usp.Sweep(ctx)
		return err
	}}
}
