package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/staff/office"
	"frontdesk/store"
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
	Problems  reservation.FormProblems
	Problem   string
	// Check is the price and what is free for the booking as typed,
	// after "Check price and availability"; Price is that price in its
	// lines, as the guest pages and mails show it.
	Check string
	Price *priceLines
	// ZoneName names the chosen property's time zone, for the start.
	ZoneName string
}

// newBookData lists what the form offers the user: the units of the
// chosen property once one is (a walk-in from its today list, or after
// a check), else those of all their properties.
func (s *StaffScreen) newBookData(v visit, b office.Booking) bookData {
	d := bookData{Locations: s.scope(v.User), Form: b}
	for _, l := range d.Locations {
		if b.Location != "" && l.Slug != b.Location {
			continue
		}
		if d.ZoneName == "" || l.Slug == b.Location {
			d.ZoneName = l.TimeZone
		}
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
	d := s.newBookData(v, b)
	if p.Get("step") == "check" {
		d.Check, d.Price = s.checkBooking(r, b)
		s.render(w, r, v, http.StatusOK, "staff_book.html", d)
		return
	}
	res, err := s.Core.Book(r.Context(), b)
	switch refusal(err) {
	case refusedFields:
		d.Problems, _ = errors.AsType[reservation.FormProblems](err)
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

// checkBooking words the price of the booking as typed and how many
// units are free for it, from the reservations that hold one, so staff
// see both before booking; the price comes in its lines too (nil when
// there is none). It books nothing.
func (s *StaffScreen) checkBooking(r *http.Request, b office.Booking) (string, *priceLines) {
	l, ok := s.location(b.Location)
	if !ok {
		return "Choose a property.", nil
	}
	u, ok := l.Unit(b.RoomType)
	if !ok {
		return "Choose a room type or service of " + l.Name + ", then check again.", nil
	}
	cur := s.Config.Business.Currency
	if u.Kind == business.KindTimed {
		start, err := time.ParseInLocation(slotLayout, b.Start, l.Zone())
		if err != nil {
			return "Give the start, then check again.", nil
		}
		rows, err := s.allReservations(r, store.ReservationFilter{Location: l.Slug, From: civil.Of(start, l.Zone()).String(), To: civil.Of(start, l.Zone()).AddDays(1).String(), States: holding})
		if err != nil {
			return "What is free could not be read just now; try again.", nil
		}
		taken := 0
		for _, res := range rows {
			if res.Unit == u.Type && res.FirstSlot() == b.Start {
				taken++
			}
		}
		price, lines := "", (*priceLines)(nil)
		places := guestCount(b.Guests)
		pricer := pricing.New(s.Config.Portfolio, "")
		if total, ok := pricer.SlotTotal(u, places); ok {
			price = money.Display(total/int64(places), cur) + " a " + u.PlaceWord() + ". "
			lines = wordPrice(s.Config.Portfolio, u, 1, places, total)
		}
		return u.DisplayName() + ", " + start.Format("Mon, Jan 2, 2006, 3:04 PM MST") + ", " + duration(u) + ": " + price +
			strconv.Itoa(max(0, u.Count-taken)) + " of " + strconv.Itoa(u.Count) + " " + plural(u.Count, "place", "places") + " free.", lines
	}
	guests := guestCount(b.Guests)
	q, err := pricing.New(s.Config.Portfolio, "").Quote(pricing.Stay{Location: l, RoomType: u.Type, Checkin: b.Checkin, Checkout: b.Checkout, Guests: guests}, s.today(l))
	if err != nil {
		return "No price for these dates: " + err.Error(), nil
	}
	rows, err := s.allReservations(r, store.ReservationFilter{Location: l.Slug, From: q.Checkin.String(), To: q.Checkout.String(), States: holding})
	if err != nil {
		return "What is free could not be read just now; try again.", nil
	}
	busiest := 0
	for i := range q.Nights {
		night, held := q.Checkin.AddDays(i).String(), 0
		for _, res := range rows {
			if res.Unit == u.Type && slices.Contains(res.Slots, night) {
				held++
			}
		}
		busiest = max(busiest, held)
	}
	return roomTitle(u) + ", " + s.date(q.Checkin) + " to " + s.date(q.Checkout) + " (" + nights(q.Nights) + "): " + money.Display(q.Total, cur) +
		" with tax. " + strconv.Itoa(max(0, u.Count-busiest)) + " of " + strconv.Itoa(u.Count) + " free on every night.", wordPrice(s.Config.Portfolio, u, q.Nights, guests, q.Total)
}
