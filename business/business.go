// Package business is the business model: the business, its locations
// and the units they sell (rooms by the night, timed services by the
// slot), office hours and closures. config decodes the owner's file into
// these types and checks them; every other package reads them.
//
// It is a domain package: it imports only the standard library and the
// money helper (policies read their amounts in minor units).
package business

import (
	"strings"
	"time"
)

// Business holds what every location shares unless it overrides it.
type Business struct {
	Name        string `toml:"name"`
	Phone       string `toml:"phone"`
	TimeZone    string `toml:"time_zone"`
	CheckinHour string `toml:"checkin_hour"` // "15:00", local time
	Currency    string `toml:"currency"`     // ISO 4217, such as "USD"
	// PhoneCountryCode is the calling code added to a guest's 10-digit
	// phone number typed without one, such as "1" or "44".
	PhoneCountryCode string      `toml:"phone_country_code"`
	TaxPercent       float64     `toml:"tax_percent"` // at most two decimals, such as 10.75
	TaxLabel         string      `toml:"tax_label"`   // wording used in quotes, such as "10.75% lodging tax"
	StayPolicyReason string      `toml:"stay_policy_reason"`
	PrivacyURL       string      `toml:"privacy_url"`
	PolicyURL        string      `toml:"policy_url"`
	LocationsURL     string      `toml:"locations_url"`
	MinAge           int         `toml:"min_age"`
	ConfirmHours     int         `toml:"confirm_hours"`
	OfficeHours      OfficeHours `toml:"office_hours"`
	// Closures are dated days off for every location, on top of the
	// weekly office hours; see OfficeOpen.
	Closures []Closure `toml:"closures"`
	// Logo, AccentColor and Locale dress the guest site: Logo is an
	// https:// address or a path on this server (empty: the name alone),
	// AccentColor a "#rrggbb" colour dark enough for white text on it
	// (empty: the site's own blue), Locale how dates are written as text
	// (LocaleUS, the default, or LocaleGB).
	Logo        string `toml:"logo"`
	AccentColor string `toml:"accent_color"`
	Locale      string `toml:"locale"`
}

// Locales the guest site writes dates in: "Mon, Mar 14, 2027" or
// "Mon 14 Mar 2027".
const (
	LocaleUS = "en-US"
	LocaleGB = "en-GB"
)

// OfficeHours gives each weekday as "closed" or one or more
// "HH:MM-HH:MM" ranges separated by commas ("08:00-12:00, 13:00-17:00").
type OfficeHours struct {
	Mon string `toml:"mon"`
	Tue string `toml:"tue"`
	Wed string `toml:"wed"`
	Thu string `toml:"thu"`
	Fri string `toml:"fri"`
	Sat string `toml:"sat"`
	Sun string `toml:"sun"`
}

// Location is one property with its own public server, phone and units.
type Location struct {
	Slug        string `toml:"slug"`
	Name        string `toml:"name"`
	Domain      string `toml:"domain"`
	Phone       string `toml:"phone"`
	TimeZone    string `toml:"time_zone"`    // empty: the business zone
	CheckinHour string `toml:"checkin_hour"` // empty: the business hour
	Prefix      string `toml:"reference_prefix"`
	FormURL     string `toml:"form_url"` // empty: this server's /book/{slug}
	// BookingOff is the location's chat-booking off switch; the form and
	// phone stay available.
	BookingOff bool   `toml:"booking_off"`
	Units      []Unit `toml:"units"`
	// Closures are dated days off for this location only.
	Closures []Closure `toml:"closures"`
	// zone is TimeZone resolved once when the file is read, so no call
	// reads the zone database.
	zone *time.Location
}

// Unit kinds.
const (
	KindNight = "night" // sold by the night, checked in on a date
	KindTimed = "timed" // sold by the slot, inside opening hours
)

// Unit is a room type sold by the night or a timed service sold by the slot.
type Unit struct {
	Type        string `toml:"type"` // "single", "double", "studio", "shuttle"…
	Kind        string `toml:"kind"` // KindNight (default) or KindTimed
	Name        string `toml:"name"` // display name; empty: the type
	Count       int    `toml:"count"`
	NightlyRate string `toml:"nightly_rate"` // decimal, such as "89.00"; empty: weekly only
	WeeklyRate  string `toml:"weekly_rate"`
	MinNights   int    `toml:"min_nights"`
	// Description, Capacity and Photo are what the guest pages show of a
	// night unit. Capacity is the most guests one unit sleeps; 0 means
	// limits.max_guests. Photo is an https:// address or a path on this
	// server; empty shows none.
	Description string `toml:"description"`
	Capacity    int    `toml:"capacity"`
	Photo       string `toml:"photo"`
	PhotoAlt    string `toml:"photo_alt"` // the photo's text for people who cannot see it
	// Amenities are short phrases the guest pages list, such as
	// "Kitchenette" or "Step-free access".
	Amenities []string `toml:"amenities"`
	// Timed units only.
	DurationMinutes int    `toml:"duration_minutes"`
	Opens           string `toml:"opens"`  // "06:00", local time, every day
	Closes          string `toml:"closes"` // the last slot ends by then
	Price           string `toml:"price"`  // per place of a slot
	// PlaceName is what one place of a slot is called in price lines,
	// in the singular and in lowercase, such as "ride" or "seat" ("1
	// ride × $25.00"); empty: "place".
	PlaceName string `toml:"place_name"`
	// ConfirmationMode is how a USP booking of the unit is confirmed
	// (the spec's confirmation_mode): ConfirmManual (the default) leaves
	// it pending until staff decide, ConfirmAuto confirms it in the
	// transaction that creates it, for capacity services such as a
	// shuttle.
	ConfirmationMode string `toml:"confirmation_mode"`
	// Policy is what the guest pays and when, and the cancellation,
	// no-show and rescheduling terms ([locations.units.policy]).
	Policy Policy `toml:"policy"`
	// Fees are charged on a night unit's stays on top of its rates
	// ([[locations.units.fees]]); timed units carry none.
	Fees []Fee `toml:"fees"`
}

// Confirmation modes of a unit's USP bookings.
const (
	ConfirmManual = "manual"
	ConfirmAuto   = "auto"
)

// AutoConfirms reports whether the unit's USP bookings are confirmed
// when they are made.
func (u Unit) AutoConfirms() bool { return u.ConfirmationMode == ConfirmAuto }

// Zone returns the location's IANA zone. Validate guarantees it loads.
// A Location built or edited in code after Parse loads it afresh.
func (l Location) Zone() *time.Location {
	if l.zone != nil && l.zone.String() == l.TimeZone {
		return l.zone
	}
	z, err := time.LoadLocation(l.TimeZone)
	if err != nil {
		return time.UTC
	}
	return z
}

// Unit returns the unit of the given type, case-insensitively.
func (l Location) Unit(typ string) (Unit, bool) {
	for _, u := range l.Units {
		if strings.EqualFold(u.Type, typ) {
			return u, true
		}
	}
	return Unit{}, false
}

// NightUnits returns the units sold by the night, in config order.
func (l Location) NightUnits() []Unit {
	// Sized first: a unit is a few hundred bytes, and the hot reads call
	// this on every request, where growing the slice copied them twice.
	n := 0
	for i := range l.Units {
		if l.Units[i].Kind == KindNight {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Unit, 0, n)
	for _, u := range l.Units {
		if u.Kind == KindNight {
			out = append(out, u)
		}
	}
	return out
}

// DisplayName is the unit's name for people.
func (u Unit) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	return u.Type
}

// PlaceWord is what one place of the unit's slots is called: its
// PlaceName, or "place".
func (u Unit) PlaceWord() string {
	if u.PlaceName != "" {
		return u.PlaceName
	}
	return "place"
}

// WeeklyOnly reports whether the unit has no nightly rate.
func (u Unit) WeeklyOnly() bool { return u.Kind == KindNight && u.NightlyRate == "" }

// SetZone keeps z as the location's loaded zone, so reads of Zone do not
// load it again; config sets it once when the file is read.
func (l *Location) SetZone(z *time.Location) { l.zone = z }

// Limits are the business decisions and adjustable ceilings of
// direct-booking.md. The fixed per-mailbox limits are constants in booking.
type Limits struct {
	MaxStayNights        int `toml:"max_stay_nights"`
	AdjacencyGapNights   int `toml:"adjacency_gap_nights"`
	AdvanceDays          int `toml:"advance_days"`
	MaxGuests            int `toml:"max_guests"`
	CancelBeforeHours    int `toml:"cancel_before_hours"`
	PortfolioEmailHourly int `toml:"portfolio_email_hourly"`
	PortfolioEmailDaily  int `toml:"portfolio_email_daily"`
	LocationEmailHourly  int `toml:"location_email_hourly"`
	CancelPortfolioDaily int `toml:"cancel_portfolio_daily"`
	LocationPending      int `toml:"location_pending"`
	PortfolioPending     int `toml:"portfolio_pending"`
}

// Portfolio is the business as its owner states it: the business, its
// locations and units, and the limits of its booking policy. Services
// that answer for every location take it whole.
type Portfolio struct {
	Business  Business   `toml:"business"`
	Locations []Location `toml:"locations"`
	Limits    Limits     `toml:"limits"`
}

// Sleeps is the most guests one unit takes: its capacity, or the
// business's guest limit when it names none.
func (p Portfolio) Sleeps(u Unit) int {
	if u.Capacity > 0 {
		return u.Capacity
	}
	return p.Limits.MaxGuests
}

// Deployment is the evidence of where the business is published, which
// the booking tools check before acting (direct-booking.md §16).
type Deployment struct {
	Context   string   `toml:"context"` // "production", "draft", "preview"…
	Published bool     `toml:"published"`
	Hostnames []string `toml:"hostnames"` // Host values this server answers to
	// CustomHostnames are the hosts on which the booking tools run; a
	// platform's default hostname may serve reads but never bookings.
	// Empty: every hostname.
	CustomHostnames []string `toml:"custom_hostnames"`
}

// Unit finds the unit of type unit at the location with slug, and that
// location; false when the business sells no such unit there.
func (p Portfolio) Unit(slug, unit string) (Location, Unit, bool) {
	for _, l := range p.Locations {
		if l.Slug == slug {
			u, ok := l.Unit(unit)
			return l, u, ok
		}
	}
	return Location{}, Unit{}, false
}
