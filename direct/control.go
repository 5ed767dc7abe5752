package direct

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"frontdesk/quota"
	"frontdesk/reservation"
	"frontdesk/store"
)

// The group's shared control data of direct-booking.md §4: the group's
// pending places, its code admissions, and per keyed mailbox its code
// admissions, a short-lived contact marker and the stays it holds at
// each location. In one process they are the service's own records,
// written in the very transactions of a booking. In a split deployment
// the hub keeps them (ControlStore, on the hub's store) and each location
// reaches them through a Control over the relay before it admits a code
// send, a pending reservation or a same-email decision.
//
// The hub never holds raw guest input: a mailbox reaches it keyed with
// the shared operational secret's versions, newest first.

// Control is a location's way to the hub's control data.
type Control interface {
	// Admit charges one booking code to the group's budget and to the
	// mailbox's at the hub. A full budget is *ControlFull; anything else
	// is the shared counter failing, and no code is sent.
	Admit(ctx context.Context, email string) (Admitted, error)
	// AdmitCancel charges one cancellation code to the group's budget.
	AdmitCancel(ctx context.Context) (Admitted, error)
	// Refund gives back an admission known to be unused.
	Refund(ctx context.Context, a Admitted) error
	// Pending is the group's live pending count.
	Pending(ctx context.Context) (int, error)
	// Claim takes a group pending place for reservation ref until the
	// given instant; a full ceiling is *ControlFull. A place already
	// taken for ref is kept, not taken twice.
	Claim(ctx context.Context, ref string, until time.Time) error
	// Release gives back ref's place, once, whenever called again.
	Release(ctx context.Context, ref string) error
	// Mark takes the mailbox's contact marker and reads the stays it
	// holds elsewhere, under every live version of the shared secret; a
	// marker another call holds is ErrControlBusy.
	Mark(ctx context.Context, email string) (Marker, error)
	// Settle records the stay a marked call made, if any, and ends the
	// marker.
	Settle(ctx context.Context, m Marker, made *ControlStay) error
	// Restate records what became of a stay the mailbox of email holds:
	// to is the stay now (no longer pending, or on other nights), nil
	// when it no longer holds its room.
	Restate(ctx context.Context, email string, stay ControlStay, to *ControlStay) error
}

// ControlFull is a full budget or ceiling at the hub: which one.
type ControlFull struct {
	Budget string // "group" or "mailbox" for a code; "pending" for the ceiling
}

func (e *ControlFull) Error() string { return "control: full: " + e.Budget }

// ErrControlBusy is a contact marker another call holds: contention, not
// an outage.
var ErrControlBusy = fmt.Errorf("control: contact marker held: %w", store.ErrConflict)

// Admitted is one admission at the hub: the instant it counts at, for an
// exact refund, and the keyed mailbox it charged.
type Admitted struct {
	At      time.Time `json:"at"`
	Mailbox string    `json:"mailbox,omitempty"`
	Cancel  bool      `json:"cancel,omitempty"` // a cancellation code's
}

// Marker is a held contact marker: the keyed mailbox, its version, when
// it lapses, and the stays the mailbox holds at the group's locations.
type Marker struct {
	Mailbox string `json:"mailbox"`
	// Older are the mailbox's keys under the secret's older versions,
	// whose stays Settle moves under Mailbox.
	Older   []string      `json:"older,omitempty"`
	Version int64         `json:"version"`
	Until   time.Time     `json:"until"`
	Stays   []ControlStay `json:"stays"`
}

// ControlStay is a stay a keyed mailbox holds: where and which nights,
// and whether it awaits staff. No name, address or reference.
type ControlStay struct {
	Location string `json:"location"`
	Checkin  string `json:"checkin"`
	Checkout string `json:"checkout"`
	Pending  bool   `json:"pending"`
}

// The hub's timings and leases of the worksheet.
const (
	hubRequest       = 650 * time.Millisecond  // one hub store request
	hubMutation      = 1500 * time.Millisecond // a read-then-conditional-write loop at the hub
	hubMailCounter   = 2 * time.Second         // a mail-counter operation
	admissionCushion = 60 * time.Second        // a hub admission counts this much longer
	markerLease      = 30 * time.Second        // a contact marker
	markerMargin     = 500 * time.Millisecond  // a location's deadline ends this much before its marker
)

// Record kinds of the hub's control data.
const (
	kindControlClaim  = "control-claim"  // key: reference → the end of its pending place
	kindControlMarker = "control-marker" // key: keyed mailbox → when the marker lapses
	kindControlStays  = "control-stays"  // key: keyed mailbox → its stays at the locations
)

// controlPending is the hub's counter of the group's pending places; its
// code budgets count under the booking-admission counters' names.
const controlPending = "control-pending"

// ControlStore is the hub's control data on its own store, every request
// capped at the hub's request limit.
type ControlStore struct {
	svc *Service
	st  store.Store
}

// NewControlStore returns the control data of svc's store, the hub's.
func NewControlStore(svc *Service) *ControlStore {
	return &ControlStore{svc: svc, st: limitedStore{Store: svc.st, d: &Deadlines{Location: hubRequest}}}
}

// controlBudgets are the hub's code budgets an admission charges, under
// set's ceilings: the group's booking codes and a keyed mailbox's, or
// the group's cancellation codes.
func controlBudgets(set reservation.Settings, a Admitted) []budget {
	if a.Cancel {
		return []budget{{key: "control/cancel-group", daily: set.Group.CancelDaily, refusal: "group"}}
	}
	return []budget{
		{key: "control/book-group", hourly: set.Group.EmailHourly, daily: set.Group.EmailDaily, refusal: "group"},
		{key: "control/book-mailbox/" + a.Mailbox, hourly: mailboxHourly, daily: mailboxDaily, refusal: "mailbox"},
	}
}

// Admit charges one booking code to the group and to mailbox, at now
// plus the cushion, so an admission the location sends a little later
// still counts for its whole window. The group's budget is charged
// first.
//
// The mailbox comes keyed under the shared secret's live versions,
// newest first: the code is charged under the newest key, and what the
// older keys still count takes from its ceiling, so a rotation restarts
// no mailbox's budget.
func (c *ControlStore) Admit(ctx context.Context, mailboxes []string) (Admitted, error) {
	if len(mailboxes) == 0 || len(mailboxes) > 8 || mailboxes[0] == "" {
		return Admitted{}, fmt.Errorf("control: admission of %d mailbox keys", len(mailboxes))
	}
	return c.admit(ctx, Admitted{Mailbox: mailboxes[0]}, mailboxes[1:])
}

// AdmitCancel charges one cancellation code to the group, as Admit does.
func (c *ControlStore) AdmitCancel(ctx context.Context) (Admitted, error) {
	return c.admit(ctx, Admitted{Cancel: true}, nil)
}

func (c *ControlStore) admit(ctx context.Context, a Admitted, older []string) (Admitted, error) {
	ctx, cancel := within(ctx, hubMailCounter)
	defer cancel()
	set, err := c.svc.Settings(ctx)
	if err != nil {
		return Admitted{}, err
	}
	now := c.svc.clock.Now()
	at := now.Add(admissionCushion)
	writes, adm := c.svc.chargeWrites(now, controlBudgets(set, a)...)
	for _, w := range writes {
		// Judged against the uses of the window ending now, and counted
		// from the cushion's end.
		w.Tally.Bucket = at.UnixNano()
	}
	// The mailbox's windows are the last writes; what its older keys
	// count in each window takes from that window's ceiling.
	for _, mb := range older {
		windows := controlBudgets(set, Admitted{Mailbox: mb})[1].counters()
		mine := writes[len(writes)-len(windows):]
		for i, k := range windows {
			n, err := k.Used(ctx, c.st, k.name, now)
			if err != nil {
				return Admitted{}, err
			}
			mine[i].Tally.Limit = max(mine[i].Tally.Limit-int64(n), 0)
		}
	}
	_, err = c.st.Apply(ctx, writes)
	if full, ok := errors.AsType[*errBudget](adm.full(err)); ok {
		return Admitted{}, &ControlFull{Budget: full.b.refusal}
	}
	if err != nil {
		return Admitted{}, err
	}
	a.At = at
	return a, nil
}

// Refund gives back admission a.
func (c *ControlStore) Refund(ctx context.Context, a Admitted) error {
	ctx, cancel := within(ctx, hubMailCounter)
	defer cancel()
	var writes []store.Write
	// Every window of the budgets, whatever their ceilings now.
	every := reservation.Settings{Group: reservation.GroupSettings{EmailHourly: 1, EmailDaily: 1, CancelDaily: 1}}
	for _, b := range controlBudgets(every, a) {
		for _, k := range b.counters() {
			writes = append(writes, k.GiveBack(k.name, a.At, c.svc.clock.Now()))
		}
	}
	_, err := c.st.Apply(ctx, writes)
	return err
}

// Pending counts the group's live pending places.
func (c *ControlStore) Pending(ctx context.Context) (int, error) {
	return quota.Used(ctx, c.st, controlPending, c.svc.clock.Now())
}

// Claim takes a group pending place for ref until the given instant,
// with the record that lets Release give it back once.
func (c *ControlStore) Claim(ctx context.Context, ref string, until time.Time) error {
	ctx, cancel := within(ctx, hubMutation)
	defer cancel()
	set, err := c.svc.Settings(ctx)
	if err != nil {
		return err
	}
	now := c.svc.clock.Now()
	_, err = c.st.Apply(ctx, []store.Write{
		{Op: store.OpCreate, Record: record(kindControlClaim, ref, until, 0, now)},
		quota.Lease{Limit: set.Group.Pending}.Take(controlPending, until, now),
	})
	if we, ok := errors.AsType[*store.WriteError](err); ok {
		switch {
		case errors.Is(we.Err, store.ErrFull):
			return &ControlFull{Budget: "pending"}
		case errors.Is(we.Err, store.ErrExists):
			return nil // taken already for this reservation
		}
	}
	return err
}

// Release gives back ref's place and removes its record in one
// transaction, so a second release finds nothing to give back.
func (c *ControlStore) Release(ctx context.Context, ref string) error {
	ctx, cancel := within(ctx, hubMutation)
	defer cancel()
	return store.Retry(ctx, func() error {
		var until time.Time
		r, err := c.st.Get(ctx, kindControlClaim, ref)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err == nil {
			err = jsonValue(r, &until)
		}
		if err != nil {
			return store.Final(err)
		}
		_, err = c.st.Apply(ctx, []store.Write{
			{Op: store.OpDelete, Record: store.Record{Kind: kindControlClaim, Key: ref, Version: r.Version}},
			quota.Lease{}.GiveBack(controlPending, until, c.svc.clock.Now()),
		})
		return err
	})
}

// Mark takes the contact marker of a mailbox, keyed under the shared
// secret's live versions newest first, for the lease, unless another
// call holds one that has not lapsed, and reads the mailbox's stays under
// every key with it. The marker is the newest key's: every location keys
// with the newest version once it holds it.
func (c *ControlStore) Mark(ctx context.Context, mailboxes []string) (Marker, error) {
	if len(mailboxes) == 0 || len(mailboxes) > 8 {
		return Marker{}, fmt.Errorf("control: %d mailbox keys", len(mailboxes))
	}
	ctx, cancel := within(ctx, hubMutation)
	defer cancel()
	mailbox := mailboxes[0]
	var m Marker
	err := store.Retry(ctx, func() error {
		rs, err := c.st.GetMany(ctx, append([]store.Key{{Kind: kindControlMarker, Key: mailbox}}, stayKeys(mailboxes)...))
		if err != nil {
			return store.Final(err)
		}
		now := c.svc.clock.Now()
		var held time.Time
		if rs[0].Version > 0 {
			if err := jsonValue(rs[0], &held); err != nil {
				return store.Final(err)
			}
			if now.Before(held) {
				return store.Final(ErrControlBusy)
			}
		}
		stays, err := staysOf(rs[1:])
		if err != nil {
			return store.Final(err)
		}
		until := now.Add(markerLease)
		got, err := c.st.Apply(ctx, []store.Write{upsert(kindControlMarker, mailbox, until, rs[0].Version, now)})
		if err != nil {
			return err
		}
		m = Marker{Mailbox: mailbox, Older: mailboxes[1:], Version: got[0].Version, Until: until, Stays: stays}
		return nil
	})
	return m, err
}

// stayKeys are the stays' records of each mailbox key.
func stayKeys(mailboxes []string) []store.Key {
	keys := make([]store.Key, len(mailboxes))
	for i, mb := range mailboxes {
		keys[i] = store.Key{Kind: kindControlStays, Key: mb}
	}
	return keys
}

// staysOf decodes the stays of the records read, absent ones none.
func staysOf(rs []store.Record) ([]ControlStay, error) {
	var stays []ControlStay
	for _, r := range rs {
		if r.Version == 0 {
			continue
		}
		var more []ControlStay
		if err := jsonValue(r, &more); err != nil {
			return nil, err
		}
		stays = append(stays, more...)
	}
	return stays, nil
}

// Settle adds made to the marked mailbox's stays, moving those kept
// under an older key of the secret to the newest and dropping those
// whose departure passed, and ends the marker, at the marker's version:
// a marker that lapsed and was taken again refuses the settle.
func (c *ControlStore) Settle(ctx context.Context, m Marker, made *ControlStay) error {
	ctx, cancel := within(ctx, hubMutation)
	defer cancel()
	return store.Retry(ctx, func() error {
		now := c.svc.clock.Now()
		writes := []store.Write{{Op: store.OpDelete, Record: store.Record{Kind: kindControlMarker, Key: m.Mailbox, Version: m.Version}}}
		if made != nil {
			rs, err := c.st.GetMany(ctx, stayKeys(append([]string{m.Mailbox}, m.Older...)))
			if err != nil {
				return store.Final(err)
			}
			stays, err := staysOf(rs)
			if err != nil {
				return store.Final(err)
			}
			today := now.UTC().AddDate(0, 0, -1).Format(time.DateOnly)
			kept := []ControlStay{*made}
			for _, s := range stays {
				if s.Checkout >= today {
					kept = append(kept, s)
				}
			}
			writes = append(writes, upsert(kindControlStays, m.Mailbox, kept, rs[0].Version, now))
			for _, r := range rs[1:] {
				if r.Version > 0 {
					writes = append(writes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: r.Kind, Key: r.Key, Version: r.Version}})
				}
			}
		}
		_, err := c.st.Apply(ctx, writes)
		if we, ok := errors.AsType[*store.WriteError](err); ok && we.Write.Record.Kind == kindControlMarker {
			return store.Final(ErrControlBusy)
		}
		return err
	})
}

// Restate finds stay among the stays of the mailbox, under any of its
// keys, and replaces it with to, or removes it when to is nil, with a
// conditional write of each record that holds it.
func (c *ControlStore) Restate(ctx context.Context, mailboxes []string, stay ControlStay, to *ControlStay) error {
	if len(mailboxes) == 0 || len(mailboxes) > 8 {
		return fmt.Errorf("control: %d mailbox keys", len(mailboxes))
	}
	ctx, cancel := within(ctx, hubMutation)
	defer cancel()
	same := func(s ControlStay) bool {
		return s.Location == stay.Location && s.Checkin == stay.Checkin && s.Checkout == stay.Checkout
	}
	return store.Retry(ctx, func() error {
		rs, err := c.st.GetMany(ctx, stayKeys(mailboxes))
		if err != nil {
			return store.Final(err)
		}
		var writes []store.Write
		for _, r := range rs {
			stays, err := staysOf([]store.Record{r})
			if err != nil {
				return store.Final(err)
			}
			i := slices.IndexFunc(stays, same)
			if i < 0 {
				continue
			}
			if to == nil {
				stays = slices.Delete(stays, i, i+1)
			} else {
				stays[i] = *to
			}
			writes = append(writes, store.Write{Op: store.OpSwap, Record: record(kindControlStays, r.Key, stays, r.Version, c.svc.clock.Now())})
		}
		_, err = c.st.Apply(ctx, writes)
		return err
	})
}
