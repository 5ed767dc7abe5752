package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
)

// A property's own page, /properties/{slug}: its rooms, and for each a
// calendar of this month and the next with the nights that are free and
// their price. A free night links to the booking form with that arrival
// and the room's shortest stay filled in, so the calendar works without
// a script and by keyboard. A room let by the week marks the arrival
// dates a whole minimum stay is free from, under its weekly price.

// propertyPage is what property.html shows.
type propertyPage struct {
	pageData
	Location business.Location
	Rooms    []roomCalendar
}

// roomCalendar is one room type's card and its months.
type roomCalendar struct {
	roomCard
	Months []month
	// Note says what a marked day means for this room.
	Note string
}

// month is one calendar month as weeks of seven days, Monday first.
type month struct {
	Name  string // "December 2026"
	Weeks [][7]calendarDay
}

// calendarDay is one cell: a day of the month, or an empty cell.
type calendarDay struct {
	Day int // 0: a cell outside the month
	// State is "free" (a link to the form), "full", "closed" (not an
	// arrival date for this room) or "past".
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
	end := start.At(12, 0, time.UTC).AddDate(0, 2, 0)           // the 1st of the month after next
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
	for _, rm := range prop.Rooms {
		u := rm.Unit
		free := avail.Free[u.Type]
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
			rc.Note = "Marked days are the arrival dates from which " + strconv.Itoa(stay) + " nights in a row are free; pick one to ask for those nights."
		} else {
			rc.Note = "Each free night shows its rate before tax; pick one to ask for that night, and change the departure on the form."
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
		rc.Months = layMonths(start, last, func(d civil.Date) calendarDay {
			i := today.DaysUntil(d)
			c := calendarDay{Day: d.At(12, 0, time.UTC).Day(), Label: s.longDate(d)}
			switch {
			case i < 0:
				c.State = "past"
			case freeFrom(i):
				c.State, c.Book = "free", bookLink(l, u, d, stay)
				if stay == 1 {
					c.Price = rate
					c.Label += ": free, " + rate + " a night"
				} else {
					c.Label += ": arrive for " + strconv.Itoa(stay) + " nights"
				}
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
	s.render(w, r, "property.html", p)
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
