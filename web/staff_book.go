package web

import (
	"errors"
	"net/http"
	"net/url"

	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/staff/office"
)

// bookData is the staff booking form: a phone or walk-in reservation
// staff make through the desk.
type bookData struct {
	Locations []config.Location
	Form      office.Booking
	Problems  booking.FormProblems
	Problem   string
}

// bookPage shows the staff booking form for the user's locations.
func (s *StaffScreen) bookPage(w http.ResponseWriter, r *http.Request, v visit) {
	d := bookData{Locations: s.scope(v.User)}
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
	b := office.Booking{Location: p.Get("location"), RoomType: p.Get("roomtype"), Checkin: p.Get("checkin"), Checkout: p.Get("checkout"),
		Name: p.Get("name"), Email: p.Get("email"), Phone: p.Get("phone"), Guests: p.Get("guests"), Notes: p.Get("notes"), By: v.User.Username}
	if !v.User.CanSee(b.Location) {
		http.NotFound(w, r)
		return
	}
	res, err := s.Core.Book(r.Context(), b)
	d := bookData{Locations: s.scope(v.User), Form: b}
	switch refusal(err) {
	case refusedFields:
		d.Problems, _ = errors.AsType[booking.FormProblems](err)
		s.render(w, r, v, http.StatusUnprocessableEntity, "staff_book.html", d)
		return
	case refusedNoRoom:
		d.Problem = "No room of this type is free for every night of the stay. Nothing was booked."
		s.render(w, r, v, http.StatusConflict, "staff_book.html", d)
		return
	case refusedNone:
	default:
		s.fail(w, r, "staff booking", err)
		return
	}
	http.Redirect(w, r, "/staff/reservations/"+url.PathEscape(res.Reference)+"?done=booked", http.StatusSeeOther)
}
