package pricing

import (
	"fmt"
	"net/url"
	"strings"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
)

// RefusalKind names an inherited quote failure.
type RefusalKind string

// The inherited quote failures of direct-booking.md §12.
const (
	RefusalMinimumStay      RefusalKind = "minimum_stay"
	RefusalWeeklyOnly       RefusalKind = "weekly_only"
	RefusalOverCap          RefusalKind = "over_cap"
	RefusalUnknownRoomType  RefusalKind = "unknown_room_type"
	RefusalPast             RefusalKind = "checkin_past"
	RefusalTooFar           RefusalKind = "checkin_too_far"
	RefusalCheckoutNotAfter RefusalKind = "checkout_not_after_checkin"
	RefusalUnreadableDates  RefusalKind = "unreadable_dates"
	RefusalQuoteOutage      RefusalKind = "quote_outage"
	RefusalStayCap          RefusalKind = "stay_cap" // the request-only cap across every location
	// RefusalFees is a room with fees, which chat's fixed quote (subtotal,
	// tax, total) has no place for: the site and the phone price it.
	RefusalFees RefusalKind = "priced_with_fees"
)

// Refusal is a quote that cannot be given, worded for the guest. Text is
// byte-exact and safe to show.
type Refusal struct {
	Kind RefusalKind
	Text string
	// HasForm and HasPhone say whether Text already carries the booking
	// form and a phone, so the booking wrapper adds only what is missing.
	HasForm, HasPhone bool
}

func (r *Refusal) Error() string { return r.Text }

var headers = map[RefusalKind]string{
	RefusalMinimumStay:      "No quote: minimum stay",
	RefusalWeeklyOnly:       "No quote: weekly-only room booked for under a week",
	RefusalUnknownRoomType:  "No quote: unknown room type",
	RefusalPast:             "No quote: check in is in the past",
	RefusalTooFar:           "No quote: check in is too far ahead",
	RefusalCheckoutNotAfter: "No quote: check out is not after check in",
	RefusalUnreadableDates:  "No quote: unreadable dates",
	RefusalFees:             "No quote: this room has fees",
}

// refuse assembles a header, an optional following line and extra lines.
func (p *Pricer) refuse(kind RefusalKind, line string, extra []string) *Refusal {
	lines := []string{headers[kind]}
	if line != "" {
		lines = append(lines, line)
	}
	lines = append(lines, extra...)
	return &Refusal{Kind: kind, Text: strings.Join(lines, "\n")}
}

func (p *Pricer) overCap(checkin civil.Date) *Refusal {
	max := p.cfg.Limits.MaxStayNights
	r := &Refusal{Kind: RefusalOverCap}
	r.Text = fmt.Sprintf("No quote: over the %d-day cap\nEvery stay is capped at %d days. %s The latest allowed checkout from %s is %s.",
		max, max, p.cfg.Business.StayPolicyReason, checkin, checkin.AddDays(max))
	return r
}

// StayCap words the request-only cap that find_rooms gives when no
// location can take the stay as one booking.
func (p *Pricer) StayCap(checkin, checkout civil.Date) *Refusal {
	b, max := p.cfg.Business, p.cfg.Limits.MaxStayNights
	nights := checkin.DaysUntil(checkout)
	none := fmt.Sprintf("none of the %d properties can take it", len(p.cfg.Locations))
	if len(p.cfg.Locations) == 1 {
		none = p.cfg.Locations[0].Name + " cannot take it"
	}
	text := fmt.Sprintf("%s: %s to %s, %d nights\n\n"+
		"Every stay is capped at %d days, and %s to %s is %d nights, so %s as one booking.\n"+
		"The longest stay from %s checks out on %s. Ask again with a check out no more than %d days after the check in.\n"+
		"%s\n"+
		"Questions: call %s.",
		b.Name, checkin, checkout, nights,
		max, checkin, checkout, nights, none,
		checkin, checkin.AddDays(max), max,
		b.StayPolicyReason,
		b.Phone)
	return &Refusal{Kind: RefusalStayCap, Text: text, HasPhone: true}
}

func (p *Pricer) unknownRoomType(loc business.Location, asked string) *Refusal {
	var sold []string
	for _, u := range loc.NightUnits() {
		sold = append(sold, u.Type)
	}
	line := fmt.Sprintf("The argument is roomtype (roomType, room_type, type and room are read the same way). %s sells: %s.",
		loc.Name, strings.Join(sold, ", "))
	return p.refuse(RefusalUnknownRoomType, line, p.sisterSentence(loc, asked))
}

// sisterSentence points at other locations that sell the asked type, and
// only when one does.
func (p *Pricer) sisterSentence(loc business.Location, asked string) []string {
	asked = strings.ToLower(strings.TrimSpace(asked))
	found, weeklyOnly := false, true
	for _, other := range p.cfg.Locations {
		if other.Slug == loc.Slug {
			continue
		}
		if u, ok := other.Unit(asked); ok && u.Kind == business.KindNight {
			found = true
			weeklyOnly = weeklyOnly && u.WeeklyOnly()
		}
	}
	if !found {
		return nil
	}
	what := asked + "s"
	if weeklyOnly {
		what += " by the week"
	}
	s := fmt.Sprintf("Our sister properties nearby have %s: find_rooms on %s/mcp checks all %d properties",
		what, p.origin, len(p.cfg.Locations))
	if p.cfg.Business.LocationsURL != "" {
		s += ", or see " + p.URL(p.cfg.Business.LocationsURL)
	}
	return []string{s + "."}
}

func (p *Pricer) minimumStay(loc business.Location, u business.Unit) *Refusal {
	max := p.cfg.Limits.MaxStayNights
	lines := []string{headers[RefusalMinimumStay]}
	if !u.WeeklyOnly() && u.MinNights >= 7 {
		lines = append(lines, fmt.Sprintf("Nightly stays are temporarily paused so we can make room for guests staying a week or longer, up to %d days.", max))
	}
	lines = append(lines, fmt.Sprintf("At %s, a %s is booked for %d nights or more.", loc.Name, u.Type, u.MinNights))
	if u.WeeklyOnly() {
		s := "A " + u.Type + " here is sold by the week only: it has no nightly rate, so it is never booked for under a week."
		if nightly := nightlyTypes(loc); len(nightly) > 0 {
			s += fmt.Sprintf(" %s here has a nightly rate, subject to availability: ask quote_stay with roomtype %s for the same dates.",
				"A "+strings.Join(nightly, " or a "), strings.Join(nightly, " or "))
		}
		lines = append(lines, s)
	}
	if weekly, ok := p.rate(u.WeeklyRate); ok {
		s := fmt.Sprintf("A week in a %s is %s", u.Type, p.Display(weekly))
		if !u.WeeklyOnly() {
			s += fmt.Sprintf(", which is %s a day", p.Display(dailyEquivalent(weekly)))
		}
		lines = append(lines, s+", before "+p.cfg.Business.TaxLabel+".")
	}
	lines = append(lines, fmt.Sprintf("Book at %s, or call %s.", p.BareFormURL(loc), loc.Phone))
	return &Refusal{Kind: RefusalMinimumStay, Text: strings.Join(lines, "\n"), HasForm: true, HasPhone: true}
}

// dailyEquivalent is a week's price divided by seven, rounded to the
// currency's minor unit.
func dailyEquivalent(weekly int64) int64 { return money.DivRound(weekly, 7) }

// nightlyTypes reads the units in place: a weekly-only room's refusal
// asks for them on every quote, and copying the night units cost more
// than the answer.
func nightlyTypes(loc business.Location) []string {
	var out []string
	for i := range loc.Units {
		if u := &loc.Units[i]; u.Kind == business.KindNight && !u.WeeklyOnly() {
			out = append(out, u.Type)
		}
	}
	return out
}

// QuoteOutage words a quote that a location could not give. reason must be
// a non-sensitive diagnostic: "HTTP 502", "no quote in its answer" or "did
// not answer in time".
func (p *Pricer) QuoteOutage(loc business.Location, reason string) *Refusal {
	text := fmt.Sprintf("%s could not be asked for a quote just now (%s), so there is no figure here and none should be guessed. Call %s or see %s, which prices the stay on the page.",
		loc.Name, reason, loc.Phone, p.BareFormURL(loc))
	return &Refusal{Kind: RefusalQuoteOutage, Text: text, HasForm: true, HasPhone: true}
}

// fees words the quote of a room with fees that chat does not give: the
// prefilled form prices it with its fees, and the phone answers.
func (p *Pricer) feesRefusal(s Stay, u business.Unit) *Refusal {
	line := fmt.Sprintf("A %s at %s has fees on top of its rates, and this answer has no place for them, so there is no figure here and none should be guessed. See %s for the full price and to book, or call %s.",
		u.Type, s.Location.Name, p.FormURL(s.Location, u.Type, s.Checkin, s.Checkout), s.Location.Phone)
	r := p.refuse(RefusalFees, line, nil)
	r.HasForm, r.HasPhone = true, true
	return r
}

func queryEscape(s string) string { return url.QueryEscape(s) }
