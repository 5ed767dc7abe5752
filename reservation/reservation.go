// Package reservation is the core beneath every door: the
// channel-neutral reservation that every door (chat, the booking form,
// USP platforms, staff) creates and moves, its one state machine, how a
// reservation is stored in the typed rows of store.Reservations, and the
// operations every door calls. It lives apart from direct booking so that
// every door builds on it without importing another door's rules; direct
// booking, like the other doors, only adds its own details.
//
// The Desk (desk.go) is the only code that writes reservations, holds
// and releases; every door calls its operations. Every transition it
// commits also stores a door-neutral event in its outbox (outbox.go), in
// the same transaction; a relay numbers the stored events in one total
// order and hands them to named consumers, each with its own cursor.
// The Core (core.go, decide.go) books a stay or a slot from a typed
// request, applies staff decisions, mints references, finds the location
// and unit a request names and asks its Attributor (referral) where a
// guest came from. It also takes the booking form's request
// (formrequest.go), answers the guest site's room search (roomsearch.go)
// and availability calendar (availability.go), and keeps the records
// that let a guest token open its page (guestpage.go). Beside them are
// the typed requests and answers the doors share: the booking form's
// (form.go), the availability search's (rooms.go), the guest's own
// page's (guest.go), the settings owners edit (settings.go), contact
// parsing (contact.go) and what the staff screen reads of a door's
// records (staffread.go).
//
// It imports business, pricing, inventory, quota, message, store and
// internal helpers, and nothing of any door: doors subscribe to its events in the transaction of each
// transition, hook its terminal transitions, consume its outbox, or
// implement its hooks (Attributor, DecisionMail, FormMail, Keyer).
package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/store"
)

// State is where a reservation is in its life.
type State string

// The states of every reservation, whatever door it came through.
const (
	Requested State = "requested" // asked for, holds nothing (the booking form)
	// OnHold is a tentative hold with an expiry: its units are held, it
	// awaits no one, and it ends by expiry, by its owner's release, or by
	// its owner converting it into a booking.
	OnHold    State = "hold"
	Reserved  State = "reserved"  // units held, awaiting a staff decision
	Confirmed State = "confirmed" // staff confirmed it; units held
	Declined  State = "declined"  // staff refused it; nothing held
	Cancelled State = "cancelled" // cancelled by the guest or staff; nothing held
	Completed State = "completed" // the stay or appointment took place
	Moved     State = "moved"     // replaced by another reservation; nothing held here
	NoShow    State = "no-show"   // the guest never came; nothing held
)

// next lists every allowed transition. A state without an entry is
// terminal.
var next = map[State][]State{
	Requested: {Reserved, Confirmed, Declined, Cancelled},
	OnHold:    {Reserved, Confirmed, Cancelled},
	Reserved:  {Confirmed, Declined, Cancelled, Completed, Moved, Requested},
	Confirmed: {Cancelled, Completed, Moved, NoShow},
}

// States lists every state, in the order of their life.
func States() []State {
	return []State{Requested, OnHold, Reserved, Confirmed, Declined, Cancelled, Completed, Moved, NoShow}
}

// Valid reports whether s is a known state.
func (s State) Valid() bool {
	for _, k := range States() {
		if s == k {
			return true
		}
	}
	return false
}

// CanMove reports whether a reservation may go from s to to.
func (s State) CanMove(to State) bool {
	for _, n := range next[s] {
		if n == to {
			return true
		}
	}
	return false
}

// Terminal reports whether no transition leaves s.
func (s State) Terminal() bool { return len(next[s]) == 0 }

// HoldsUnits reports whether a reservation in s keeps units held in the
// availability index.
func (s State) HoldsUnits() bool { return s == OnHold || s == Reserved || s == Confirmed }

// Pending reports whether a reservation in s awaits a staff decision and
// so counts toward pending ceilings. A hold awaits no one.
func (s State) Pending() bool { return s == Reserved }

// TransitionError refuses a move the state machine does not allow.
type TransitionError struct {
	Reference string
	From, To  State
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("reservation %s: cannot move from %s to %s", e.Reference, e.From, e.To)
}

// ErrIllegal is what every *TransitionError matches with errors.Is.
var ErrIllegal = errors.New("reservation: illegal transition")

func (e *TransitionError) Is(target error) bool { return target == ErrIllegal }

// Source names the door a reservation came through: "chat", "form",
// "staff", or "usp:" and the platform.
type Source string

// The sources of the doors that exist.
const (
	SourceChat  Source = "chat"
	SourceForm  Source = "form"
	SourceStaff Source = "staff"
)

// USP is the source of a USP platform's booking.
func USP(platform string) Source { return Source("usp:" + platform) }

// Contact is how to reach the guest. It is private: it never leaves the
// business's own screens and mail.
type Contact struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// Entry is one line of a reservation's audit: who did what, when.
type Entry struct {
	At   time.Time `json:"at"`
	By   string    `json:"by"`   // "guest", "sweep", or a staff name
	What string    `json:"what"` // the transition, such as "reserved→confirmed"
	Note string    `json:"note,omitempty"`
}

// Reservation is one reservation of one unit for one or more slots: the
// nights of a stay, or one timed start.
type Reservation struct {
	Reference  string    `json:"ref"`
	Location   string    `json:"location"`
	Unit       string    `json:"unit"`
	Slots      []string  `json:"slots"` // in order; nights or one timed start
	Guests     int       `json:"guests"`
	Contact    Contact   `json:"contact"`
	ContactKey string    `json:"contact_key"` // keyed hash of the normalized contact
	Source     Source    `json:"source"`
	State      State     `json:"state"`
	Held       bool      `json:"held"`  // units held under hold ID Reference
	Total      int64     `json:"total"` // minor units
	Notes      string    `json:"notes,omitempty"`
	Token      string    `json:"token,omitempty"` // staff action token
	CreatedAt  time.Time `json:"created_at"`
	// HoldExpires is when a hold (state OnHold) lapses.
	HoldExpires time.Time `json:"hold_expires,omitzero"`
	// Attention says why staff must look at it; empty when nothing.
	Attention string `json:"attention,omitempty"`
	// Claims are the keys of the pending-ceiling claims it holds while
	// it awaits staff; they go when it stops being pending.
	Claims []string `json:"claims,omitempty"`
	Audit  []Entry  `json:"audit,omitempty"`
	// Detail is what one door keeps of its own, such as chat notices.
	Detail json.RawMessage `json:"detail,omitempty"`

	Version   int64     `json:"-"`
	UpdatedAt time.Time `json:"-"`
}

// FirstSlot and LastSlot are the first and last slots held.
func (r Reservation) FirstSlot() string { return first(r.Slots) }

// LastSlot is the last slot held.
func (r Reservation) LastSlot() string {
	if len(r.Slots) == 0 {
		return ""
	}
	return r.Slots[len(r.Slots)-1]
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Stay is the arrival and departure dates of a reservation of nights.
func (r Reservation) Stay() (checkin, checkout civil.Date, err error) {
	if checkin, err = civil.Parse(r.FirstSlot()); err != nil {
		return checkin, checkout, fmt.Errorf("reservation %s is not of nights: %w", r.Reference, err)
	}
	last, err := civil.Parse(r.LastSlot())
	if err != nil {
		return checkin, checkout, fmt.Errorf("reservation %s is not of nights: %w", r.Reference, err)
	}
	return checkin, last.AddDays(1), nil
}

// Row is the reservation as the store keeps it.
func (r Reservation) Row(now time.Time) store.Reservation {
	b, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("reservation: encode: %v", err)) // our own type always encodes
	}
	return store.Reservation{
		Reference: r.Reference, Location: r.Location, Unit: r.Unit,
		FirstSlot: r.FirstSlot(), LastSlot: r.LastSlot(), State: string(r.State), Source: string(r.Source),
		ContactKey: r.ContactKey, Value: b, Version: r.Version, UpdatedAt: now, Terms: r.terms(),
	}
}

// FromRow decodes a stored reservation.
func FromRow(row store.Reservation) (Reservation, error) {
	var r Reservation
	if err := json.Unmarshal(row.Value, &r); err != nil {
		return Reservation{}, fmt.Errorf("decode reservation %s: %w", row.Reference, err)
	}
	r.Version, r.UpdatedAt = row.Version, row.UpdatedAt
	return r, nil
}

// Create is the write that stores a new reservation; r.Held must match
// the hold written with it. Doors create through the Desk; tests use it
// to set up rows.
func Create(r Reservation, now time.Time) store.Write {
	row := r.Row(now)
	return store.Write{Op: store.OpCreateReservation, Reservation: &row}
}

// Save is the write that stores changed r at the version it was read.
// Doors change reservations through the Desk; tests use it to set up
// rows.
func Save(r Reservation, now time.Time) store.Write {
	row := r.Row(now)
	return store.Write{Op: store.OpSwapReservation, Reservation: &row}
}

// Get reads the reservation with this reference: store.ErrNotFound when
// there is none.
func Get(ctx context.Context, st store.Reservations, ref string) (Reservation, error) {
	row, err := st.GetReservation(ctx, ref)
	if err != nil {
		return Reservation{}, err
	}
	return FromRow(row)
}

// List reads one page of reservations matching f.
func List(ctx context.Context, st store.Reservations, f store.ReservationFilter) ([]Reservation, error) {
	return fromRows(st.ListReservations(ctx, f))
}

// fromRows decodes the rows a read returned, or passes its error on.
func fromRows(rows []store.Reservation, err error) ([]Reservation, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Reservation, 0, len(rows))
	for _, row := range rows {
		r, err := FromRow(row)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Platform returns the USP platform of a "usp:<platform>" source.
func (s Source) Platform() (string, bool) {
	p, ok := strings.CutPrefix(string(s), "usp:")
	return p, ok && p != ""
}
