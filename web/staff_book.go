package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"frontdesk/booking"
	"frontdesk/business"
	"frontdesk/staff/office"
)

// bookData is the staff booking form: a phone or walk-in reservation
// staff make through the desk.
type bookData struct {
	Locations []business.Location
	// RoomTypes are the night room types of those locations, each once;
	// Timed the units sold by the slot, such as the shuttle, each once.
	RoomTypes []string
	Timed     []string
	Form      office.Booking
	Problems  booking.FormProblems
	Problem   string
}

// newBookData lists what the form offers the user.
func (s *StaffScreen) newBookData(v visit, b office.Booking) bookData {
	d := bookData{Locations: s.scope(v.User), Form: b}
	for _, l := range d.Locations {
		for _, u := range l.Units {
			list := &d.RoomTypes
			if u.Kind == business.KindTimed {
				list = &d.Timed
			}
			if !slices.Contains(*list, u.Type) {
				*list = append(*list, u.Type)
			}
		}
	}
	return d
}

// timed reports whether b asks for a unit sold by the slot.
func (d bookData) timed(b office.Booking) bool {
	for _, l := range d.Locations {
		if u, ok := l.Unit(b.RoomType); ok && l.Slug == b.Location {
			return u.Kind == business.KindTimed
		}
	}
	return false
}

// bookPage shows the staff booking form for the user's locations; a walk-in
// from the today lists comes with its property and today's date.
func (s *StaffScreen) bookPage(w http.ResponseWriter, r *http.Request, v visit) {
	b := office.Booking{Guests: "1"}
	if l, _, ok := s.pickLocation(r, v); ok && r.URL.Query().Get("walkin") != "" {
		b.Location, b.Checkin, b.Checkout = l.Slug, s.today(l).String(), s.today(l).AddDays(1).String()
	}
	d := s.newBookData(v, b)
	if len(d.Locations) == 0 {
		http.NotFound(w, r)
		return
	}
	s.render(w, r, v, http.StatusOK, "staff_book.html", d)
}

// book makes the reservation through the core and opens it; a field to
// fix or a room no longer free shows the form again with what was typed.
func (s *StaffScreen) book(w http.ResponseWriter, r *http.Request, v visit) {
	p := r.PostForm
	b := office.Booking{Location: p.Get("location"), RoomType: p.Get("roomtype"), Checkin: p.Get("checkin"), Checkout: p.Get("checkout"), Start: p.Get("start"),
		Name: p.Get("name"), Email: p.Get("email"), Phone: p.Get("phone"), Guests: p.Get("guests"), Notes: p.Get("notes"), By: v.User.Username}
	if !v.User.CanSee(b.Location) {
		http.NotFound(w, r)
		return
	}
	res, err := s.Core.Book(r.Context(), b)
	d := s.newBookData(v, b)
	switch refusal(err) {
	case refusedFields:
		d.Problems, _ = errors.AsType[booking.FormProblems](err)
		s.render(w, r, v, http.StatusUnprocessableEntity, "staff_book.html", d)
		return
	case refusedNoRoom:
		d.Problem = "No room of this type is free for every night of the stay. Nothing was booked."
		if d.timed(b) {
			d.Problem = "No place is free at this start. Nothing was booked."
		}
		s.render(w, r, v, http.StatusConflict, "staff_book.html", d)
		return
	case refusedNone:
	default:
		s.fail(w, r, "staff booking", err)
		return
	}
	done := "booked"
	if _, _, err := res.Stay(); err != nil {
		done = "booked-start" // a timed start holds a place, not a room
	}
	http.Redirect(w, r, "/staff/reservations/"+url.PathEscape(res.Reference)+"?done="+done, http.StatusSeeOther)
}
