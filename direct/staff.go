package direct

import (
	"context"
	"fmt"
	"time"

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
	var subject, opening, closing string
	switch r.State {
	case reservation.Confirmed:
		subject = fmt.Sprintf("Reservation %s is confirmed", r.Reference)
		opening = fmt.Sprintf("Staff at %s have confirmed your reservation.", l.Name)
		closing = s.confirmationMessage(r.State)
	case reservation.Declined:
		subject = fmt.Sprintf("Reservation %s could not be accepted", r.Reference)
		opening = fmt.Sprintf("Staff at %s could not accept your reservation request, and nothing is held for you.", l.Name)
		closing = fmt.Sprintf("No payment was taken. To find another stay, call %s.", l.Phone)
		if s.paidUnit(r, l) {
			closing = fmt.Sprintf("Anything paid for this request is refunded in full. To find another stay, call %s.", l.Phone)
		}
	case reservation.Cancelled:
		subject = fmt.Sprintf("Reservation %s is cancelled", r.Reference)
		opening = fmt.Sprintf("Staff at %s have cancelled your reservation, and the room is released.", l.Name)
		closing = s.cancelledClosing(r, l)
	default:
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

// phoneOf is the phone of the location with slug, or the business's.
func phoneOf(s *Service, slug string) string {
	if l, ok := s.location(slug); ok {
		return l.Phone
	}
	return s.cfg.Business.Phone
}
