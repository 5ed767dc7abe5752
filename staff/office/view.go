package office

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/reservation"
	"frontdesk/store"
)

// What the staff screen shows of one reservation (direct-booking.md §15):
// the reservation with its stay, the connected span of its guest's stays,
// the chat reminders and warnings, phone matches, notice delivery, and
// the interrupted work staff check before acting. It reads what the core
// records and changes nothing.

// StaffView is one reservation as the staff screen shows it.
type StaffView struct {
	reservation.Reservation
	Checkin, Checkout string
	Nights            int
	// Span is the connected span in nights of this stay with the guest's
	// other stays, by the rule chat bookings are checked with.
	Span int
	// SourceLabel names the door for people: "chat", "web form", "staff",
	// or "USP: " and the platform.
	SourceLabel string
	// AgreementAtCheckin: a chat guest signs the agreement at check-in.
	AgreementAtCheckin bool
	// Unread lists locations whose histories could not be read when the
	// chat reservation was checked.
	Unread []string
	// PhoneMatches are other reservations with the same phone number,
	// extensions ignored; only those the caller may see.
	PhoneMatches []reservation.Reservation
	Notices      []reservation.NoticeView
	// Checks are interrupted work to look at before acting.
	Checks []string
}

// SourceLabel names a reservation's source for people.
func SourceLabel(src reservation.Source) string {
	switch s := string(src); {
	case src == reservation.SourceForm:
		return "web form"
	case strings.HasPrefix(s, "usp:"):
		return "USP: " + strings.TrimPrefix(s, "usp:")
	default:
		return s
	}
}

// StaffView reads reservation ref for the staff screen. visible says
// which locations the caller may see; a reservation elsewhere is
// reservation.ErrNoReservation, exactly as an absent one, so its existence is not
// revealed.
func (s *Office) StaffView(ctx context.Context, ref string, visible func(slug string) bool) (StaffView, error) {
	if s.remote != nil {
		l, u, err := s.owner(ctx, ref)
		if err != nil {
			return StaffView{}, err
		}
		return s.remote.StaffView(ctx, l.Slug, u, ref)
	}
	now := s.clock.Now()
	r, chat, err := s.bookings.Booked(ctx, ref)
	if errors.Is(err, store.ErrNotFound) || err == nil && !visible(r.Location) {
		return StaffView{}, reservation.ErrNoReservation
	}
	if err != nil {
		return StaffView{}, fmt.Errorf("read reservation: %w", err)
	}
	v := StaffView{Reservation: r, Checkin: r.FirstSlot(), Checkout: checkout(r), Nights: len(r.Slots),
		SourceLabel: SourceLabel(r.Source), Unread: chat.Unread}
	v.AgreementAtCheckin = chat.AgreementAtCheckin
	if v.Span, err = s.bookings.Span(ctx, r); err != nil {
		return StaffView{}, err
	}
	if v.PhoneMatches, err = s.phoneMatches(ctx, r, visible); err != nil {
		return StaffView{}, err
	}
	if v.Notices, err = s.bookings.Notices(ctx, ref, now); err != nil {
		return StaffView{}, err
	}
	if v.Checks, err = s.checks(ctx, r, chat, v.Notices, now); err != nil {
		return StaffView{}, err
	}
	return v, nil
}

// phoneMatches are reservations from a year before this stay on whose
// stored phone has the same digits; a phone stored with an extension
// matches too, since the extension is not part of the digits.
func (s *Office) phoneMatches(ctx context.Context, r reservation.Reservation, visible func(string) bool) ([]reservation.Reservation, error) {
	p, ok := reservation.ParsePhone(r.Contact.Phone, s.cfg.Business.PhoneCountryCode)
	if !ok {
		return nil, nil
	}
	from := r.FirstSlot()
	if in, err := civil.Parse(from); err == nil {
		from = in.AddDays(-365).String()
	}
	var out []reservation.Reservation
	err := s.eachReservation(ctx, store.ReservationFilter{From: from}, func(o reservation.Reservation) error {
		if o.Reference == r.Reference || !visible(o.Location) {
			return nil
		}
		if q, ok := reservation.ParsePhone(o.Contact.Phone, s.cfg.Business.PhoneCountryCode); ok && q.Digits == p.Digits {
			out = append(out, o)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checks words the interrupted work around r that staff should look at
// before acting: a hold the index keeps that the reservation does not
// claim (or the reverse), a cancellation that began and did not finish,
// notices not delivered, and what the core flagged for attention.
func (s *Office) checks(ctx context.Context, r reservation.Reservation, chat reservation.ChatFacts, notices []reservation.NoticeView, now time.Time) ([]string, error) {
	var out []string
	if r.Attention != "" {
		out = append(out, "Flagged for attention: "+r.Attention)
	}
	out = append(out, chat.Unchecked...)
	inIndex, err := s.held(ctx, r.Reference)
	if err != nil {
		return nil, err
	}
	switch {
	case inIndex && !r.State.HoldsUnits():
		out = append(out, fmt.Sprintf("Interrupted hold: the availability index still holds a room for this reservation, which is %s. Check the room is free before selling it.", r.State))
	case !inIndex && r.State.HoldsUnits():
		out = append(out, "Interrupted hold: no room is held in the availability index for this reservation. Check a room is free before confirming.")
	}
	cancels, err := s.bookings.CancelChecks(ctx, r.Reference, now)
	if err != nil {
		return nil, err
	}
	out = append(out, cancels...)
	if r.State == reservation.Cancelled && !chat.CancelledAt.IsZero() && inIndex {
		out = append(out, "Cancellation repair: cancelled in chat but the room is still held.")
	}
	for _, n := range notices {
		switch {
		case n.Exhausted:
			out = append(out, fmt.Sprintf("Notice delivery exhausted: %q to %s was not delivered after %d attempts. Reach the guest another way; the reservation stands.", n.Subject, n.To, n.Attempts))
		case n.State != reservation.NoticeSent:
			out = append(out, fmt.Sprintf("Notice delivery pending: %q to %s is %s; it will be retried. A failed email does not mean the reservation is absent.", n.Subject, n.To, n.State))
		}
	}
	return out, nil
}

// checkout is the departure date: the day after the last night.
func checkout(r reservation.Reservation) string {
	_, out, err := r.Stay()
	if err != nil {
		return ""
	}
	return out.String()
}

// held reports whether the availability index holds units under hold ID
// ref.
func (s *Office) held(ctx context.Context, ref string) (bool, error) {
	// Holds lists IDs after a key; the longest key sorting before ref is
	// ref without its last byte, then every ID up to ref is skipped.
	after := ref[:len(ref)-1]
	for range 50 {
		page, err := s.st.Holds(ctx, after, 200)
		if err != nil {
			return false, fmt.Errorf("list holds: %w", err)
		}
		for _, h := range page {
			if h.ID == ref {
				return true, nil
			}
			if h.ID > ref {
				return false, nil
			}
		}
		if len(page) < 200 {
			return false, nil
		}
		after = page[len(page)-1].ID
	}
	return false, nil
}
