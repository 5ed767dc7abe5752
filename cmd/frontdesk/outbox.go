package main

import (
	"context"
	"sync"
	"time"
)

// The reservation outbox's relay and its retention, as serve runs them.
const (
	// outboxRelayEvery is how often the relay looks for events another
	// process committed; this process's own commits wake it at once.
	outboxRelayEvery = 10 * time.Second
	// outboxRetention is how long an event every consumer has passed is
	// kept, for inspection after the fact.
	outboxRetention  = 7 * 24 * time.Hour
	outboxPurgeEvery = time.Hour
	// outboxPurgePage bounds one purge pass's transaction.
	outboxPurgePage = 1000
)

// startOutbox runs the desk's relay and the outbox's purge until ctx
// ends; the returned function stops both and waits for them.
func (m *Main) startOutbox(ctx context.Context) (stop func()) {
	desk := m.bookings.Desk()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { m.runRelay(ctx) })
	stopPurge := m.startJobs(ctx, job{name: "reservation outbox purge", every: outboxPurgeEvery, atStart: true, run: func(ctx context.Context) error {
		_, err := desk.PurgeEvents(ctx, m.Clock.Now().Add(-outboxRetention), outboxPurgePage)
		return err
	}})
	return func() {
		cancel()
		stopPurge()
		wg.Wait()
	}
}

// runRelay relays the desk's outbox until ctx ends.
func (m *Main) runRelay(ctx context.Context) {
	m.bookings.Desk().Run(ctx, outboxRelayEvery, func(err error) { m.Logger.Error("reservation outbox relay", "err", err) })
}

// relayReferrals delivers, in a command that changes reservations
// without serving, what its changes left for the referral ledger, so an
// attributed booking's end settles there as in serve. What a failed pass
// leaves, serve's relay takes up.
func (m *Main) relayReferrals(ctx context.Context) {
	if m.referrals == nil {
		return
	}
	if err := m.bookings.Desk().Relay(ctx); err != nil {
		m.Logger.Warn("reservation outbox relay", "err", err)
	}
}
