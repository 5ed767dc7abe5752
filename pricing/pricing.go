// Package pricing prices stays: nightly and weekly rates, tax, minimum
// stays, the stay cap, the arrival window and the guest limit, and words
// the inherited quote refusals. Its functions are pure: the caller passes
// today's date.
//
// It imports the business model and the internal civil and money
// helpers only.
package pricing

import (
	"encoding/json"
	"strings"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
)

// Earliest arrival offset from today, in days. The inherited price function
// accepts yesterday so a late-night arrival is not refused at midnight.
const earliestArrival = -1

// Pricer prices stays for one business.
type Pricer struct {
	cfg    business.Portfolio
	origin string // public origin of the hub, for links in refusals
	// rates are the units' rates as written, in minor units: read once,
	// since every quote prices its nights with them.
	rates map[string]int64
}

// New returns a Pricer. origin is the hub's public origin, such as
// "https://book.example.com"; relative config URLs are resolved against it.
func New(p business.Portfolio, origin string) *Pricer {
	rates := map[string]int64{}
	for _, l := range p.Locations {
		for _, u := range l.Units {
			for _, r := range []string{u.NightlyRate, u.WeeklyRate} {
				if n, err := money.Parse(r, p.Business.Currency); err == nil {
					rates[r] = n
				}
			}
		}
	}
	return &Pricer{cfg: p, origin: strings.TrimSuffix(origin, "/"), rates: rates}
}

// Stay is what a caller asks to price.
type Stay struct {
	Location business.Location
	RoomType string // as given; matched case-insensitively
	Checkin  string // YYYY-MM-DD as given
	Checkout string
	// Guests is how many guests stay, for fees charged per guest; 0
	// counts as one.
	Guests int
}

// Quote is a priced stay. Amounts are minor units of Currency.
type Quote struct {
	Location  string // slug
	RoomType  string
	Checkin   civil.Date
	Checkout  civil.Date
	Nights    int
	Subtotal  int64 // the rates
	Fees      int64 // the unit's fees ([[locations.units.fees]])
	Tax       int64 // on the rates and the taxable fees
	Total     int64 // Subtotal + Fees + Tax
	Currency  string
	RateBasis string // "nightly", "weekly" or "weekly+nightly"
}

// Amount renders minor units as an exact JSON number with the currency's
// decimals, such as 1234.50.
func (p *Pricer) Amount(minor int64) json.Number {
	return json.Number(money.Format(minor, p.cfg.Business.Currency))
}

// Display renders minor units for people, such as "$1,234.50".
func (p *Pricer) Display(minor int64) string { return money.Display(minor, p.cfg.Business.Currency) }

// Dates reads and checks a stay's dates without a room type: readable,
// checkout after checkin, inside the arrival window and under the cap.
// today is the current date in the location's zone.
func (p *Pricer) Dates(loc business.Location, checkin, checkout string, today civil.Date) (in, out civil.Date, nights int, err error) {
	in, errIn := civil.Parse(checkin)
	out, errOut := civil.Parse(checkout)
	if errIn != nil || errOut != nil {
		return in, out, 0, p.refuse(RefusalUnreadableDates, "", nil)
	}
	nights = in.DaysUntil(out)
	offset := today.DaysUntil(in)
	switch {
	case nights < 1:
		return in, out, nights, p.refuse(RefusalCheckoutNotAfter, "Check out has to be after check in.", nil)
	case offset < earliestArrival:
		return in, out, nights, p.refuse(RefusalPast, "That arrival date has already passed.", nil)
	case offset > p.cfg.Limits.AdvanceDays:
		return in, out, nights, p.refuse(RefusalTooFar, "That is further ahead than this business books.", nil)
	case nights > p.cfg.Limits.MaxStayNights:
		return in, out, nights, p.overCap(in)
	}
	return in, out, nights, nil
}

// Quote prices a stay at one location, or returns a *Refusal with the
// inherited wording.
func (p *Pricer) Quote(s Stay, today civil.Date) (Quote, error) { return p.quote(s, today, true) }

// quote is Quote; without words, a minimum-stay refusal carries its kind
// alone.
func (p *Pricer) quote(s Stay, today civil.Date, words bool) (Quote, error) {
	unit, ok := s.Location.Unit(s.RoomType)
	if !ok || unit.Kind != business.KindNight {
		return Quote{}, p.unknownRoomType(s.Location, s.RoomType)
	}
	in, out, nights, err := p.Dates(s.Location, s.Checkin, s.Checkout, today)
	if err != nil {
		return Quote{}, err
	}
	if nights < unit.MinNights {
		if unit.WeeklyOnly() && unit.MinNights < 7 {
			// The live minimum was lowered below a week, but a weekly-only
			// unit still has no price for a shorter stay.
			if nights < 7 {
				return Quote{}, p.refuse(RefusalWeeklyOnly, "A "+unit.Type+" here is sold by the week only: it has no nightly rate, so there is no price for a stay of under a week in one.", nil)
			}
		}
		if !words {
			return Quote{}, &Refusal{Kind: RefusalMinimumStay}
		}
		return Quote{}, p.minimumStay(s.Location, unit)
	}
	if unit.WeeklyOnly() && nights < 7 {
		return Quote{}, p.refuse(RefusalWeeklyOnly, "A "+unit.Type+" here is sold by the week only: it has no nightly rate, so there is no price for a stay of under a week in one.", nil)
	}
	subtotal, basis := p.subtotal(unit, nights)
	var fees, taxable int64
	for _, f := range p.fees(unit, nights, s.Guests) {
		fees += f.amount
		if f.taxable {
			taxable += f.amount
		}
	}
	tax := p.tax(subtotal + taxable)
	return Quote{
		Location: s.Location.Slug, RoomType: unit.Type,
		Checkin: in, Checkout: out, Nights: nights,
		Subtotal: subtotal, Fees: fees, Tax: tax, Total: subtotal + fees + tax,
		Currency: p.cfg.Business.Currency, RateBasis: basis,
	}, nil
}

// tax is the business's tax on base, rounded half up.
func (p *Pricer) tax(base int64) int64 { return money.DivRound(base*p.taxBasisPoints(), 10000) }

// ChatQuote is Quote for chat's quote_stay, whose answer
// direct-booking.md §2 fixes as subtotal, tax and total: a stay in a unit
// with fees, which that answer has no place for, is refused with the
// booking form and the phone (RefusalFees) rather than quoted at a total
// other than the site's. Every other stay is Quote's.
func (p *Pricer) ChatQuote(s Stay, today civil.Date) (Quote, error) {
	return p.chatQuote(s, today, true)
}

// RoomQuote is ChatQuote for one room of a list (find_rooms), which
// notes a refusal by its kind: a minimum-stay or fees refusal comes
// without the words written for a guest asking about that one room,
// which the list never shows and which cost more than the quote.
func (p *Pricer) RoomQuote(s Stay, today civil.Date) (Quote, error) {
	return p.chatQuote(s, today, false)
}

func (p *Pricer) chatQuote(s Stay, today civil.Date, words bool) (Quote, error) {
	q, err := p.quote(s, today, words)
	if err != nil {
		return q, err
	}
	if u, _ := s.Location.Unit(s.RoomType); HasFees(u) {
		if !words {
			return Quote{}, &Refusal{Kind: RefusalFees}
		}
		return Quote{}, p.feesRefusal(s, u)
	}
	return q, nil
}

// subtotal applies whole weeks at the weekly rate when there is one and
// the rest at the nightly rate; a weekly-only unit prices extra nights at
// a seventh of its week.
func (p *Pricer) subtotal(u business.Unit, nights int) (int64, string) {
	nightly, hasNightly := p.rate(u.NightlyRate)
	weekly, hasWeekly := p.rate(u.WeeklyRate)
	switch {
	case hasWeekly && !hasNightly:
		weeks, rest := int64(nights/7), int64(nights%7)
		return weeks*weekly + rest*money.DivRound(weekly, 7), "weekly"
	case hasWeekly && nights >= 7:
		weeks, rest := int64(nights/7), int64(nights%7)
		if rest == 0 {
			return weeks * weekly, "weekly"
		}
		return weeks*weekly + rest*nightly, "weekly+nightly"
	default:
		return int64(nights) * nightly, "nightly"
	}
}

func (p *Pricer) rate(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	if n, ok := p.rates[s]; ok {
		return n, true
	}
	n, err := money.Parse(s, p.cfg.Business.Currency)
	return n, err == nil // Validate refused unreadable rates already
}

func (p *Pricer) taxBasisPoints() int64 {
	return int64(p.cfg.Business.TaxPercent*100 + 0.5)
}

// URL resolves a config URL that may be a path on this server.
func (p *Pricer) URL(u string) string {
	if strings.HasPrefix(u, "/") {
		return p.origin + u
	}
	return u
}

// FormURL is the location's booking form, prefilled with the requested
// room type and dates when they are given.
func (p *Pricer) FormURL(loc business.Location, roomType, checkin, checkout string) string {
	base := p.BareFormURL(loc)
	if roomType == "" && checkin == "" && checkout == "" {
		return base
	}
	// Written into one builder: find_rooms asks for a link per room on
	// every call.
	var b strings.Builder
	b.Grow(len(base) + len(roomType) + len(checkin) + len(checkout) + 32)
	b.WriteString(base)
	sep := byte('?')
	if strings.Contains(base, "?") {
		sep = '&'
	}
	for _, kv := range [...][2]string{{"roomtype", roomType}, {"checkin", checkin}, {"checkout", checkout}} {
		if kv[1] != "" {
			b.WriteByte(sep)
			b.WriteString(kv[0])
			b.WriteByte('=')
			b.WriteString(queryEscape(kv[1]))
			sep = '&'
		}
	}
	return b.String()
}

// BareFormURL is the booking form without query values.
func (p *Pricer) BareFormURL(loc business.Location) string {
	if loc.FormURL != "" {
		return p.URL(loc.FormURL)
	}
	return p.origin + "/book/" + loc.Slug
}

// Line is one line of a price broken down: Count weeks or nights ("week"
// or "night" in Per) at Rate each, Amount in all. Amounts are minor
// units.
type Line struct {
	Count        int
	Per          string
	Rate, Amount int64
}

// Breakdown splits the subtotal of a stay of nights in u into the lines
// Quote priced it by: whole weeks at the weekly rate, then nights at the
// nightly rate (or at a seventh of the week for a unit sold by the
// week). The lines add up to the quote's subtotal.
func (p *Pricer) Breakdown(u business.Unit, nights int) []Line {
	nightly, hasNightly := p.rate(u.NightlyRate)
	weekly, hasWeekly := p.rate(u.WeeklyRate)
	var lines []Line
	add := func(count int, per string, rate int64) {
		if count > 0 {
			lines = append(lines, Line{Count: count, Per: per, Rate: rate, Amount: int64(count) * rate})
		}
	}
	switch {
	case hasWeekly && !hasNightly:
		add(nights/7, "week", weekly)
		add(nights%7, "night", money.DivRound(weekly, 7))
	case hasWeekly && nights >= 7:
		add(nights/7, "week", weekly)
		add(nights%7, "night", nightly)
	default:
		add(nights, "night", nightly)
	}
	return lines
}
