package reservation

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/store"
)

// The channel-neutral operations every door calls: booking a stay or a
// slot, staff decisions, reference minting, finding the location and
// unit a request names, and the hook that attributes a new reservation
// to the partner who sent its guest. A door checks its own rules and
// words its own answers; the core checks what a request refers to and
// asks the desk.

// Core runs the channel-neutral operations of one business on its desk.
type Core struct {
	desk      *Desk
	st        store.Store
	locations []business.Location
	portfolio business.Portfolio
	pricer    *pricing.Pricer
	inv       *inventory.Inventory
	clock     clock.Clock
	rand      io.Reader
	log       *slog.Logger
	// attribute records where a new reservation's guest came from; nil
	// attributes nothing.
	attribute Attributor
	// guards are the doors' refusals of staff decisions (GuardDecisions).
	guards []DecisionGuard
	// notify queues and sends the guest's mail about a staff decision;
	// nil mails nothing.
	notify DecisionMail
	// keys derives the pseudonymous keys of the form's limits and of a
	// guest's mailbox.
	keys Keyer
	// formMail words the mails of a saved form request, and send sends
	// them.
	formMail FormMail
	send     message.Sender
	// validCode reports a partner code of the form attribution takes.
	validCode func(string) bool
}

// Keyer derives a pseudonymous key of private text for one purpose
// ("mailbox", "form-email"), so the store groups and limits by it
// without keeping the text. Every door of one business keys alike.
type Keyer interface {
	Keyed(ctx context.Context, now time.Time, purpose, text string) (string, error)
}

// FormMail words the two mails of a saved form request: the guest's
// acknowledgement with the link of the page token opens, and the staff
// notice.
type FormMail interface {
	FormEmails(r Reservation, l business.Location, token string, now time.Time) (guest, staff message.Email)
}

// CoreOptions are a Core's collaborators. Rand is crypto/rand.Reader in
// production and a seeded reader in tests; the core draws from it in many
// goroutines and guards it (random.Locked).
type CoreOptions struct {
	Desk  *Desk
	Store store.Store
	// Portfolio is the business, its locations and limits.
	Portfolio business.Portfolio
	// Pricer prices the stays the guest site searches and requests.
	Pricer *pricing.Pricer
	Clock  clock.Clock
	Rand   io.Reader
	Logger *slog.Logger
	// Mail is the guest's mail about staff decisions.
	Mail DecisionMail
	// Sender sends the form's mails.
	Sender message.Sender
	// ValidCode reports a partner code of the form attribution takes
	// (referral.ValidCode); nil takes every code.
	ValidCode func(string) bool
}

// NewCore returns the core of one business on its desk.
func NewCore(o CoreOptions) *Core {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Core{desk: o.Desk, st: o.Store, locations: o.Portfolio.Locations, portfolio: o.Portfolio, pricer: o.Pricer,
		inv: inventory.New(o.Store), clock: o.Clock, send: o.Sender, validCode: o.ValidCode, rand: random.Locked(o.Rand), log: log, notify: o.Mail}
}

// Desk is the reservation desk the core writes through; a door
// registers its subscribers and end hooks on it at wiring.
func (c *Core) Desk() *Desk { return c.desk }

// Mark is where a guest came from, as a door heard it: the click id a
// tracked link appended (via), or a code the guest typed or a platform
// passed. Both empty is no mark.
type Mark struct {
	Click string
	Code  string
}

// Empty reports a mark that names nothing.
func (m Mark) Empty() bool { return m.Click == "" && m.Code == "" }

// Attributor records where a new reservation's guest came from, in the
// reservation's own transaction (referral.Ledger is one). Its addition
// is drawn again for each reference a reservation tries; a write of it
// that is refused because the attribution's records moved meanwhile
// wraps the addition's Refused error, and the core draws it again.
type Attributor interface {
	Addition(ctx context.Context, m Mark, ref string, total int64, door Source, at time.Time) (Addition, error)
}

// UseDecisionMail makes the core mail the guest about staff decisions
// through m. It is called once at wiring, when the door that words those
// mails is built on this core, before the first decision; without it
// decisions mail nothing.
func (c *Core) UseDecisionMail(m DecisionMail) { c.notify = m }

// UseKeys makes the core key mailboxes and the form's limits with k. It
// is called once at wiring, before the first request.
func (c *Core) UseKeys(k Keyer) { c.keys = k }

// UseFormMail makes the core word a saved form request's mails with m.
// It is called once at wiring, before the first request; without it the
// form mails nothing.
func (c *Core) UseFormMail(m FormMail) { c.formMail = m }

// UseAttribution makes the core attribute new reservations to the
// partner who sent their guest. It is called once at wiring, before the
// first request; without it nothing is attributed.
func (c *Core) UseAttribution(a Attributor) { c.attribute = a }

// DecisionGuard refuses a decision to on r that the door which made r
// knows cannot be taken now, such as confirming a booking still waiting
// for its payment, with an error whose message is safe to show staff;
// nil lets it be.
type DecisionGuard func(r Reservation, to State) error

// GuardDecisions adds g to the refusals every staff decision passes,
// whichever page or command takes it. It is called at wiring.
func (c *Core) GuardDecisions(g DecisionGuard) { c.guards = append(c.guards, g) }

// Refused is the first door's refusal of the decision to on r, or nil:
// Decide refuses with it, and pages offer only what it lets be.
func (c *Core) Refused(r Reservation, to State) error {
	for _, g := range c.guards {
		if err := g(r, to); err != nil {
			return err
		}
	}
	return nil
}

// Attribution is the addition that records where a new reservation's
// guest came from, in the reservation's transaction: none without a
// mark or an attributor, or when the mark attributes nothing. It is
// drawn again for each reference the reservation tries. A door that
// makes a booking of a hold (USP) asks for it with the booking's
// reference, total and source.
func (c *Core) Attribution(ctx context.Context, m Mark, n New) ([]Addition, error) {
	if c.attribute == nil {
		return nil, nil
	}
	add, err := c.attribute.Addition(ctx, m, n.Reference, n.Total, n.Source, n.At)
	if err != nil || add.Build == nil {
		return nil, err
	}
	return []Addition{add}, nil
}

// raced reports a create refused because an attribution among also
// moved under it: the attribution is drawn again.
func raced(err error, also []Addition) bool {
	for _, a := range also {
		if a.Refused != nil && errors.Is(err, a.Refused) {
			return true
		}
	}
	return false
}

// BookRequest is a reservation asked for through a door other than chat
// (a USP platform, the booking form, staff), whose own rules have already
// accepted it: the core only checks what it refers to and asks the desk.
type BookRequest struct {
	Location   string
	Unit       string
	Slots      []string // nights, or one timed start, as inventory lists them
	Guests     int
	Contact    Contact
	ContactKey string // the door's keyed hash of the contact, if any
	Source     Source
	Total      int64 // minor units
	Notes      string
	// Kind is a request that holds nothing until staff accept it (the
	// zero value), a booking that holds and awaits staff, a confirmed
	// booking, or a tentative hold that lapses at Expires.
	Kind    Kind
	Expires time.Time
	By      string // who asked, for the audit
	// Units is how many units each slot takes (places of a group
	// service, rooms of a type); 0 means one.
	Units int
	// Detail is what the door keeps of its own on the reservation.
	Detail json.RawMessage
	// Also are the door's own records, committed in the same transaction
	// as the reservation, such as its record of the answer it will send.
	Also []Addition
	// Referral is a partner's click id or code the door was given; a
	// live one records the attribution with the reservation.
	Referral Mark
}

// ErrBadBooking is the refusal of a BookRequest whose location, unit or
// slots are not ones the business sells: nothing was stored.
var ErrBadBooking = errors.New("reservation: the reservation asks for a location, unit or slots this business does not sell")

// maxAttempts bounds the references and attributions one operation
// draws, and the re-reads of a decision under contention.
const maxAttempts = 400

// Book stores a new reservation for a door through the desk, with its
// units held in the same transaction unless it is a request. It returns
// an *Error (ErrUnitTaken when the units are gone), and ErrBadBooking
// when the location, unit or slots are not ones the business sells.
func (c *Core) Book(ctx context.Context, req BookRequest) (Reservation, error) {
	now := c.clock.Now()
	l, ok := c.Location(req.Location)
	unit, sold := l.Unit(req.Unit)
	if !ok || !sold || len(req.Slots) == 0 || !slices.IsSorted(req.Slots) || req.Source == "" {
		return Reservation{}, ErrBadBooking
	}
	ref, err := c.NewReference(l)
	if err != nil {
		return Reservation{}, err
	}
	kind := req.Kind
	if kind == 0 {
		kind = KindRequest
	}
	n := New{
		Kind: kind, Reference: ref, Unit: UnitOf(l, unit), Slots: req.Slots, Units: req.Units,
		Guests: req.Guests, Contact: req.Contact, ContactKey: req.ContactKey, Source: req.Source,
		Total: req.Total, Notes: req.Notes, Expires: req.Expires, Detail: req.Detail, By: req.By, At: now, Also: req.Also,
	}
	if kind == KindHold {
		// A hold is not a booking: its conversion waits for the booking.
		return c.desk.Create(ctx, n)
	}
	also := n.Also
	var r Reservation
	var lost error
	err = store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		attributed, err := c.Attribution(ctx, req.Referral, n)
		if err != nil {
			r = Reservation{}
			return store.Final(err)
		}
		n.Also = append(slices.Clone(also), attributed...)
		r, err = c.desk.Create(ctx, n)
		if !raced(err, attributed) {
			return store.Final(err)
		}
		lost = err
		return errAttributionRaced
	})
	if errors.As(err, new(*store.LostRaces)) {
		return Reservation{}, &Error{Code: CodeConflict, Message: ErrConflict.Message, Err: lost}
	}
	return r, err
}

// errAttributionRaced asks Book to attribute and create again: the
// attribution's own records changed meanwhile.
var errAttributionRaced = fmt.Errorf("reservation: attribution raced: %w", store.ErrConflict)

// UnitOf is what the desk holds of unit u at location l.
func UnitOf(l business.Location, u business.Unit) Unit {
	return Unit{Location: l.Slug, Type: u.Type, Capacity: u.Count}
}

// NewReference draws a reservation reference at location l: its prefix,
// then 8 random bytes as 16 uppercase hex characters.
func (c *Core) NewReference(l business.Location) (string, error) {
	b := make([]byte, 8)
	if _, err := io.ReadFull(c.rand, b); err != nil {
		return l.Prefix + "-", err
	}
	return l.Prefix + "-" + strings.ToUpper(hex.EncodeToString(b)), nil
}

// Find reads the reservation with reference ref; ErrNoReservation when
// none has it.
func (c *Core) Find(ctx context.Context, ref string) (Reservation, error) {
	r, err := Get(ctx, c.st, ref)
	if errors.Is(err, store.ErrNotFound) {
		return r, ErrNoReservation
	}
	return r, err
}

// Location finds the location with slug.
func (c *Core) Location(slug string) (business.Location, bool) {
	for _, l := range c.locations {
		if l.Slug == slug {
			return l, true
		}
	}
	return business.Location{}, false
}

// LocationOf finds the location an identifier or reference starts with.
func (c *Core) LocationOf(id string) (business.Location, bool) {
	for _, l := range c.locations {
		if strings.HasPrefix(id, l.Prefix+"_") || strings.HasPrefix(id, l.Prefix+"-") {
			return l, true
		}
	}
	return business.Location{}, false
}

// today is the date at location l at now.
func today(l business.Location, now time.Time) civil.Date { return civil.Of(now, l.Zone()) }
