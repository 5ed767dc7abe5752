package direct

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Deadlines are the time limits of the direct-booking worksheet ("Request
// deadlines", "Subrequest limits", "Code-budget acknowledgement") as they
// apply in one process, where the location serves the tool call itself:
// Operation bounds a whole call, and every awaited store or mail call
// runs under its own limit clipped to what remains of the call. A zero
// field takes the worksheet's value; tests shorten them.
//
// A deadline that passes ends the wait, never the work already accepted:
// a write whose answer did not come in time may have committed, so the
// caller answers with the operation's uncertainty sentence and leaves the
// rest to an identical retry or the sweep, never "nothing happened".
type Deadlines struct {
	Operation time.Duration // one booking tool call at the location: 25 s
	Admission time.Duration // a mail charge's conditional write: 2 s
	MailSend  time.Duration // one email send: 3.5 s
	Inventory time.Duration // an availability read: 3 s
	Policy    time.Duration // the live settings and office-status read: 2 s
	Contact   time.Duration // a proved mailbox's contact reads: 4 s
	Lookup    time.Duration // a reservation lookup with its try claim: 5 s
	Location  time.Duration // any one store request: 4 s
}

// withDefaults fills every zero field with the worksheet's value.
func (d Deadlines) withDefaults() Deadlines {
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&d.Operation, 25 * time.Second}, {&d.Admission, 2 * time.Second}, {&d.MailSend, 3500 * time.Millisecond},
		{&d.Inventory, 3 * time.Second}, {&d.Policy, 2 * time.Second}, {&d.Contact, 4 * time.Second}, {&d.Lookup, 5 * time.Second},
		{&d.Location, 4 * time.Second},
	} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	return d
}

// within bounds ctx by limit; a parent deadline that comes sooner wins,
// so the call is clipped to what remains of its operation.
func within(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, limit)
}

// lazyDeadline is a limit that starts at its first use, so that a wait
// before it, such as reading for an identical request, does not count.
type lazyDeadline struct {
	parent context.Context
	limit  time.Duration
	ctx    context.Context
	cancel context.CancelFunc
}

// context returns the limited context, starting the limit on first use.
func (d *lazyDeadline) context() context.Context {
	if d.ctx == nil {
		d.ctx, d.cancel = within(d.parent, d.limit)
	}
	return d.ctx
}

// passed reports whether the limit started and has ended.
func (d *lazyDeadline) passed() bool { return d.ctx != nil && d.ctx.Err() != nil }

func (d *lazyDeadline) stop() {
	if d.cancel != nil {
		d.cancel()
	}
}

// admitDeadline is the mail admission's deadline: the conditional writes
// that charge the budgets, across every attempt, share it.
func (s *Service) admitDeadline(ctx context.Context) *lazyDeadline {
	return &lazyDeadline{parent: ctx, limit: s.deadlines.Admission}
}

// operation starts one tool call's deadline.
func (s *Service) operation(ctx context.Context) (context.Context, context.CancelFunc) {
	return within(ctx, s.deadlines.Operation)
}

// freeNights is the availability read, under its limit.
func (s *Service) freeNights(ctx context.Context, l business.Location, from civil.Date, nights int) ([]inventory.Free, error) {
	ctx, cancel := within(ctx, s.deadlines.Inventory)
	defer cancel()
	return s.inv.FreeNights(ctx, l, from, nights)
}

// policy reads the settings in force, the booking switch and the office
// status among them, under the office-status limit.
func (s *Service) policy(ctx context.Context) (reservation.Settings, error) {
	ctx, cancel := within(ctx, s.deadlines.Policy)
	defer cancel()
	return s.Settings(ctx)
}

// policyAnd reads the settings in force and the records of keys in one
// request, under the office-status limit; a record of keys has Version 0
// when absent.
func (s *Service) policyAnd(ctx context.Context, keys ...store.Key) (reservation.Settings, []store.Record, error) {
	ctx, cancel := within(ctx, s.deadlines.Policy)
	defer cancel()
	rs, err := s.st.GetMany(ctx, append([]store.Key{{Kind: kindSettings, Key: "current"}}, keys...))
	if err != nil {
		return reservation.Settings{}, nil, fmt.Errorf("read settings: %w", err)
	}
	set, err := s.settingsFrom(rs[0])
	return set, rs[1:], err
}

// send sends one email under the mail limit. A send that did not start
// before the operation's deadline is known not to have left; one cut
// off by the deadline while under way is uncertain, as the mailer words
// it.
func (s *Service) send(ctx context.Context, e message.Email) error {
	if err := ctx.Err(); err != nil {
		return errors.Join(message.ErrNotSent, err)
	}
	ctx, cancel := within(ctx, s.deadlines.MailSend)
	defer cancel()
	return s.mail.Send(ctx, e)
}
