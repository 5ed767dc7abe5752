// Package location answers the read questions one property owns: what is
// free, what a stay costs and what the property is. The hub relays public
// calls here; the booking tools will hold units through the same
// inventory.
//
// It imports business, pricing, inventory and the internal civil and clock
// helpers only.
package location

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/money"
	"frontdesk/inventory"
	"frontdesk/pricing"
)

// Service answers for every location of one business in this process.
type Service struct {
	cfg    business.Portfolio
	pricer *pricing.Pricer
	inv    *inventory.Inventory
	clock  clock.Clock
	bySlug map[string]int // index in cfg.Locations
}

// New returns a Service.
func New(cfg business.Portfolio, pricer *pricing.Pricer, inv *inventory.Inventory, c clock.Clock) *Service {
	bySlug := make(map[string]int, len(cfg.Locations))
	for i, l := range cfg.Locations {
		bySlug[l.Slug] = i
	}
	return &Service{cfg: cfg, pricer: pricer, inv: inv, clock: c, bySlug: bySlug}
}

// StoreRequestLimit bounds one availability read, as every location store
// request is bounded ("Location requests at most 4 seconds"): a hung store
// answers a search with an outage in seconds, not never.
const StoreRequestLimit = 4 * time.Second

// freeNights is the availability read under StoreRequestLimit.
func (s *Service) freeNights(ctx context.Context, l business.Location, in civil.Date, nights int) ([]inventory.Free, error) {
	ctx, cancel := context.WithTimeout(ctx, StoreRequestLimit)
	defer cancel()
	return s.inv.FreeNights(ctx, l, in, nights)
}

// ErrUnknown means no configured location has that slug.
var ErrUnknown = errors.New("location: unknown slug")

// Location returns the configured location with the slug.
func (s *Service) Location(slug string) (business.Location, error) {
	if i, ok := s.bySlug[slug]; ok {
		return s.cfg.Locations[i], nil
	}
	return business.Location{}, ErrUnknown
}

func (s *Service) today(l business.Location) civil.Date { return civil.Of(s.clock.Now(), l.Zone()) }

// Rooms is what find_rooms answers for one location.
type Rooms struct {
	Property string `json:"property" jsonschema:"the property's slug"`
	Name     string `json:"name"`
	Phone    string `json:"phone"`
	Rooms    []Room `json:"rooms"`
}

// Room is one unit type for the asked dates.
type Room struct {
	RoomType string       `json:"roomtype"`
	Free     int          `json:"free" jsonschema:"units of this type free on every night of the stay"`
	Bookable bool         `json:"bookable" jsonschema:"free and priced for these dates"`
	Total    *json.Number `json:"total,omitempty" jsonschema:"price of the whole stay including tax"`
	Currency string       `json:"currency,omitempty"`
	Note     string       `json:"note,omitempty" jsonschema:"why the type cannot be quoted for these dates"`
	FormURL  string       `json:"booking_form"`
}

// FindRooms lists every night unit type of a location with what is free
// for the stay and its price where it can be quoted. Dates that cannot be
// quoted at all return a *pricing.Refusal.
func (s *Service) FindRooms(ctx context.Context, slug, checkin, checkout string) (Rooms, error) {
	l, err := s.Location(slug)
	if err != nil {
		return Rooms{}, err
	}
	today := s.today(l)
	in, _, nights, err := s.pricer.Dates(l, checkin, checkout, today)
	if err != nil {
		return Rooms{}, err
	}
	free, err := s.freeNights(ctx, l, in, nights)
	if err != nil {
		return Rooms{}, fmt.Errorf("find rooms at %s: %w", slug, err)
	}
	out := Rooms{Property: l.Slug, Name: l.Name, Phone: l.Phone, Rooms: []Room{}}
	for _, f := range free {
		r := Room{RoomType: f.Unit.Type, Free: f.Free, FormURL: s.pricer.FormURL(l, f.Unit.Type, checkin, checkout)}
		q, err := s.pricer.RoomQuote(pricing.Stay{Location: l, RoomType: f.Unit.Type, Checkin: checkin, Checkout: checkout}, today)
		var refusal *pricing.Refusal
		switch {
		case errors.As(err, &refusal):
			r.Note = noteFor(refusal, f.Unit)
		case err != nil:
			return Rooms{}, err
		default:
			total := s.pricer.Amount(q.Total)
			r.Total, r.Currency = &total, q.Currency
			r.Bookable = f.Free > 0
		}
		if f.Free == 0 && r.Note == "" {
			r.Note = "none free for every night of the stay"
		}
		out.Rooms = append(out.Rooms, r)
	}
	return out, nil
}

func noteFor(r *pricing.Refusal, u business.Unit) string {
	switch r.Kind {
	case pricing.RefusalMinimumStay:
		return fmt.Sprintf("booked for %d nights or more", u.MinNights)
	case pricing.RefusalWeeklyOnly:
		return "sold by the week only"
	case pricing.RefusalFees:
		return "has fees: priced and booked on the booking form"
	}
	return string(r.Kind)
}

// Quote prices a stay at a location for quote_stay, or returns a
// *pricing.Refusal; a room with fees is one (pricing's ChatQuote).
func (s *Service) Quote(ctx context.Context, slug, roomType, checkin, checkout string) (pricing.Quote, error) {
	l, err := s.Location(slug)
	if err != nil {
		return pricing.Quote{}, err
	}
	return s.pricer.ChatQuote(pricing.Stay{Location: l, RoomType: roomType, Checkin: checkin, Checkout: checkout}, s.today(l))
}

// Info is what property_info answers.
type Info struct {
	Property     string         `json:"property"`
	Name         string         `json:"name"`
	Domain       string         `json:"domain,omitempty"`
	Phone        string         `json:"phone"`
	TimeZone     string         `json:"time_zone"`
	CheckinHour  string         `json:"checkin_hour"`
	Currency     string         `json:"currency"`
	TaxLabel     string         `json:"tax_label,omitempty"`
	MaxGuests    int            `json:"max_guests"`
	MaxStay      int            `json:"max_stay_nights"`
	UnitTypes    []UnitInfo     `json:"unit_types"`
	Services     []TimedService `json:"timed_services"`
	PolicyURL    string         `json:"policy_url"`
	PrivacyURL   string         `json:"privacy_url"`
	BookingForm  string         `json:"booking_form"`
	OfficeHours  []string       `json:"office_hours" jsonschema:"local office hours by weekday, Monday first"`
	PublicServer string         `json:"mcp_url"`
}

// UnitInfo describes one room type.
type UnitInfo struct {
	RoomType    string       `json:"roomtype"`
	Count       int          `json:"count"`
	MinNights   int          `json:"min_nights"`
	NightlyRate *json.Number `json:"nightly_rate,omitempty"`
	WeeklyRate  *json.Number `json:"weekly_rate,omitempty"`
	WeeklyOnly  bool         `json:"weekly_only"`
}

// TimedService describes one service sold by the slot.
type TimedService struct {
	Type     string      `json:"type"`
	Name     string      `json:"name"`
	Minutes  int         `json:"duration_minutes"`
	Opens    string      `json:"opens"`
	Closes   string      `json:"closes"`
	Capacity int         `json:"capacity"`
	Price    json.Number `json:"price"`
}

// Info describes a location.
func (s *Service) Info(slug string) (Info, error) {
	l, err := s.Location(slug)
	if err != nil {
		return Info{}, err
	}
	b := s.cfg.Business
	info := Info{
		Property: l.Slug, Name: l.Name, Domain: l.Domain, Phone: l.Phone,
		TimeZone: l.TimeZone, CheckinHour: l.CheckinHour, Currency: b.Currency, TaxLabel: b.TaxLabel,
		MaxGuests: s.cfg.Limits.MaxGuests, MaxStay: s.cfg.Limits.MaxStayNights,
		UnitTypes: []UnitInfo{}, Services: []TimedService{},
		PolicyURL: s.pricer.URL(b.PolicyURL), PrivacyURL: s.pricer.URL(b.PrivacyURL),
		BookingForm:  s.pricer.BareFormURL(l),
		PublicServer: s.pricer.URL("/locations/" + l.Slug + "/mcp"),
	}
	info.OfficeHours = OfficeHoursText(b.OfficeHours)
	for _, u := range l.Units {
		switch u.Kind {
		case business.KindNight:
			ui := UnitInfo{RoomType: u.Type, Count: u.Count, MinNights: u.MinNights, WeeklyOnly: u.WeeklyOnly()}
			ui.NightlyRate = s.rate(u.NightlyRate)
			ui.WeeklyRate = s.rate(u.WeeklyRate)
			info.UnitTypes = append(info.UnitTypes, ui)
		case business.KindTimed:
			info.Services = append(info.Services, TimedService{
				Type: u.Type, Name: u.DisplayName(), Minutes: u.DurationMinutes,
				Opens: u.Opens, Closes: u.Closes, Capacity: u.Count, Price: *s.rate(u.Price),
			})
		}
	}
	return info, nil
}

// OfficeHoursText words a week's office hours as Info gives them, a line
// a weekday, Monday first.
func OfficeHoursText(o business.OfficeHours) []string {
	return []string{"Mon " + o.Mon, "Tue " + o.Tue, "Wed " + o.Wed, "Thu " + o.Thu, "Fri " + o.Fri, "Sat " + o.Sat, "Sun " + o.Sun}
}

func (s *Service) rate(r string) *json.Number {
	if r == "" {
		return nil
	}
	n := json.Number(r)
	if minor, err := money.Parse(r, s.cfg.Business.Currency); err == nil {
		n = s.pricer.Amount(minor)
	}
	return &n
}
