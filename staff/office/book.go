package office

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"frontdesk/booking"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// Booking is a reservation staff make themselves, for a guest on the
// phone or at the desk: a stay of nights in one room type.
type Booking struct {
	Location string // slug
	RoomType string
	Checkin  string // YYYY-MM-DD
	Checkout string
	Name     string
	Email    string
	Phone    string
	Guests   string // a whole number; "" means one
	Notes    string
	By       string // the staff member, for the audit
}

// Book makes a staff reservation through the desk: source staff,
// confirmed at once since staff made it, its room held like every other
// door's. Bad fields are booking.FormProblems by field and store
// nothing; a stay with no room left is reservation.ErrUnitTaken.
func (s *Office) Book(ctx context.Context, b Booking) (reservation.Reservation, error) {
	now := s.clock.Now()
	p := booking.FormProblems{}
	l, ok := s.location(b.Location)
	if !ok {
		p["location"] = "No such location."
		return reservation.Reservation{}, p
	}
	unit, ok := l.Unit(strings.TrimSpace(b.RoomType))
	if !ok {
		p["roomtype"] = "No such room type at " + l.Name + "."
	}
	name := strings.TrimSpace(b.Name)
	if name == "" {
		p["name"] = "Give the guest's name."
	}
	email := strings.TrimSpace(b.Email)
	if email != "" {
		e, ok := booking.ParseEmail(email)
		if !ok {
			p["email"] = "This is not an email address."
		}
		email = e.Delivery
	}
	phone := strings.TrimSpace(b.Phone)
	if phone != "" {
		ph, ok := booking.ParsePhone(phone, s.cfg.Business.PhoneCountryCode)
		if !ok {
			p["phone"] = "This is not a phone number."
		}
		phone = ph.Formatted
	}
	if email == "" && phone == "" && p["email"] == "" && p["phone"] == "" {
		p["phone"] = "Give a phone number or an email address to reach the guest."
	}
	guests := 1
	if g := strings.TrimSpace(b.Guests); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 {
			p["guests"] = "Give the number of guests."
		}
		guests = n
	}
	if len(p) > 0 {
		return reservation.Reservation{}, p
	}
	q, err := s.pricer.Quote(pricing.Stay{Location: l, RoomType: unit.Type, Checkin: b.Checkin, Checkout: b.Checkout}, civil.Of(now, l.Zone()))
	if refusal, ok := errors.AsType[*pricing.Refusal](err); ok {
		return reservation.Reservation{}, booking.FormProblems{"dates": refusal.Text}
	}
	if err != nil {
		return reservation.Reservation{}, fmt.Errorf("price the stay: %w", err)
	}
	by := strings.TrimSpace(b.By)
	if by == "" {
		by = "staff"
	}
	r, err := s.bookings.Book(ctx, booking.BookRequest{
		Location: l.Slug, Unit: unit.Type, Slots: inventory.Nights(q.Checkin, q.Nights), Guests: guests,
		Contact: reservation.Contact{Name: name, Email: email, Phone: phone}, Source: reservation.SourceStaff,
		Total: q.Total, Notes: strings.TrimSpace(b.Notes), Kind: reservation.KindConfirmed, By: by,
	})
	if err != nil {
		return reservation.Reservation{}, err
	}
	s.log.InfoContext(ctx, "staff booking", "location", l.Slug, "reference", r.Reference)
	return r, nil
}
