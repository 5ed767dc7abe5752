package main

import (
	"context"
	"io"
	"sync"
	"time"

	"frontdesk/usp"
	"frontdesk/usp/pop"
	"frontdesk/usp/webhook"
)

// webhookEvery is how often serve looks for webhook events that are due:
// the first attempt follows a transition within this much, and retries
// land within it of their schedule.
const webhookEvery = 5 * time.Second

// outbox delivers the USP webhook events of the opened store.
// Bodies are the bookings as USP renders them, and each platform's URL
// is its registered webhook_url or its profile's.
func (m *Main) outbox() *webhook.Outbox {
	return &webhook.Outbox{
		Records:  m.store,
		Client:   usp.CallbackClient(m.Config.AllowPrivate(), nil),
		Sign:     m.keySet(),
		Endpoint: m.usp.WebhookURL,
		Render:   m.usp.EventBody,
		Notify:   m.split.USPNotify(m.uspWebhooks.Notify),
		Clock:    m.Clock, Logger: m.Logger,
	}
}

// startUSPWork runs what serve does for USP in the background until ctx
// ends: the USP deadlines, re-publishing rotated signing keys, delivering
// webhooks and forgetting spent proofs and credentials. It returns a
// function that stops it and waits.
func (m *Main) startUSPWork(ctx context.Context) (stop func()) {
	if m.usp == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	box := m.outbox()
	wg.Go(func() { box.Run(ctx, webhookEvery) })
	replay := pop.StoreReplay{Records: m.store}
	stopJobs := m.startJobs(ctx, m.uspSweepJob(), m.refreshKeysJob(),
		// The jti of proofs too old to be accepted again, so the replay
		// cache stays as small as its window.
		job{name: "usp proof replay sweep", every: time.Minute, run: func(ctx context.Context) error {
			_, err := replay.Sweep(ctx, m.Clock.Now())
			return err
		}},
		job{name: "usp credential sweep", every: credentialSweepEvery, run: func(ctx context.Context) error {
			_, err := m.uspCredentials.Sweep(ctx)
			return err
		}})
	return func() {
		cancel()
		stopJobs()
		wg.Wait()
	}
}

// credentialSweepEvery is how often serve deletes the booking-scoped
// credentials that open nothing any more; they are refused from the
// moment their booking ends, so this only keeps the store small.
const credentialSweepEvery = 15 * time.Minute

// printWebhookSweep is the USP part of `frontdesk sweep` that serve does
// in the background (usp.PrintDeliverySweep).
func (m *Main) printWebhookSweep(ctx context.Context, out io.Writer) error {
	if m.usp == nil {
		return nil
	}
	return usp.PrintDeliverySweep(ctx, m.outbox(), m.store, m.uspCredentials, m.Clock, out)
}

// syncCatalog records the catalog of this config for the USP feed, so
// services changed or removed since the last start are dated now.
func (m *Main) syncCatalog(ctx context.Context) error {
	if m.usp == nil {
		return nil
	}
	return m.usp.SyncCatalog(ctx)
}
