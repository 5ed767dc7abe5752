package direct

import (
	"fmt"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/message"
)

// A timed service's booking, such as a shuttle ride a platform booked for
// staff to confirm, is a start and a length, never a night: its decision
// mails say so, with its price in the lines every door shows.

// timed reports whether r books one slot of a unit sold by the slot.
func (s *Service) timed(r booked) bool {
	l, ok := s.location(r.Location)
	if !ok {
		return false
	}
	u, ok := l.Unit(r.Unit)
	return ok && u.Kind == business.KindTimed && len(r.Slots) == 1
}

// slotLines describe a timed booking for mail: reference, place, service
// and places, the local start and the length.
func (s *Service) slotLines(r booked, l business.Location, u business.Unit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reservation number: %s\n", r.Reference)
	fmt.Fprintf(&b, "Property: %s, %s\n", l.Name, l.Phone)
	places := max(r.Guests, 1)
	word := u.PlaceWord()
	if places != 1 {
		word += "s"
	}
	fmt.Fprintf(&b, "Service: %s, %d %s\n", u.DisplayName(), places, word)
	if start, err := l.StartOf(u, r.FirstSlot()); err == nil {
		fmt.Fprintf(&b, "Start: %s\n", localTime(start, l))
	}
	fmt.Fprintf(&b, "Length: %d minutes\n", u.DurationMinutes)
	return b.String()
}

// slotDecisionEmail is the guest's mail about a staff decision on a
// timed booking.
func (s *Service) slotDecisionEmail(r booked, l business.Location, now time.Time) (message.Email, bool) {
	u, _ := l.Unit(r.Unit)
	subject, opening, closing, ok := s.decisionWords(r, l, slotWords)
	if !ok {
		return message.Email{}, false
	}
	text := opening + "\n\n" + s.slotLines(r, l, u) + s.priceText(r, l) + "\n" + closing + "\n"
	return message.Email{
		ID: noticeID(r.Reference, string(r.State), "guest"), From: s.from(), To: []string{r.Contact.Email},
		Subject: subject, Text: text, Date: now,
	}, true
}
