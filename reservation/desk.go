package reservation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"frontdesk/store"
)

// The desk is the one place that writes reservations: it builds every
// reservation row, every hold and every release of the availability
// index, and commits each operation in one transaction with what the
// door adds of its own (typed Additions) and what subscribers make of
// the transition (Events). Doors call its operations with typed
// requests and get a reservation or an *Error; they never assemble the
// writes nor read a refusal from the position of a write.

// Desk runs the reservation operations of every door on one store.
type Desk struct {
	st        store.Store
	subs      []named[Subscriber]
	ends      []named[EndHook]
	consumers []named[Consumer]
	kick      chan struct{} // a transition committed: the relay has work
	outbox    OutboxOptions
}

// named is a door's registration, replaced when the door registers again
// under the same name (a door rebuilt on the same desk).
type named[T any] struct {
	name string
	f    T
}

func register[T any](list []named[T], name string, f T) []named[T] {
	for i, n := range list {
		if n.name == name {
			list[i].f = f
			return list
		}
	}
	return append(list, named[T]{name, f})
}

// NewDesk returns the desk on st. Subscribers and end hooks are
// registered once, at wiring, before the first operation.
func NewDesk(st store.Store) *Desk {
	d := &Desk{st: st, kick: make(chan struct{}, 1)}
	d.Outbox(OutboxOptions{})
	return d
}

// Subscriber turns one transition into writes committed with it, such
// as a platform's webhook in its outbox. It must not read the store.
type Subscriber func(e Event) []store.Write

// EndHook returns the writes that go with a reservation reaching a
// terminal state, such as deleting the credentials a platform holds for
// it; it may read the store.
type EndHook func(ctx context.Context, r Reservation) ([]store.Write, error)

// Subscribe makes s, under name, a subscriber of every transition.
func (d *Desk) Subscribe(name string, s Subscriber) { d.subs = register(d.subs, name, s) }

// OnEnd makes h, under name, a hook of every terminal transition.
func (d *Desk) OnEnd(name string, h EndHook) { d.ends = register(d.ends, name, h) }

// Event is one transition as the desk commits it, the same for every
// door: the reservation right after it, the state it left, and the
// version it is stored at.
type Event struct {
	Reservation Reservation
	From        State  // "" for a creation
	Change      string // ChangeCreated, ChangeState, ChangeRescheduled or ChangeUpdated
	Version     int64
	At          time.Time
	// Lapsed says the reservation ended because no one decided on it in
	// time (Expire): the business, not the guest, let it go.
	Lapsed bool
	// Was are the slots a rescheduled reservation held before its move,
	// for those who keep a copy of where it was.
	Was []string
}

// What an Event records.
const (
	ChangeCreated     = "created"
	ChangeState       = "state"
	ChangeRescheduled = "rescheduled"
	ChangeUpdated     = "updated"
)

// Addition is a door's own records committed in the same transaction as
// a desk operation: kept answers, credentials, intents, notices. Build
// gets the reservation as it will be stored. When one of the writes is
// refused the operation fails with CodeConflict wrapping Refused, so
// the door knows its own record lost a race without counting writes.
type Addition struct {
	Build   func(r Reservation) []store.Write
	Refused error
}

// Records is an Addition of fixed writes.
func Records(refused error, writes ...store.Write) Addition {
	return Addition{Build: func(Reservation) []store.Write { return writes }, Refused: refused}
}

// Kind is what a new reservation is.
type Kind int

// The kinds of new reservation.
const (
	// KindRequest holds nothing until staff accept it (the booking form).
	KindRequest Kind = iota + 1
	// KindBooking holds its units and awaits staff (chat, USP, staff).
	KindBooking
	// KindConfirmed holds its units and needs no staff decision (a
	// reservation staff make themselves).
	KindConfirmed
	// KindHold holds its units tentatively until Expires: never awaiting
	// staff, released by expiry or by its owner, or converted into a
	// booking by its owner.
	KindHold
)

// Unit names what a reservation holds and how many of it there are.
type Unit struct {
	Location string
	Type     string
	// Capacity is how many units of the type exist per slot.
	Capacity int
}

// New is a reservation to create.
type New struct {
	Kind      Kind
	Reference string // drawn by the door; unique
	Unit      Unit
	Slots     []string // in order: nights, or one timed start
	// Units is how many units each slot takes; 0 means one.
	Units      int
	Guests     int
	Contact    Contact
	ContactKey string
	Source     Source
	Total      int64
	Notes      string
	Token      string
	// Claims are the pending-ceiling places the reservation takes (keys,
	// with the writes reservation.Claim returned); a request that does
	// not await staff takes none.
	Claims      []string
	ClaimWrites []store.Write
	// Expires is when a hold lapses; required for KindHold.
	Expires time.Time
	Detail  json.RawMessage
	By      string
	// What is the first audit line; "" says "→" and the state.
	What string
	At   time.Time
	Also []Addition
}

// Create stores a new reservation, holding its units in the same
// transaction unless it is a request. Refusals: CodeUnitTaken when the
// units are gone, CodeInternal for a reference already taken or a
// request that names no unit, CodeCeiling when a claim found its pending
// ceiling full, CodeConflict when an Addition was refused.
func (d *Desk) Create(ctx context.Context, n New) (Reservation, error) {
	if n.Reference == "" || n.Unit.Location == "" || n.Unit.Type == "" || len(n.Slots) == 0 || !slices.IsSorted(n.Slots) || n.Source == "" {
		return Reservation{}, fail(CodeInternal, "The reservation names no unit, slots or source.", nil)
	}
	state := map[Kind]State{KindRequest: Requested, KindBooking: Reserved, KindConfirmed: Confirmed, KindHold: OnHold}[n.Kind]
	if state == "" || n.Kind == KindHold && n.Expires.IsZero() {
		return Reservation{}, fail(CodeInternal, "The reservation is of no known kind.", nil)
	}
	r := Reservation{
		Reference: n.Reference, Location: n.Unit.Location, Unit: n.Unit.Type, Slots: n.Slots, Guests: n.Guests,
		Contact: n.Contact, ContactKey: n.ContactKey, Source: n.Source, State: state, Held: state.HoldsUnits(),
		Total: n.Total, Notes: n.Notes, Token: n.Token, CreatedAt: n.At, Detail: n.Detail, Claims: n.Claims,
		Audit: []Entry{{At: n.At, By: n.By, What: cmp.Or(n.What, "→"+string(state))}},
	}
	if state == OnHold {
		r.HoldExpires = n.Expires.UTC()
	}
	var p plan
	p.add(partRow, nil, Create(r, n.At))
	if r.Held {
		p.add(partHold, nil, holdWrite(r, n.Unit, n.Units, n.At))
	}
	p.add(partClaims, nil, n.ClaimWrites...)
	stored := r
	stored.Version, stored.UpdatedAt = 1, n.At
	d.announce(&p, Event{Reservation: stored, Change: ChangeCreated, Version: 1, At: n.At})
	p.also(stored, n.Also)
	if err := d.commit(ctx, p); err != nil {
		return Reservation{}, err
	}
	return stored, nil
}

// Change is one operation on a reservation as the door read it.
type Change struct {
	// Read is the reservation as read; its Version is the one the write
	// expects.
	Read Reservation
	By   string
	Note string
	At   time.Time
	// Edit, when set, changes the door's own fields (Detail, contact,
	// notes, total, attention) of the reservation before it is stored.
	Edit func(*Reservation)
	// Unit is needed when the operation takes units the reservation does
	// not hold yet (accepting a request, rescheduling).
	Unit Unit
	// Units is how many units each slot takes after the operation; 0
	// keeps what the reservation holds (or one).
	Units int
	Also  []Addition
	// lapsed is set by Expire, for the Event.
	lapsed bool
}

// Decide applies a staff decision: confirm, decline, cancel, complete,
// mark a no-show or moved, or accept a request (which takes its units).
// A hold is not awaiting staff: every staff decision on one is
// CodeIllegalTransition.
func (d *Desk) Decide(ctx context.Context, c Change, to State) (Reservation, error) {
	if c.Read.State == OnHold {
		return c.Read, illegal(c.Read, to, "A hold is not a booking yet: only the party holding it can book or release it.")
	}
	if to == Requested {
		return c.Read, illegal(c.Read, to, "No decision makes a booking a request again.")
	}
	return d.transition(ctx, c, to, ChangeState)
}

// Convert turns a hold into a booking that awaits staff (to Reserved) or
// needs none (to Confirmed), keeping its units; Units, when fewer than
// held, gives the rest back in the same transaction. Only a live hold
// converts.
func (d *Desk) Convert(ctx context.Context, c Change, to State) (Reservation, error) {
	if c.Read.State != OnHold || to != Reserved && to != Confirmed {
		return c.Read, illegal(c.Read, to, "Only a live hold becomes a booking.")
	}
	if !c.At.Before(c.Read.HoldExpires) {
		return c.Read, illegal(c.Read, to, "The hold expired.")
	}
	return d.transition(ctx, c, to, ChangeState)
}

// Release ends a hold on its owner's word, giving its units back.
func (d *Desk) Release(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State != OnHold {
		return c.Read, illegal(c.Read, Cancelled, "Only a hold is released.")
	}
	return d.transition(ctx, c, Cancelled, ChangeState)
}

// ExpireHold ends a hold whose time has passed at c.At.
func (d *Desk) ExpireHold(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State != OnHold || c.At.Before(c.Read.HoldExpires) {
		return c.Read, illegal(c.Read, Cancelled, "The hold has not expired.")
	}
	return d.transition(ctx, c, Cancelled, ChangeState)
}

// Cancel cancels a request or a booking on the guest's or the
// platform's word (staff cancel through Decide); a hold is released,
// not cancelled.
func (d *Desk) Cancel(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State == OnHold {
		return c.Read, illegal(c.Read, Cancelled, "A hold is released, not cancelled.")
	}
	return d.transition(ctx, c, Cancelled, ChangeState)
}

// Expire cancels a booking whose deadline passed without a decision
// (a platform's pending booking at its slot's start).
func (d *Desk) Expire(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State != Reserved && c.Read.State != Requested {
		return c.Read, illegal(c.Read, Cancelled, "Only a reservation awaiting staff expires.")
	}
	c.lapsed = true
	return d.transition(ctx, c, Cancelled, ChangeState)
}

// Lapse gives back the units of a booking whose payer let its time pass
// while it can still be paid (a UCP checkout whose hold lapsed, §7.5): it
// waits again as asked for, holding nothing, until TakeHold gives it
// the units of a new hold or it ends.
func (d *Desk) Lapse(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State != Reserved {
		return c.Read, illegal(c.Read, Requested, "Only a booking awaiting its payment lapses.")
	}
	return d.transition(ctx, c, Requested, ChangeState)
}

// TakeHold gives a reservation that holds nothing yet (asked for, or
// lapsed) the units of a live hold on its own slots, using the hold up
// in the same transaction: c.Read becomes to (Reserved or Confirmed) and
// the hold ends, or nothing changes. c.Unit is the unit held.
func (d *Desk) TakeHold(ctx context.Context, c Change, hold Reservation, holdEdit func(*Reservation), to State) (Reservation, error) {
	r := c.Read
	if r.State != Requested || to != Reserved && to != Confirmed {
		return r, illegal(r, to, "Only a reservation that holds nothing takes a hold's units.")
	}
	if hold.State != OnHold || !c.At.Before(hold.HoldExpires) || !slices.Equal(hold.Slots, r.Slots) || hold.Unit != r.Unit || hold.Location != r.Location {
		return r, illegal(hold, Cancelled, "The hold ended or holds other units.")
	}
	var p plan
	hc := Change{Read: hold, By: c.By, Note: "hold used by " + r.Reference, At: c.At, Edit: holdEdit}
	if err := d.plan(ctx, &p, hc, Cancelled, ChangeState); err != nil {
		return r, err
	}
	if err := d.plan(ctx, &p, c, to, ChangeState); err != nil {
		return r, err
	}
	if err := d.commit(ctx, p); err != nil {
		return r, err
	}
	return p.stored, nil
}

// Complete marks a stay or appointment as taken place.
func (d *Desk) Complete(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State == OnHold {
		return c.Read, illegal(c.Read, Completed, "A hold is not a booking.")
	}
	return d.transition(ctx, c, Completed, ChangeState)
}

// Update stores changes of the door's own fields (Edit) without a
// transition, such as a new buyer or notes. A reservation in a terminal
// state is a record and is not changed.
func (d *Desk) Update(ctx context.Context, c Change) (Reservation, error) {
	if c.Read.State.Terminal() {
		return c.Read, illegal(c.Read, c.Read.State, "An ended reservation is not changed.")
	}
	return d.transition(ctx, c, c.Read.State, ChangeUpdated)
}

// Reschedule is a move of a holding reservation to other slots, keeping
// its state: the new slots' units are taken and the old ones given back
// in one transaction, or nothing changes (CodeUnitTaken). Hold, when
// set, is the owner's hold on the new slots, used up (released) in the
// same transaction.
type Reschedule struct {
	Change
	Slots []string
	Hold  *Reservation
	// HoldEdit changes the door's own fields of the hold used up.
	HoldEdit func(*Reservation)
}

// Reschedule moves c.Read to other slots.
func (d *Desk) Reschedule(ctx context.Context, rs Reschedule) (Reservation, error) {
	r := rs.Read
	if !r.State.HoldsUnits() || r.State == OnHold || len(rs.Slots) == 0 || !slices.IsSorted(rs.Slots) {
		return r, illegal(r, r.State, "Only a booking that holds its units is rescheduled.")
	}
	return d.move(ctx, rs, "rescheduled", nil)
}

// MoveHold moves a hold to other slots, keeping it a hold that now lapses
// at expires: the new slots' units are taken and the old ones given back
// in one transaction, or nothing changes (CodeUnitTaken). A channel's
// block that moved in its feed moves this way, so no other door can sell
// the nights between its release and its new hold.
func (d *Desk) MoveHold(ctx context.Context, rs Reschedule, expires time.Time) (Reservation, error) {
	r := rs.Read
	if r.State != OnHold || len(rs.Slots) == 0 || !slices.IsSorted(rs.Slots) || rs.Hold != nil || expires.IsZero() {
		return r, illegal(r, r.State, "Only a hold is moved as a hold.")
	}
	return d.move(ctx, rs, "hold moved", func(m *Reservation) { m.HoldExpires = expires.UTC() })
}

// move commits rs.Read on its new slots under the audit line what; set,
// if given, changes the moved reservation before the door's own Edit.
func (d *Desk) move(ctx context.Context, rs Reschedule, what string, set func(*Reservation)) (Reservation, error) {
	r := rs.Read
	var p plan
	if rs.Hold != nil {
		h := *rs.Hold
		if h.State != OnHold || !rs.At.Before(h.HoldExpires) {
			return r, illegal(h, Cancelled, "The hold on the new slots ended.")
		}
		hc := Change{Read: h, By: rs.By, Note: "hold used by reschedule of " + r.Reference, At: rs.At, Edit: rs.HoldEdit}
		if err := d.plan(ctx, &p, hc, Cancelled, ChangeState); err != nil {
			return r, err
		}
	}
	moved := r
	moved.Slots = rs.Slots
	moved.Audit = append(slices.Clone(r.Audit), Entry{At: rs.At, By: rs.By, What: what, Note: rs.Note})
	if set != nil {
		set(&moved)
	}
	if rs.Edit != nil {
		rs.Edit(&moved)
	}
	p.add(partRelease, nil, releaseWrite(r.Reference, rs.At))
	p.add(partHold, nil, holdWrite(moved, rs.Unit, unitsOf(rs.Units, r.Guests), rs.At))
	p.add(partRow, nil, Save(moved, rs.At))
	stored := moved
	stored.Version, stored.UpdatedAt = r.Version+1, rs.At
	d.announce(&p, Event{Reservation: stored, From: r.State, Change: ChangeRescheduled, Version: stored.Version, At: rs.At, Was: r.Slots})
	p.also(stored, rs.Also)
	if err := d.commit(ctx, p); err != nil {
		return r, err
	}
	return stored, nil
}

// transition checks, plans and commits one change of c.Read to state to.
func (d *Desk) transition(ctx context.Context, c Change, to State, change string) (Reservation, error) {
	var p plan
	if err := d.plan(ctx, &p, c, to, change); err != nil {
		return c.Read, err
	}
	if err := d.commit(ctx, p); err != nil {
		return c.Read, err
	}
	return p.stored, nil
}

// plan adds to p the writes of c.Read moving to to: the row at the
// version read, the release or the hold of its units, the removal of its
// pending claims once it stops awaiting staff, the end hooks' writes for
// a terminal state, the subscribers' writes and the door's additions.
func (d *Desk) plan(ctx context.Context, p *plan, c Change, to State, change string) error {
	r := c.Read
	if change == ChangeState && !r.State.CanMove(to) {
		return illegal(r, to, fmt.Sprintf("A %s reservation cannot become %s.", r.State, to))
	}
	moved := r
	if change == ChangeState {
		moved.Audit = append(slices.Clone(r.Audit), Entry{At: c.At, By: c.By, What: string(r.State) + "→" + string(to), Note: c.Note})
		moved.State = to
		if to != OnHold {
			moved.HoldExpires = time.Time{}
		}
	} else {
		moved.Audit = append(slices.Clone(r.Audit), Entry{At: c.At, By: c.By, What: change, Note: c.Note})
	}
	if c.Edit != nil {
		c.Edit(&moved)
	}
	rowAt := len(p.writes)
	p.add(partRow, nil, store.Write{}) // the row, once the rest is known
	switch {
	case r.Held && !to.HoldsUnits():
		moved.Held = false
		p.add(partRelease, nil, releaseWrite(r.Reference, c.At))
	case !r.Held && to.HoldsUnits():
		if c.Unit.Capacity < 1 {
			return fail(CodeInternal, "The unit to hold is not known.", nil)
		}
		moved.Held = true
		p.add(partHold, nil, holdWrite(moved, c.Unit, unitsOf(c.Units, 1), c.At))
	case r.Held && to.HoldsUnits() && c.Units > 0:
		// Another number of units than held (a hold converted for fewer
		// places): the units are given back and taken again in one write.
		p.add(partRelease, nil, releaseWrite(r.Reference, c.At))
		p.add(partHold, nil, holdWrite(moved, c.Unit, c.Units, c.At))
	}
	if !to.Pending() && len(r.Claims) > 0 {
		versions, err := claimVersions(ctx, d.st, r)
		if err != nil {
			return fail(CodeUnavailable, "The reservation's claims could not be read.", err)
		}
		p.add(partClaims, nil, ReleaseClaims(r.Claims, versions, c.At)...)
		moved.Claims = nil
	}
	if to.Terminal() && !r.State.Terminal() {
		for _, h := range d.ends {
			ws, err := h.f(ctx, moved)
			if err != nil {
				return fail(CodeUnavailable, "The reservation's records could not be read.", err)
			}
			p.add(partHooks, nil, ws...)
		}
	}
	p.writes[rowAt] = Save(moved, c.At)
	stored := moved
	stored.Version, stored.UpdatedAt = r.Version+1, c.At
	d.announce(p, Event{Reservation: stored, From: r.State, Change: change, Version: stored.Version, At: c.At, Lapsed: c.lapsed})
	p.also(stored, c.Also)
	p.stored = stored
	return nil
}

func unitsOf(n, fallback int) int {
	if n > 0 {
		return n
	}
	return max(fallback, 1)
}

func holdWrite(r Reservation, u Unit, units int, at time.Time) store.Write {
	return store.Write{Op: store.OpHold, Hold: &store.Hold{ID: r.Reference, Location: r.Location, Unit: r.Unit,
		Slots: r.Slots, Units: max(units, 1), Capacity: u.Capacity, At: at}}
}

func releaseWrite(ref string, at time.Time) store.Write {
	return store.Write{Op: store.OpRelease, Hold: &store.Hold{ID: ref, At: at}}
}

// announce adds e to the outbox and the subscribers' writes for it.
func (d *Desk) announce(p *plan, e Event) {
	p.add(partEvents, nil, outboxWrite(e))
	p.events++
	for _, s := range d.subs {
		p.add(partEvents, nil, s.f(e)...)
	}
}

// What each write of a plan is, so a refusal is read by what was
// refused, inside the desk alone.
type partKind int

const (
	partRow partKind = iota + 1
	partHold
	partRelease
	partClaims
	partHooks
	partEvents
	partAddition
)

type part struct {
	end     int // writes[previous end:end] are this part's
	kind    partKind
	refused error
}

// plan is the writes of one transaction, in parts.
type plan struct {
	writes []store.Write
	parts  []part
	stored Reservation
	events int // transitions announced
}

func (p *plan) add(kind partKind, refused error, ws ...store.Write) {
	if len(ws) == 0 {
		return
	}
	p.writes = append(p.writes, ws...)
	p.parts = append(p.parts, part{end: len(p.writes), kind: kind, refused: refused})
}

func (p *plan) also(stored Reservation, adds []Addition) {
	for _, a := range adds {
		if a.Build != nil {
			p.add(partAddition, a.Refused, a.Build(stored)...)
		}
	}
}

// commit applies the plan and words a refusal by the part refused.
func (d *Desk) commit(ctx context.Context, p plan) error {
	_, err := d.st.Apply(ctx, p.writes)
	if err == nil {
		if p.events > 0 {
			d.kicked()
		}
		return nil
	}
	we, refused := errors.AsType[*store.WriteError](err)
	if !refused {
		return fail(CodeUnavailable, "The reservation could not be stored; it may or may not have been.", err)
	}
	kind, cause := partRow, error(nil)
	start := 0
	for _, pt := range p.parts {
		if slices.ContainsFunc(p.writes[start:pt.end], we.Refused) {
			kind, cause = pt.kind, pt.refused
			break
		}
		start = pt.end
	}
	switch {
	case kind == partHold && errors.Is(we.Err, store.ErrFull):
		return fail(CodeUnitTaken, ErrUnitTaken.Message, err)
	case kind == partClaims && errors.Is(we.Err, store.ErrFull):
		return fail(CodeCeiling, "A pending ceiling is full.", err)
	case kind == partRow && errors.Is(we.Err, store.ErrExists), kind == partHold && errors.Is(we.Err, store.ErrExists):
		return fail(CodeInternal, "The reservation's reference is taken.", err)
	case kind == partAddition && cause != nil:
		return fail(CodeConflict, ErrConflict.Message, fmt.Errorf("%w: %w", cause, err))
	}
	return fail(CodeConflict, ErrConflict.Message, err)
}

// claimVersions reads the version of each claim r still holds.
func claimVersions(ctx context.Context, st store.Records, r Reservation) (map[string]int64, error) {
	out := map[string]int64{}
	for _, key := range r.Claims {
		if _, _, counted := counterClaim(key); counted {
			continue // released by its counter, which needs no version
		}
		rec, err := st.Get(ctx, kindClaim, key)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read claim: %w", err)
		}
		var c struct {
			Ref string `json:"ref"`
		}
		if json.Unmarshal(rec.Value, &c) == nil && c.Ref == r.Reference {
			out[key] = rec.Version
		}
	}
	return out, nil
}

// Flag asks staff to look at c.Read, saying why, with no transition and
// no audit line; the door's additions commit with it.
func (d *Desk) Flag(ctx context.Context, c Change, why string) (Reservation, error) {
	var p plan
	flagged := c.Read
	flagged.Attention = why
	p.add(partRow, nil, Save(flagged, c.At))
	stored := flagged
	stored.Version, stored.UpdatedAt = c.Read.Version+1, c.At
	p.also(stored, c.Also)
	if err := d.commit(ctx, p); err != nil {
		return c.Read, err
	}
	return stored, nil
}

// FlagOverdue flags a reservation still awaiting staff after its stay
// ended: it stops counting toward the pending ceilings (its claims go)
// and asks staff to look.
func (d *Desk) FlagOverdue(ctx context.Context, c Change, why string) (Reservation, error) {
	r := c.Read
	versions, err := claimVersions(ctx, d.st, r)
	if err != nil {
		return r, fail(CodeUnavailable, "The reservation's claims could not be read.", err)
	}
	flagged := r
	flagged.Attention, flagged.Claims = why, nil
	var p plan
	p.add(partRow, nil, Save(flagged, c.At))
	p.add(partClaims, nil, ReleaseClaims(r.Claims, versions, c.At)...)
	if err := d.commit(ctx, p); err != nil {
		return r, err
	}
	flagged.Version, flagged.UpdatedAt = r.Version+1, c.At
	return flagged, nil
}

// Repair gives back the units an ended reservation still holds (an
// interrupted release), recording it in the audit; units already back
// in the index leave only the record to fix.
func (d *Desk) Repair(ctx context.Context, c Change) (Reservation, error) {
	r := c.Read
	if !r.Held || r.State.HoldsUnits() {
		return r, nil
	}
	fixed := r
	fixed.Held = false
	fixed.Audit = append(slices.Clone(r.Audit), Entry{At: c.At, By: c.By, What: "released units of an ended reservation"})
	var p plan
	p.add(partRow, nil, Save(fixed, c.At))
	p.add(partRelease, nil, releaseWrite(r.Reference, c.At))
	err := d.commit(ctx, p)
	if e, ok := AsError(err); ok && e.Code == CodeConflict && errors.Is(err, store.ErrNotFound) {
		var row plan
		row.add(partRow, nil, Save(fixed, c.At))
		err = d.commit(ctx, row)
	}
	if err != nil {
		return r, err
	}
	fixed.Version, fixed.UpdatedAt = r.Version+1, c.At
	return fixed, nil
}

// ReleaseOrphan gives back a hold of the index that no reservation
// holds (the caller checked), such as one left by an interrupted write;
// a hold already gone is no error.
func (d *Desk) ReleaseOrphan(ctx context.Context, id string, at time.Time) error {
	var p plan
	p.add(partRelease, nil, releaseWrite(id, at))
	if err := d.commit(ctx, p); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// Rekey stores r, as read, under a new contact key: its door's keyed hash
// of the same contact after the secret it derives from rotated. It is no
// change of the reservation: no event, no audit entry, and its time
// stays. A *store.WriteError means r moved on since it was read.
func (d *Desk) Rekey(ctx context.Context, r Reservation, key string) error {
	r.ContactKey = key
	_, err := d.st.Apply(ctx, []store.Write{Save(r, r.UpdatedAt)})
	return err
}
