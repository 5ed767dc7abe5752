// Package direct is direct booking for guests' assistants: intents
// proved by a six-digit email code, reservations held through the
// availability index, lookups, two-step cancellation, limits and mail
// budgets, and the notices of direct-booking.md. Its operations take
// typed requests (StartRequest, ConfirmRequest, LookupRequest,
// CancelRequest) and refuse with one error type, Error: a code and the
// route the answer offers, which each door words (the chat door,
// direct/chatdoor, with the refusal catalogue of §12).
//
// It is a domain package and one door among the others: it imports
// config, store, inventory, pricing, message, the reservation core and
// internal helpers, never an adapter nor another door.
package direct

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Service runs the four booking operations for every location of one
// business in this process.
type Service struct {
	cfg Config
	st  store.Store // every request capped at deadlines.Location
	// locker is the engine's own, unwrapped: a sweep holds it for a
	// whole pass, longer than one store request may take.
	locker store.Locker
	// scrubber, when the engine has one, makes purged guest data
	// unreadable in its files after a sweep removed some.
	scrubber store.Scrubber
	inv      *inventory.Inventory
	// desk writes every reservation, hold and release.
	desk *reservation.Desk
	// core books, decides, mints references and attributes referrals for
	// every door, this one included.
	core   *reservation.Core
	pricer *pricing.Pricer
	clock  clock.Clock
	rand   io.Reader
	mail   message.Sender
	log    *slog.Logger
	// deadlines bound every operation and the calls it awaits.
	deadlines Deadlines
	// resolveProperty finds the location a property argument names, the
	// same way the read tools do.
	resolveProperty func(string) (business.Location, bool)

	// tries queues the lookups of each reference for their try claims.
	tries tryLines

	// secrets keeps the versions of the operational secret last read;
	// rekeySteps bound the re-key pass one sweep runs.
	secrets    secretCache
	rekeySteps struct{ pages, rows int }
	getenv     func(string) string

	// after tracks the writes that run once an answer is given.
	after laterWrites

	// settings are the settings in force last built, with the version of
	// the edited settings record they were built from.
	settings atomic.Pointer[versionedSettings]

	// control is the hub's control data in a split deployment, nil in one
	// process; others are the group's other locations (UseControl).
	control Control
	others  []string
}

// Options are a Service's collaborators. Rand is crypto/rand.Reader in
// production and a seeded reader in tests.
type Options struct {
	Config Config
	Store  store.Store
	Pricer *pricing.Pricer
	Clock  clock.Clock
	Rand   io.Reader
	Mail   message.Sender
	Logger *slog.Logger
	// Resolve finds the location a property argument names.
	Resolve func(property string) (business.Location, bool)
	// Deadlines shorten the worksheet's time limits; zero fields keep them.
	Deadlines Deadlines
	// Core is the reservation core of the business, built at wiring on a
	// store capped as LimitedStore caps it; the service mails the guest
	// about its staff decisions. Nil builds one of its own on Store.
	Core *reservation.Core
	// Getenv reads the environment, where the secret's versions may be
	// held (EnvSecrets); nil reads none.
	Getenv func(string) string
}

// New returns a Service.
func New(o Options) *Service {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	locker, _ := o.Store.(store.Locker)
	scrubber, _ := o.Store.(store.Scrubber)
	s := &Service{
		cfg: o.Config, locker: locker, scrubber: scrubber, pricer: o.Pricer,
		clock: o.Clock, rand: random.Locked(o.Rand), mail: o.Mail, log: log.With("component", "booking"),
		resolveProperty: o.Resolve, deadlines: o.Deadlines.withDefaults(), getenv: o.Getenv,
	}
	s.rekeySteps.pages, s.rekeySteps.rows = rekeyPages, rekeyPage
	s.st = limitedStore{Store: o.Store, d: &s.deadlines}
	s.inv = inventory.New(s.st)
	s.core = o.Core
	if s.core == nil {
		s.core = reservation.NewCore(reservation.CoreOptions{Desk: reservation.NewDesk(s.st), Store: s.st, Portfolio: o.Config.Portfolio, Pricer: o.Pricer,
			Clock: o.Clock, Rand: s.rand, Logger: s.log, Sender: o.Mail, ValidCode: referral.ValidCode})
		s.core.UseKeys(s)
	}
	s.core.UseDecisionMail(s)
	s.core.UseFormMail(s)
	s.desk = s.core.Desk()
	return s
}

// LimitedStore is st with every request capped at the location limit of
// the default deadlines, as the service caps its own: the store a core
// built at wiring for this service writes through.
func LimitedStore(st store.Store) store.Store {
	return limitedStore{Store: st, d: new(Deadlines{}.withDefaults())}
}

// Desk is the reservation desk every door of this business writes
// through; a door registers its subscribers and end hooks on it at
// wiring.
func (s *Service) Desk() *reservation.Desk { return s.desk }

// Core is the reservation core on the same desk and store: the
// channel-neutral operations the other doors call.
func (s *Service) Core() *reservation.Core { return s.core }

func (s *Service) randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// newCode draws a uniform six-digit code.
func (s *Service) newCode() (string, error) {
	const limit = 4294000000 // largest multiple of 1e6 below 2^32
	var b [4]byte
	for {
		if _, err := io.ReadFull(s.rand, b[:]); err != nil {
			return "", err
		}
		if n := binary.BigEndian.Uint32(b[:]); n < limit {
			return fmt.Sprintf("%06d", n%1000000), nil
		}
	}
}

// digest is the salted code digest stored instead of the code.
func digest(salt, id, code string) string {
	h := sha256.Sum256([]byte(salt + "\x00" + id + "\x00" + code))
	return hex.EncodeToString(h[:])
}

// sameDigest compares equal-length digests in constant time.
func sameDigest(a, b string) bool { return len(a) == len(b) && hmac.Equal([]byte(a), []byte(b)) }

// Identifier shapes: 24 random bytes as 48 hex characters after the
// location prefix for intents and cancellations, 8 bytes as 16 uppercase
// hex characters for references.
func (s *Service) newBookingID(l business.Location) (string, error) {
	h, err := s.randomHex(24)
	return l.Prefix + "_b_" + h, err
}

func (s *Service) newCancelID(l business.Location) (string, error) {
	h, err := s.randomHex(24)
	return l.Prefix + "_c_" + h, err
}

// PhoneFor is the human route of a refusal to a call that names a
// booking_id, cancel_id or reservation number: the phone of the location
// the first identifying prefix among ids names, whatever else is wrong
// with the call, and the business phone when none does (§12).
func (s *Service) PhoneFor(ids ...string) string {
	for _, id := range ids {
		if l, known := s.locationByPrefix(strings.ToUpper(strings.TrimSpace(id))); known {
			return l.Phone
		}
	}
	return s.cfg.Business.Phone
}

// LocationOf finds the location an identifier or reference starts with.
func (s *Service) LocationOf(id string) (business.Location, bool) { return s.locationByPrefix(id) }

// Config is the configuration the service runs with.
func (s *Service) Config() Config { return s.cfg }

// Portfolio is the business, its locations and limits the service sells.
func (s *Service) Portfolio() business.Portfolio { return s.cfg.Portfolio }

// locationByPrefix finds the location an identifier or reference starts
// with.
func (s *Service) locationByPrefix(id string) (business.Location, bool) { return s.core.LocationOf(id) }

func (s *Service) location(slug string) (business.Location, bool) { return s.core.Location(slug) }

// localTime words an instant in the location's wall clock, as guests read
// it: "10:15 AM MST on Monday, November 30, 2026".
func localTime(t time.Time, l business.Location) string {
	return t.In(l.Zone()).Format("3:04 PM MST on Monday, January 2, 2006")
}

// checkinInstant is the local check-in time on the arrival date.
func checkinInstant(l business.Location, checkin civil.Date) time.Time {
	m := business.Minutes(l.CheckinHour)
	return checkin.At(m/60, m%60, l.Zone())
}

func (s *Service) today(l business.Location, now time.Time) civil.Date {
	return civil.Of(now, l.Zone())
}
