// Package office is what the staff screen and the staff commands read
// and change through the core: one reservation as staff see it, the
// dashboard, the settings owners edit, the chat ceilings that are full
// now, and the reservations staff make for guests on the phone or at
// the desk. It assembles its views from the reservation core and from
// what direct booking records; the records stay theirs. At a split
// deployment's hub it reads and decides at each location instead,
// through Remote (remote.go), and names a location it could not read
// (gather.go).
//
// It is a domain package of the staff screen's door: it imports
// reservation, staff, config, store and internal helpers, never an
// adapter nor another door. What it reads of direct booking comes
// through Direct, which cmd/frontdesk wires.
package office

import (
	"context"
	"log/slog"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Direct is what the staff screen reads and changes of direct booking,
// on the core's types: its configuration and store, a reservation's chat
// details and connected span, its queued notices, a chat cancellation
// under way, the send times its ceilings admitted and their scopes, and
// the settings owners edit. Its Core is the reservation core it books and
// decides through.
type Direct interface {
	Portfolio() business.Portfolio
	Store() store.Store
	Reservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error)
	Booked(ctx context.Context, ref string) (reservation.Reservation, reservation.ChatFacts, error)
	Span(ctx context.Context, r reservation.Reservation) (int, error)
	Notices(ctx context.Context, ref string, now time.Time) ([]reservation.NoticeView, error)
	CancelChecks(ctx context.Context, ref string, now time.Time) ([]string, error)
	AdmissionTimes(ctx context.Context, key string, now time.Time, window time.Duration) ([]time.Time, error)
	GroupBookingKey() string
	CancelGroupKey() string
	LocationBookingKey(slug string) string
	PendingScope(slug string) string
	Settings(ctx context.Context) (reservation.Settings, error)
	SaveSettings(ctx context.Context, by, scope string, edit func(*reservation.EditedSettings, reservation.Settings) []string) error
	SettingsAudit(ctx context.Context, after string, limit int) ([]reservation.SettingsChange, string, error)
}

// Office serves the staff screen for every location of one business.
type Office struct {
	bookings Direct
	core     *reservation.Core
	cfg      business.Portfolio
	st       store.Store
	clock    clock.Clock
	pricer   *pricing.Pricer
	log      *slog.Logger
	// remote, at a split hub, reads and decides at the locations.
	remote Remote
}

// Options are an Office's collaborators.
type Options struct {
	Bookings Direct
	// Core is the reservation core staff book and decide through.
	Core  *reservation.Core
	Clock clock.Clock
	// Pricer prices the stays staff book.
	Pricer *pricing.Pricer
	Logger *slog.Logger
}

// New returns an Office on the booking service's configuration and
// store.
func New(o Options) *Office {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Office{bookings: o.Bookings, core: o.Core, cfg: o.Bookings.Portfolio(), st: o.Bookings.Store(), clock: o.Clock,
		pricer: o.Pricer, log: log.With("component", "office")}
}

// location finds the configured location slug names.
func (s *Office) location(slug string) (business.Location, bool) {
	for _, l := range s.cfg.Locations {
		if l.Slug == slug {
			return l, true
		}
	}
	return business.Location{}, false
}

// Decide applies a staff decision through direct booking, which mails
// the guest.
func (s *Office) Decide(ctx context.Context, d reservation.Decision) (reservation.Reservation, bool, error) {
	if s.remote != nil {
		l, u, err := s.owner(ctx, d.Reference)
		if err != nil {
			return reservation.Reservation{}, false, err
		}
		return s.remote.Decide(ctx, l.Slug, u, d)
	}
	return s.core.Decide(ctx, d)
}

// Refused is the doors' refusal of the decision to on r, or nil.
func (s *Office) Refused(r reservation.Reservation, to reservation.State) error {
	return s.core.Refused(r, to)
}

// Reservations lists reservations matching f; at a split hub, at each
// location the signed-in login may see, naming in a *NotRead those not
// read.
func (s *Office) Reservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error) {
	if s.remote != nil {
		return s.remoteReservations(ctx, f)
	}
	return s.bookings.Reservations(ctx, f)
}

// Search finds up to limit reservations by what staff typed (a
// reference or its start, a guest's name, email or phone), at location
// ("" for every one), nearest to today first: stays to come and under way
// by arrival, then past ones, latest first.
func (s *Office) Search(ctx context.Context, q, location string, limit int) ([]reservation.Reservation, error) {
	if s.remote != nil {
		return s.remoteSearch(ctx, q, location, limit)
	}
	today := s.clock.Now().UTC().Format(time.DateOnly)
	return reservation.Search(ctx, s.st, q, location, today, limit)
}

// Settings returns the settings in force.
func (s *Office) Settings(ctx context.Context) (reservation.Settings, error) {
	return s.bookings.Settings(ctx)
}

// SettingsAudit returns up to limit lines of the settings audit, newest
// first, after the line whose key is after.
func (s *Office) SettingsAudit(ctx context.Context, after string, limit int) ([]reservation.SettingsChange, string, error) {
	return s.bookings.SettingsAudit(ctx, after, limit)
}
