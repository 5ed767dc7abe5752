package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// How the guest pages word what the config and the booking core give:
// room titles, dates in the business's locale, the property's time zone
// and a price broken into its lines.

// roomTitle is a room type as the guest pages title it: the name the
// business gave it, or its type with a capital, "Double".
func roomTitle(u business.Unit) string {
	if u.Name != "" {
		return u.Name
	}
	r, size := utf8.DecodeRuneInString(u.Type)
	return string(unicode.ToUpper(r)) + u.Type[size:]
}

// longDate writes d as the business's locale does: "Mon, Mar 14, 2027"
// or "Mon 14 Mar 2027".
func (s *Site) longDate(d civil.Date) string {
	return localeDate(s.Config.Business.Locale, d)
}

func localeDate(locale string, d civil.Date) string {
	if d.IsZero() {
		return ""
	}
	t := d.At(12, 0, time.UTC)
	if locale == business.LocaleGB {
		return t.Format("Mon 2 Jan 2006")
	}
	return t.Format("Mon, Jan 2, 2006")
}

// zoneName names a property's time zone for guests on a date: its city
// and the abbreviation in force, "Denver time (MST)".
func zoneName(l business.Location, d civil.Date) string {
	city := l.TimeZone
	if i := strings.LastIndex(city, "/"); i >= 0 {
		city = city[i+1:]
	}
	city = strings.ReplaceAll(city, "_", " ")
	if d.IsZero() {
		return city + " time"
	}
	abbr := d.At(12, 0, l.Zone()).Format("MST")
	return city + " time (" + abbr + ")"
}

// checkinTime is a location's check-in hour as guests read it, "3:00 PM".
func checkinTime(l business.Location) string {
	m := business.Minutes(l.CheckinHour)
	return time.Date(2000, 1, 1, m/60, m%60, 0, 0, time.UTC).Format("3:04 PM")
}

// priceLines is a price as the guest pages show it: each rate line and
// fee line, the tax, the total, and for a unit that takes money when
// booking what is due now and later.
type priceLines struct {
	Lines []priceLine
	Tax   priceLine // empty Amount: no tax
	Total string
	// Due are "Due now" and "Due at the property", or none for a unit
	// paid at the property.
	Due []priceLine
}

type priceLine struct{ Label, Amount string }

// breakdown words a booking of u with its tax and total, in the lines
// of pricing's Price, which the mails, the staff screen and USP answers
// show too: slots are the nights of a stay (one for a timed slot),
// guests its guests or a slot's places, total the figure the quote or
// the reservation holds.
func (s *Site) breakdown(u business.Unit, slots, guests int, total int64) *priceLines {
	return wordPrice(s.Config.Portfolio, u, slots, guests, total)
}

// wordPrice is breakdown for any page of the package, guest or staff.
func wordPrice(pf business.Portfolio, u business.Unit, slots, guests int, total int64) *priceLines {
	cur := pf.Business.Currency
	pr := pricing.New(pf, "").Price(u, slots, guests, total)
	p := &priceLines{Total: money.Display(pr.Total, cur)}
	for _, l := range append(pr.Lines, pr.Fees...) {
		p.Lines = append(p.Lines, priceLine{Label: l.Label, Amount: money.Display(l.Amount, cur)})
	}
	if pr.Tax.Label != "" {
		p.Tax = priceLine{Label: pr.Tax.Label, Amount: money.Display(pr.Tax.Amount, cur)}
	}
	if pr.TakesMoney() {
		p.Due = []priceLine{{"Due now", money.Display(pr.DueNow, cur)}}
		if pr.DueLater > 0 { // a price paid in full when booking leaves nothing for later
			p.Due = append(p.Due, priceLine{"Due at the property", money.Display(pr.DueLater, cur)})
		}
	}
	return p
}

// stayPrice is the guest page's price of a stay, from what it holds.
func (s *Site) stayPrice(g reservation.GuestStay, u business.Unit) *priceLines {
	if g.Nights < 1 || u.Kind != business.KindNight {
		return nil
	}
	return s.breakdown(u, g.Nights, g.Reservation.Guests, g.Reservation.Total)
}

// notFoundPage is what notfound.html shows.
type notFoundPage struct {
	pageData
	// Stay is set when the address was a guest's own page or its parts.
	Stay bool
}

// NotFound is the site's 404 page: what may have gone wrong, and the
// ways back.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request) {
	p := notFoundPage{pageData: s.data(), Stay: strings.HasPrefix(r.URL.Path, "/stay/")}
	w.Header().Set("Cache-Control", "no-store")
	s.renderStatus(w, r, http.StatusNotFound, "notfound.html", p)
}

// guestCount reads a guest count as the form holds it, one when it does
// not read, as the core prices it.
func guestCount(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 1
	}
	return n
}
