package direct

import (
	"context"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// DecisionMail queues the guest's mail about a staff decision in the
// decision's transaction, as one of this door's notices, and attempts it
// once the decision committed; the sweep retries it. A confirmation links
// to the guest's own page, by a token of its own: only its digest is
// stored, with the decision.
func (s *Service) DecisionMail(ctx context.Context, read reservation.Reservation, to reservation.State, quiet bool, now time.Time) (reservation.Addition, func(context.Context) bool, error) {
	r, err := fromCore(read)
	if err != nil {
		return reservation.Addition{}, nil, fmt.Errorf("read reservation: %w", err)
	}
	token := ""
	if l, ok := s.location(r.Location); ok && to == reservation.Confirmed && !s.timed(r) {
		if token, err = s.core.NewGuestToken(l); err != nil {
			return reservation.Addition{}, nil, err
		}
	}
	var notices []queuedNotice
	email := reservation.Addition{Refused: errNoticeTaken, Build: func(moved reservation.Reservation) []store.Write {
		link := ""
		if token != "" && moved.State == reservation.Confirmed {
			link = s.guestPageLink(token)
		}
		e, ok := s.decisionEmail(booked{Reservation: moved, chat: r.chat}, link, now)
		if !ok || quiet {
			return nil
		}
		var queue []store.Write
		notices, queue = newNotices(now, r.Reference, []message.Email{e})
		if link != "" {
			queue = append(queue, reservation.GuestPageWrite(token, moved.Reference, now))
		}
		return queue
	}}
	send := func(ctx context.Context) bool {
		sent := s.attemptNotices(ctx, now, notices)
		return len(notices) > 0 && sent[notices[0].ID]
	}
	return email, send, nil
}

// Reservations lists reservations for staff: one page matching f.
func (s *Service) Reservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error) {
	return reservation.List(ctx, s.st, f)
}

// decisionEmail is the guest's mail about a staff decision, when the
// decision has one and the guest gave an address.
func (s *Service) decisionEmail(r booked, link string, now time.Time) (message.Email, bool) {
	l, ok := s.location(r.Location)
	if !ok || r.Contact.Email == "" {
		return message.Email{}, false
	}
	if s.timed(r) {
		return s.slotDecisionEmail(r, l, now)
	}
	if _, _, err := r.Stay(); err != nil {
		return message.Email{}, false // the mails describe stays of nights or a timed slot
	}
	subject, opening, closing, ok := s.decisionWords(r, l, stayWords)
	if !ok {
		return message.Email{}, false
	}
	text := opening + "\n\n" + s.stayLines(r, l) + s.priceText(r, l) + "\n" + closing + "\n"
	if link != "" {
		text += "Your reservation, and its cancellation within the policy: " + link + "\n"
	}
	return message.Email{
		ID: noticeID(r.Reference, string(r.State), "guest"), From: s.from(), To: []string{r.Contact.Email},
		Subject: subject, Text: text, Date: now,
	}, true
}

// decisionNouns are the words a decision mail names its booking with: a
// stay's or a timed slot's.
type decisionNouns struct {
	Title, noun, released, another string
	// confirmed is the closing of a confirmation.
	confirmed func(s *Service, l business.Location) string
}

var (
	stayWords = decisionNouns{Title: "Reservation", noun: "reservation", released: "the room is released", another: "stay",
		confirmed: func(s *Service, _ business.Location) string { return s.confirmationMessage(reservation.Confirmed) }}
	slotWords = decisionNouns{Title: "Booking", noun: "booking", released: "its place is released", another: "time",
		confirmed: func(_ *Service, l business.Location) string {
			return fmt.Sprintf("Please be there a few minutes before the start. Questions: call %s.", l.Phone)
		}}
)

// decisionWords are the subject, opening and closing of the guest's mail
// about the staff decision r is in, named with w; false for a state the
// guest is not mailed about.
func (s *Service) decisionWords(r booked, l business.Location, w decisionNouns) (subject, opening, closing string, ok bool) {
	switch r.State {
	case reservation.Confirmed:
		return fmt.Sprintf("%s %s is confirmed", w.Title, r.Reference), fmt.Sprintf("Staff at %s have confirmed your %s.", l.Name, w.noun), w.confirmed(s, l), true
	case reservation.Declined:
		closing = fmt.Sprintf("No payment was taken. To find another %s, call %s.", w.another, l.Phone)
		if s.paidUnit(r, l) {
			closing = fmt.Sprintf("Anything paid for this request is refunded in full. To find another %s, call %s.", w.another, l.Phone)
		}
		return fmt.Sprintf("%s %s could not be accepted", w.Title, r.Reference),
			fmt.Sprintf("Staff at %s could not accept your %s request, and nothing is held for you.", l.Name, w.noun), closing, true
	case reservation.Cancelled:
		return fmt.Sprintf("%s %s is cancelled", w.Title, r.Reference),
			fmt.Sprintf("Staff at %s have cancelled your %s, and %s.", l.Name, w.noun, w.released), s.cancelledClosing(r, l), true
	}
	return "", "", "", false
}

// phoneOf is the phone of the location with slug, or the business's.
func phoneOf(s *Service, slug string) string {
	if l, ok := s.location(slug); ok {
		return l.Phone
	}
	return s.cfg.Business.Phone
}
