package office

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/staff"
)

// Booking is a reservation staff make themselves, for a guest on the
// phone or at the desk: a stay of nights in one room type, or one start
// of a timed unit such as a shuttle.
type Booking struct {
	Location string // slug
	RoomType string // a room type or a timed unit's type
	Checkin  string // YYYY-MM-DD, for a stay
	Checkout string
	Start    string // "YYYY-MM-DD HH:MM" local time, for a timed unit
	Name     string
	Email    string
	Phone    string
	Guests   string // a whole number; "" means one
	Notes    string
	By       string // the staff member, for the audit
}

// Book makes a staff reservation through the desk: source staff,
// confirmed at once since staff made it, its room or places held like
// every other door's. A timed unit is booked by its start, which must be
// one the unit offers inside the booking window, as a USP platform's
// booking must. Bad fields are reservation.FormProblems by field and store
// nothing; a stay with no room left or a start with no place left is
// reservation.ErrUnitTaken. At a split hub the location books it, under
// the signed-in login's name; the hub's store keeps none.
func (s *Office) Book(ctx context.Context, b Booking) (reservation.Reservation, error) {
	if s.remote != nil {
		u, ok := staff.UserOf(ctx)
		if !ok || !u.CanSee(b.Location) {
			return reservation.Reservation{}, reservation.FormProblems{"location": "No such location."}
		}
		return s.remote.Book(ctx, b.Location, u, b)
	}
	now := s.clock.Now()
	p := reservation.FormProblems{}
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
		e, ok := reservation.ParseEmail(email)
		if !ok {
			p["email"] = "This is not an email address."
		}
		email = e.Delivery
	}
	phone := strings.TrimSpace(b.Phone)
	if phone != "" {
		ph, ok := reservation.ParsePhone(phone, s.cfg.Business.PhoneCountryCode)
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
	by := strings.TrimSpace(b.By)
	if by == "" {
		by = "staff"
	}
	req := reservation.BookRequest{
		Location: l.Slug, Unit: unit.Type, Guests: guests,
		Contact: reservation.Contact{Name: name, Email: email, Phone: phone}, Source: reservation.SourceStaff,
		Notes: strings.TrimSpace(b.Notes), Kind: reservation.KindConfirmed, By: by,
	}
	if unit.Kind == business.KindTimed {
		st, problem := s.timedStart(l, unit, b.Start, now)
		if problem != "" {
			return reservation.Reservation{}, reservation.FormProblems{"start": problem}
		}
		total, ok := s.pricer.SlotTotal(unit, guests)
		if !ok {
			return reservation.Reservation{}, fmt.Errorf("price the slot: unreadable price %q", unit.Price)
		}
		// Each guest takes a place of the slot, as a platform's party does.
		req.Slots, req.Units, req.Total = []string{st.Slot}, guests, total
	} else {
		q, err := s.pricer.Quote(pricing.Stay{Location: l, RoomType: unit.Type, Checkin: b.Checkin, Checkout: b.Checkout, Guests: guests}, civil.Of(now, l.Zone()))
		if refusal, ok := errors.AsType[*pricing.Refusal](err); ok {
			return reservation.Reservation{}, reservation.FormProblems{"dates": refusal.Text}
		}
		if err != nil {
			return reservation.Reservation{}, fmt.Errorf("price the stay: %w", err)
		}
		req.Slots, req.Total = inventory.Nights(q.Checkin, q.Nights), q.Total
	}
	r, err := s.core.Book(ctx, req)
	if err != nil {
		return reservation.Reservation{}, err
	}
	s.log.InfoContext(ctx, "staff booking", "location", l.Slug, "reference", r.Reference)
	return r, nil
}

// timedStart reads the start of a timed unit that staff give: one of the
// unit's starts in the location's zone, inside the booking window. The
// problem, if any, is a sentence for the form.
func (s *Office) timedStart(l business.Location, u business.Unit, start string, now time.Time) (inventory.Start, string) {
	start = strings.Replace(strings.TrimSpace(start), " ", "T", 1)
	if start == "" {
		return inventory.Start{}, "Give the start, YYYY-MM-DD HH:MM local time."
	}
	st, ok := inventory.StartAt(u, start, l.Zone())
	if !ok {
		return inventory.Start{}, fmt.Sprintf("The %s starts every %d minutes from %s, the last run ending by %s, local time; give one of those starts as YYYY-MM-DD HH:MM.",
			u.Type, u.DurationMinutes, u.Opens, u.Closes)
	}
	switch inventory.Window(st.At, civil.Of(st.At, l.Zone()), now, l.Zone(), s.cfg.Limits.AdvanceDays) {
	case inventory.ErrStarted:
		return inventory.Start{}, "This start has already passed; give a later one."
	case inventory.ErrTooFarAhead:
		return inventory.Start{}, fmt.Sprintf("Starts can be booked at most %d days ahead.", s.cfg.Limits.AdvanceDays)
	}
	return st, ""
}
