package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"frontdesk/business"
	"frontdesk/channel"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/reservation"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// The front desk's day at one property (/staff/today): today's
// arrivals, departures and the guests in house tonight, each with the
// action that fits it; and the calendar of its rooms by date
// (/staff/calendar), with every reservation and hold linking to its page.
// Dates are the property's own, in its time zone.

// dayRow is one reservation of the today lists, with its actions.
type dayRow struct {
	listRow
	Actions []action
}

type todayData struct {
	Locations  []business.Location
	Location   business.Location
	Today      civil.Date
	TodayText  string // today as the locale writes it
	Arrivals   []dayRow
	Departures []dayRow
	InHouse    []dayRow
	// Timed are today's timed services, such as shuttle seats, by start.
	Timed   []dayRow
	Done    string
	DoneRef string
	// Unread names the location when a split hub could not read it.
	Unread []office.Unread
}

// pickLocation reads the location a staff page is asked for: the
// query's when the user may see it, else the user's first. ok is false
// when the user sees none, or asks for one outside their scope.
func (s *StaffScreen) pickLocation(r *http.Request, v visit) (business.Location, []business.Location, bool) {
	locs := s.scope(v.User)
	if len(locs) == 0 {
		return business.Location{}, nil, false
	}
	slug := r.URL.Query().Get("location")
	if slug == "" {
		return locs[0], locs, true
	}
	for _, l := range locs {
		if l.Slug == slug {
			return l, locs, true
		}
	}
	return business.Location{}, nil, false
}

// holding are the states in which a reservation holds its room.
var holding = []string{string(reservation.Reserved), string(reservation.Confirmed)}

// deskDay shows the today lists of one property.
func (s *StaffScreen) deskDay(w http.ResponseWriter, r *http.Request, v visit) {
	l, locs, ok := s.pickLocation(r, v)
	if !ok {
		http.NotFound(w, r)
		return
	}
	today := s.today(l)
	d := todayData{Locations: locs, Location: l, Today: today, TodayText: s.date(today)}
	q := r.URL.Query()
	if text, ok := results[q.Get("done")]; ok {
		d.Done, d.DoneRef = text, q.Get("ref")
	}
	// Every stay that touches yesterday's night or tonight: arrivals,
	// departures and guests in house. Completed stays still show among
	// the departures, without an action.
	rows, err := s.allReservations(r, store.ReservationFilter{Location: l.Slug, From: today.AddDays(-1).String(), To: today.AddDays(1).String(),
		States: append(holding, string(reservation.Completed))})
	d.Unread, err = unread(err)
	if err != nil {
		s.fail(w, r, "list today", err)
		return
	}
	for _, res := range rows {
		if start, ok := timedStart(res, l); ok {
			if civil.Of(start, l.Zone()) == today {
				row := dayRow{listRow: s.row(res, today, today)}
				for _, a := range s.actions(res, today, today) {
					if a.To == reservation.Completed || a.To == reservation.NoShow || a.To == reservation.Cancelled {
						row.Actions = append(row.Actions, a)
					}
				}
				d.Timed = append(d.Timed, row)
			}
			continue
		}
		in, out, err := res.Stay()
		if err != nil {
			continue
		}
		row := dayRow{listRow: s.row(res, in, out)}
		for _, a := range s.actions(res, in, today) {
			if a.To != reservation.Moved && a.To != reservation.Declined {
				row.Actions = append(row.Actions, a)
			}
		}
		switch {
		case in == today:
			d.Arrivals = append(d.Arrivals, row)
		case out == today:
			d.Departures = append(d.Departures, row)
		case in.Before(today) && today.Before(out) && res.State != reservation.Completed:
			d.InHouse = append(d.InHouse, row)
		}
	}
	s.render(w, r, v, http.StatusOK, "staff_today.html", d)
}

// row is a reservation as the lists show it.
func (s *StaffScreen) row(res reservation.Reservation, in, out civil.Date) listRow {
	l, _ := s.location(res.Location)
	return listRow{Reservation: res, LocationName: s.locationName(res.Location), SourceLabel: office.SourceLabel(res.Source),
		Checkin: in.String(), Checkout: out.String(), Nights: len(res.Slots), Total: money.Display(res.Total, s.Config.Business.Currency),
		When: s.when(res, l), Ref: res.Reference, StateText: staffState(res)}
}

// maxDayRows bounds the reservations one day or calendar page reads.
const maxDayRows = 2000

// allReservations reads every reservation of f, page by page, up to
// maxDayRows. A page with a location unread ends the reading, with the
// *office.NotRead that names it.
func (s *StaffScreen) allReservations(r *http.Request, f store.ReservationFilter) ([]reservation.Reservation, error) {
	f.Limit = 500
	var out []reservation.Reservation
	for len(out) < maxDayRows {
		page, err := s.Core.Reservations(r.Context(), f)
		if _, partly := office.NotReadOf(err); partly {
			return append(out, page...), err
		}
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < f.Limit {
			break
		}
		last := page[len(page)-1]
		f.After = store.ReservationCursor{FirstSlot: last.FirstSlot(), Reference: last.Reference}
	}
	return out, nil
}

// calendarDays are the spans the calendar offers, in days.
var calendarDays = []int{14, 21, 28}

type calendarCell struct {
	Stays []calendarStay
	Free  int
}

type calendarStay struct {
	Reference, Guest string
	Hold             bool // reserved: held for the guest, awaiting staff
	// Channel names the listing site whose calendar blocked the night.
	Channel string
	// At is a timed service's start, "11:00 AM".
	At string
}

type calendarRow struct {
	Unit  business.Unit
	Cells []calendarCell
	// Timed rows list each day's starts; they count no free rooms.
	Timed bool
	Title string
}

// calendarHead is one day's column heading: "Mon" over "28" ("Dec 28"
// on the first column and each 1st), and the whole date for screen
// readers.
type calendarHead struct{ Weekday, Date, Full string }

type calendarData struct {
	Locations []business.Location
	Location  business.Location
	From      civil.Date
	Days      []civil.Date
	Heads     []calendarHead
	Span      int
	Spans     []int
	Rows      []calendarRow
	Earlier   string
	Later     string
	Problem   string
	// Unread names the location when a split hub could not read it: the
	// calendar then claims no room free.
	Unread []office.Unread
}

// calendar shows a property's room types by date over two to four
// weeks: each night's reservations and holds, and what is still free.
func (s *StaffScreen) calendar(w http.ResponseWriter, r *http.Request, v visit) {
	l, locs, ok := s.pickLocation(r, v)
	if !ok {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	d := calendarData{Locations: locs, Location: l, From: s.today(l), Span: 14, Spans: calendarDays}
	if from := q.Get("from"); from != "" {
		day, err := civil.Parse(from)
		if err != nil {
			d.Problem = "The first day could not be read, so the calendar starts today: choose the day again in its date field."
		} else {
			d.From = day
		}
	}
	for _, n := range calendarDays {
		if q.Get("days") == strconv.Itoa(n) {
			d.Span = n
		}
	}
	for i := range d.Span {
		day := d.From.AddDays(i)
		d.Days = append(d.Days, day)
		t := day.At(12, 0, time.UTC)
		date := t.Format("2") // the month is named on the first column and on each 1st
		if i == 0 || t.Day() == 1 {
			date = t.Format("Jan 2")
		}
		d.Heads = append(d.Heads, calendarHead{Weekday: t.Format("Mon"), Date: date, Full: s.date(day)})
	}
	end := d.From.AddDays(d.Span)
	rows, err := s.allReservations(r, store.ReservationFilter{Location: l.Slug, From: d.From.String(), To: end.String(), States: holding})
	d.Unread, err = unread(err)
	if err != nil {
		s.fail(w, r, "read the calendar", err)
		return
	}
	if s.Channels != nil {
		// The blocks imported from the channels are holds of their own.
		holds, err := s.allReservations(r, store.ReservationFilter{Location: l.Slug, From: d.From.String(), To: end.String(), States: []string{string(reservation.OnHold)}})
		if more, _ := unread(err); len(d.Unread) == 0 {
			d.Unread = more
		}
		if _, err = unread(err); err != nil {
			s.fail(w, r, "read the calendar", err)
			return
		}
		for _, h := range holds {
			if _, ok := channel.IsImported(h.Source); ok {
				rows = append(rows, h)
			}
		}
	}
	for _, u := range l.NightUnits() {
		row := calendarRow{Unit: u, Cells: make([]calendarCell, d.Span), Title: roomTitle(u)}
		for i := range row.Cells {
			row.Cells[i].Free = u.Count
		}
		for _, res := range rows {
			if res.Unit != u.Type {
				continue
			}
			for _, night := range res.Slots {
				day, err := civil.Parse(night)
				if err != nil || day.Before(d.From) || !day.Before(end) {
					continue
				}
				c := &row.Cells[d.From.DaysUntil(day)]
				name, _ := channel.IsImported(res.Source)
				c.Stays = append(c.Stays, calendarStay{Reference: res.Reference, Guest: res.Contact.Name, Hold: res.State == reservation.Reserved, Channel: name})
				c.Free--
			}
		}
		d.Rows = append(d.Rows, row)
	}
	for _, u := range l.Units {
		if u.Kind != business.KindTimed {
			continue
		}
		row := calendarRow{Unit: u, Cells: make([]calendarCell, d.Span), Timed: true, Title: u.DisplayName()}
		for _, res := range rows {
			start, ok := timedStart(res, l)
			if res.Unit != u.Type || !ok {
				continue
			}
			day := civil.Of(start, l.Zone())
			if day.Before(d.From) || !day.Before(end) {
				continue
			}
			c := &row.Cells[d.From.DaysUntil(day)]
			c.Stays = append(c.Stays, calendarStay{Reference: res.Reference, Guest: res.Contact.Name, Hold: res.State == reservation.Reserved,
				At: start.Format("3:04 PM") + ", " + duration(u)})
		}
		d.Rows = append(d.Rows, row)
	}
	link := func(from civil.Date) string {
		return "/staff/calendar?" + url.Values{"location": {l.Slug}, "from": {from.String()}, "days": {strconv.Itoa(d.Span)}}.Encode()
	}
	d.Earlier, d.Later = link(d.From.AddDays(-d.Span)), link(end)
	s.render(w, r, v, http.StatusOK, "staff_calendar.html", d)
}

// dayListData is one of the today lists, for its template.
type dayListData struct {
	ID, CSRF, Location string
	Rows               []dayRow
}

// dayList bundles a today list with what its forms post.
func dayList(id string, rows []dayRow, csrf, location string) dayListData {
	return dayListData{ID: id, Rows: rows, CSRF: csrf, Location: location}
}

// unread splits a read's error into the locations a split hub could not
// read, which the page names, and a failure, which fails it.
func unread(err error) ([]office.Unread, error) {
	if nr, partly := office.NotReadOf(err); partly {
		return nr.Locations, nil
	}
	return nil, err
}
