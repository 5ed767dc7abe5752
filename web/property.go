package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/pricing"
)

// A property's own page, /properties/{slug}: its rooms, and for each a
// calendar of this month and the next with the nights that are free and
// their price. Dates are picked in two clicks, each a link, so the
// calendar works without a script and by keyboard: a free arrival date
// links to this page with that arrival chosen (?room=…&arrive=…), which
// then links each departure date the room is free until to the booking
// form with both dates filled in. A room let by the week marks the
// arrival dates a whole minimum stay is free from, under its weekly
// price.

// propertyPage is what property.html shows.
type propertyPage struct {
	pageData
	Location business.Location
	Rooms    []roomCalendar
	// Services are the timed units, such as a shuttle, with the price
	// of one place broken down as a booking of it is.
	Services []serviceCard
}

// serviceCard is a timed unit as the property page shows it.
type serviceCard struct {
	Type, Title   string
	Length        string // "1 h"
	Opens, Closes string // local "06:00"
	Zone          string // "Denver time"
	Price         *priceLines
}

// roomCalendar is one room type's card and its months.
type roomCalendar struct {
	roomCard
	Months []month
	// Note says what a marked day means for this room.
	Note string
	// Arrival words the arrival chosen for this room, "Mon, Dec 7,
	// 2026", when one is; Clear is the page without it.
	Arrival, Clear string
}

// month is one calendar month as weeks of seven days, Monday first.
type month struct {
	Name  string // "December 2026"
	Weeks [][7]calendarDay
}

// calendarDay is one cell: a day of the month, or an empty cell.
type calendarDay struct {
	Day int // 0: a cell outside the month
	// State is "free" (a link choosing it as the arrival), "full",
	// "closed" (not an arrival date for this room) or "past"; with an
	// arrival chosen, "arrive" (that date), "stay" (a night inside the
	// minimum stay) or "depart" (a link to the form for the stay).
	State string
	Price string // the night's rate, for a free night of a nightly room
	Label string // the whole date and what it offers, for screen readers
	Book  string
}

// Property shows a property's rooms and their availability.
func (s *Site) Property(w http.ResponseWriter, r *http.Request) {
	l, ok := s.location(r.PathValue("slug"))
	if !ok || s.Forms == nil || s.Clock == nil {
		s.NotFound(w, r)
		return
	}
	d := s.data()
	var prop property
	for _, p := range d.Properties {
		if p.Slug == l.Slug {
			prop = p
		}
	}
	d.Description = l.Name + " by " + s.Config.Business.Name + ": rooms, free nights and prices for this month and the next."
	today := civil.Of(s.Clock.Now(), l.Zone())
	start := today.AddDays(1 - today.At(12, 0, time.UTC).Day()) // the 1st of this month
	months := 2                                                 // this month and the next
	if q := r.URL.Query(); q.Get("room") != "" && q.Get("arrive") != "" {
		months = 3 // and one more for the departures of a late arrival
	}
	end := start.At(12, 0, time.UTC).AddDate(0, months, 0) // the 1st after the last month shown
	last, _ := civil.Parse(end.Format(time.DateOnly))
	days := today.DaysUntil(last)
	avail, err := s.Forms.Availability(r.Context(), l.Slug, days)
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "read availability", "location", l.Slug, "err", err)
		http.Error(w, "The free nights could not be shown just now. Try again in a minute, or call "+l.Phone+".", http.StatusServiceUnavailable)
		return
	}
	p := propertyPage{pageData: d, Location: l}
	cur := s.Config.Business.Currency
	// shut says whether a closure of the business or of the property
	// covers d: its nights are not offered, as the search says too.
	shut := func(d civil.Date) bool {
		for _, list := range [][]business.Closure{s.Config.Business.Closures, l.Closures} {
			for _, cl := range list {
				if cl.Covers(d.String()) {
					return true
				}
			}
		}
		return false
	}
	for _, rm := range prop.Rooms {
		u := rm.Unit
		free := slices.Clone(avail.Free[u.Type])
		for i := range free {
			if shut(today.AddDays(i)) {
				free[i] = 0
			}
		}
		stay := max(1, u.MinNights)
		if u.WeeklyOnly() {
			stay = max(7, stay)
		}
		rate := ""
		if n, err := money.Parse(u.NightlyRate, cur); err == nil && u.NightlyRate != "" {
			rate = strings.TrimSuffix(money.Display(n, cur), ".00")
		}
		rc := roomCalendar{roomCard: card(prop, rm)}
		if stay > 1 {
			rc.Note = "Marked days are the arrival dates from which " + strconv.Itoa(stay) + " nights in a row are free. Pick your arrival, then your departure."
		} else {
			rc.Note = "Each free night shows its rate before tax. Pick your arrival, then your departure."
		}
		// freeFrom says whether a whole stay from night i is free.
		freeFrom := func(i int) bool {
			if i < 0 || i+stay > len(free) {
				return false
			}
			for j := i; j < i+stay; j++ {
				if free[j] < 1 {
					return false
				}
			}
			return true
		}
		// The arrival chosen for this room, if the query names one a
		// whole stay is free from, and the longest stay free from it.
		arrive, chosen, longest := civil.Date{}, false, 0
		if q := r.URL.Query(); q.Get("room") == u.Type {
			if d, err := civil.Parse(q.Get("arrive")); err == nil && freeFrom(today.DaysUntil(d)) {
				arrive, chosen = d, true
				for a := today.DaysUntil(d); a+longest < len(free) && free[a+longest] > 0 && longest < s.Config.Limits.MaxStayNights; {
					longest++
				}
				rc.Arrival, rc.Clear = s.longDate(d), "/properties/"+url.PathEscape(l.Slug)+"#room-"+u.Type
				rc.Note = "Now pick your departure: the marked days are those you can leave on, after " + strconv.Itoa(stay) + " to " + strconv.Itoa(longest) + " nights."
			}
		}
		rc.Months = layMonths(start, last, func(d civil.Date) calendarDay {
			i := today.DaysUntil(d)
			c := calendarDay{Day: d.At(12, 0, time.UTC).Day(), Label: s.longDate(d)}
			n := arrive.DaysUntil(d) // nights from the chosen arrival
			switch {
			case chosen && n == 0:
				c.State, c.Book = "arrive", rc.Clear
				c.Label += ": your arrival; pick it again to choose another"
			case chosen && n > 0 && n < stay:
				c.State = "stay"
				c.Label += ": a night of your stay"
			case chosen && n >= stay && n <= longest:
				c.State, c.Book = "depart", bookLink(l, u, arrive, n)
				c.Label += ": leave after " + nightsWord(n)
			case i < 0:
				c.State = "past"
			case freeFrom(i):
				c.State, c.Book = "free", arriveLink(l, u, d)
				if stay == 1 {
					c.Price = rate
					c.Label += ": free, " + rate + " a night; arrive on this day"
				} else {
					c.Label += ": arrive for " + strconv.Itoa(stay) + " nights or more"
				}
			case i >= 0 && shut(d):
				c.State = "closed"
				c.Label += ": closed"
			case i < len(free) && free[i] < 1:
				c.State = "full"
				c.Label += ": full"
			default:
				c.State = "closed"
				c.Label += ": not an arrival date for this room"
			}
			return c
		})
		p.Rooms = append(p.Rooms, rc)
	}
	pricer := pricing.New(s.Config.Portfolio, "")
	for _, u := range l.Units {
		if total, ok := pricer.SlotTotal(u, 1); ok {
			p.Services = append(p.Services, serviceCard{Type: u.Type, Title: roomTitle(u), Length: duration(u), Opens: u.Opens, Closes: u.Closes,
				Zone: zoneName(l, civil.Date{}), Price: s.breakdown(u, 1, 1, total)})
		}
	}
	s.render(w, r, "property.html", p)
}

// arriveLink is the property page with d chosen as the arrival in u's
// calendar, which the address's fragment scrolls to.
func arriveLink(l business.Location, u business.Unit, d civil.Date) string {
	v := url.Values{"room": {u.Type}, "arrive": {d.String()}}
	return "/properties/" + url.PathEscape(l.Slug) + "?" + v.Encode() + "#room-" + u.Type
}

// nightsWord counts nights, "1 night", "3 nights".
func nightsWord(n int) string {
	if n == 1 {
		return "1 night"
	}
	return strconv.Itoa(n) + " nights"
}

// bookLink is the form of room u at l with a stay from in for nights.
func bookLink(l business.Location, u business.Unit, in civil.Date, nights int) string {
	v := url.Values{"roomtype": {u.Type}, "checkin": {in.String()}, "checkout": {in.AddDays(nights).String()}}
	return "/book/" + url.PathEscape(l.Slug) + "?" + v.Encode()
}

// layMonths lays out the months from start, a 1st, up to last as weeks
// from Monday, each day's cell from cell.
func layMonths(start, last civil.Date, cell func(civil.Date) calendarDay) []month {
	var out []month
	for m := start; m.Before(last); {
		t := m.At(12, 0, time.UTC)
		mo := month{Name: t.Format("January 2006")}
		next := t.AddDate(0, 1, 0)
		offset := (int(t.Weekday()) + 6) % 7
		var week [7]calendarDay
		pos := offset
		for d := m; d.At(12, 0, time.UTC).Before(next); d = d.AddDays(1) {
			week[pos] = cell(d)
			pos++
			if pos == 7 {
				mo.Weeks = append(mo.Weeks, week)
				week, pos = [7]calendarDay{}, 0
			}
		}
		if pos > 0 {
			mo.Weeks = append(mo.Weeks, week)
		}
		out = append(out, mo)
		n, err := civil.Parse(next.Format(time.DateOnly))
		if err != nil {
			break
		}
		m = n
	}
	return out
}
