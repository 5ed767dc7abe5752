package booking

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"frontdesk/internal/requestid"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Decision is a staff decision on one reservation: move it to To, on
// behalf of By, with an optional note for the audit.
type Decision struct {
	Reference string
	To        reservation.State
	By        string // the staff member, for the audit
	Note      string
	// Visible, when set, is the staff member's scope: a reservation at a
	// location it refuses is ErrNoReservation, as an absent one.
	Visible func(slug string) bool
	// From, when set, is the state the decision is taken from: a
	// reservation found in another state, or moved on meanwhile, is
	// refused with the code "answered" and nothing changes.
	From reservation.State
	// Quiet sends the guest no mail about the decision, when the page
	// that took it words the result itself.
	Quiet bool
}

// ErrNoReservation means no reservation has the reference asked for.
var ErrNoReservation = errors.New("booking: no such reservation")

// Decide applies a staff decision: a conditional transition of the
// reservation that releases its units and pending places when it stops
// holding them, records who decided, and queues the guest's mail, all in
// one transaction; the mail is then attempted once and otherwise left
// for the sweep. Accepting a request that holds nothing holds its units
// in the same transaction. It returns the reservation as decided and
// whether the guest's mail went out. The desk decides: an illegal move,
// and any decision on a tentative hold, is a *reservation.Error of code
// CodeIllegalTransition; an unknown reference ErrNoReservation; units
// gone meanwhile ErrUnitTaken.
func (s *Service) Decide(ctx context.Context, d Decision) (reservation.Reservation, bool, error) {
	now := s.clock.Now()
	by := d.By
	if by == "" {
		by = "staff"
	}
	mail := !d.Quiet
	for range maxCASAttempts {
		r, err := s.getBooked(ctx, d.Reference)
		if errors.Is(err, store.ErrNotFound) {
			return reservation.Reservation{}, false, ErrNoReservation
		}
		if err != nil {
			return reservation.Reservation{}, false, fmt.Errorf("read reservation: %w", err)
		}
		if d.Visible != nil && !d.Visible(r.Location) {
			return reservation.Reservation{}, false, ErrNoReservation
		}
		if d.From != "" && r.State != d.From {
			return r.Reservation, false, &Error{Code: "answered", Phone: phoneOf(s, r.Location)}
		}
		requestid.SetReference(ctx, r.Reference) // the request's lines name the reservation decided on
		l, _ := s.location(r.Location)
		unit, _ := l.Unit(r.Unit)
		// A confirmation links to the guest's own page, by a token of its
		// own: only its digest is stored, with the decision.
		token := ""
		if d.To == reservation.Confirmed {
			if token, err = s.NewGuestToken(); err != nil {
				return reservation.Reservation{}, false, err
			}
		}
		var notices []queuedNotice
		email := reservation.Addition{Refused: errNoticeTaken, Build: func(moved reservation.Reservation) []store.Write {
			link := ""
			if token != "" && moved.State == reservation.Confirmed {
				link = s.guestPageLink(token)
			}
			e, ok := s.decisionEmail(booked{Reservation: moved, chat: r.chat}, link, now)
			if !ok || !mail {
				return nil
			}
			var queue []store.Write
			notices, queue = newNotices(now, r.Reference, []message.Email{e})
			if link != "" {
				queue = append(queue, guestPageWrite(token, moved.Reference, now))
			}
			return queue
		}}
		moved, err := s.desk.Decide(ctx, reservation.Change{
			Read: r.Reservation, By: by, Note: d.Note, At: now, Unit: deskUnit(l, unit),
			Edit: func(m *reservation.Reservation) { m.Attention = "" }, // a decision answers whatever asked for attention
			Also: []reservation.Addition{email},
		}, d.To)
		switch reservation.ErrorCode(err) {
		case "":
			s.log.InfoContext(ctx, "staff decision", "location", r.Location, "reference", r.Reference, "to", string(d.To))
			sent := s.attemptNotices(ctx, now, notices)
			return moved, len(notices) > 0 && sent[notices[0].ID], nil
		case reservation.CodeConflict:
			if errors.Is(err, errNoticeTaken) {
				// The notice of this very decision exists: an earlier
				// decision to the same state, undone since. Decide
				// without mail rather than lose the decision.
				mail = false
			}
			continue // decided or changed meanwhile: read again
		case reservation.CodeUnitTaken, reservation.CodeIllegalTransition:
			return r.Reservation, false, err
		default:
			return reservation.Reservation{}, false, fmt.Errorf("save decision: %w", err)
		}
	}
	return reservation.Reservation{}, false, fmt.Errorf("decide: %w", store.ErrConflict)
}

// Reservations lists reservations for staff: one page matching f.
func (s *Service) Reservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error) {
	return reservation.List(ctx, s.st, f)
}

// decisionEmail is the guest's mail about a staff decision, when the
// decision has one and the guest gave an address.
func (s *Service) decisionEmail(r booked, link string, now time.Time) (message.Email, bool) {
	l, ok := s.location(r.Location)
	if _, _, err := r.Stay(); !ok || err != nil || r.Contact.Email == "" {
		return message.Email{}, false // the mails describe stays of nights
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
	case reservation.Cancelled:
		subject = fmt.Sprintf("Reservation %s is cancelled", r.Reference)
		opening = fmt.Sprintf("Staff at %s have cancelled your reservation, and the room is released.", l.Name)
		closing = fmt.Sprintf("No payment was taken, so nothing is refunded. Questions: call %s.", l.Phone)
	default:
		return message.Email{}, false
	}
	text := opening + "\n\n" + s.stayLines(r, l) + "\n" + closing + "\n"
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

// CommandRefusal words a refusal of the staff command cmd for the
// command line: the field problems of a bad request, by flag, and the
// desk's public message for what the core refused. ok is false for a
// fault, which is the caller's to log.
func CommandRefusal(cmd string, err error) (refusal error, ok bool) {
	if p, ok := errors.AsType[FormProblems](err); ok {
		fields := slices.Sorted(maps.Keys(p))
		lines := make([]string, 0, len(fields))
		for _, f := range fields {
			lines = append(lines, "--"+flagOf(f)+": "+p[f])
		}
		return fmt.Errorf("%s: %s", cmd, strings.Join(lines, "; ")), true
	}
	if errors.Is(err, ErrNoReservation) {
		return fmt.Errorf("%s: no such reservation", cmd), true
	}
	if e, ok := errors.AsType[*reservation.Error](err); ok {
		switch e.Code {
		case reservation.CodeIllegalTransition, reservation.CodeUnitTaken, reservation.CodeConflict:
			if e.Err == nil {
				return fmt.Errorf("%s: %s", cmd, e.Message), true
			}
			return fmt.Errorf("%s: %s (%w)", cmd, e.Message, e.Err), true
		}
	}
	return nil, false
}

// flagOf names the flag of a staff booking's field.
func flagOf(field string) string {
	if field == "roomtype" {
		return "unit"
	}
	if field == "dates" {
		return "checkin/--checkout"
	}
	return field
}
