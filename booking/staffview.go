package booking

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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

// noticeRetryWindow is how long notices are retried before they count as
// exhausted and need staff (§14: at least 36 hours).
const noticeRetryWindow = 36 * time.Hour

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
	Notices      []NoticeView
	// Checks are interrupted work to look at before acting.
	Checks []string
}

// NoticeView is one queued notice and its delivery so far.
type NoticeView struct {
	ID, To, Subject, State string
	Attempts               int
	CreatedAt, LastAt      time.Time
	NextAt                 time.Time
	// Exhausted means retries are over: staff must reach the guest.
	Exhausted bool
}

// staffLink is the address of a reservation on the staff screen, which
// staff mail links to; opening it needs a sign-in.
func (s *Service) staffLink(ref string) string {
	return s.pricer.URL("/staff/reservations/" + url.PathEscape(ref))
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
// ErrNoReservation, exactly as an absent one, so its existence is not
// revealed.
func (s *Service) StaffView(ctx context.Context, ref string, visible func(slug string) bool) (StaffView, error) {
	now := s.clock.Now()
	r, err := s.getBooked(ctx, ref)
	if errors.Is(err, store.ErrNotFound) || err == nil && !visible(r.Location) {
		return StaffView{}, ErrNoReservation
	}
	if err != nil {
		return StaffView{}, fmt.Errorf("read reservation: %w", err)
	}
	v := StaffView{Reservation: r.Reservation, Checkin: r.Checkin(), Checkout: r.Checkout(), Nights: r.Nights(),
		SourceLabel: SourceLabel(r.Source), Unread: r.chat.UncheckedProperties}
	v.AgreementAtCheckin = r.Source == reservation.SourceChat && r.chat.AgreementAtCheckin
	if v.Span, err = s.span(ctx, r); err != nil {
		return StaffView{}, err
	}
	if v.PhoneMatches, err = s.phoneMatches(ctx, r, visible); err != nil {
		return StaffView{}, err
	}
	if v.Notices, err = s.noticeViews(ctx, ref, now); err != nil {
		return StaffView{}, err
	}
	if v.Checks, err = s.checks(ctx, r, v.Notices, now); err != nil {
		return StaffView{}, err
	}
	return v, nil
}

// span is the connected span of r with its guest's other stays that hold
// or held a room, computed as the chat contact rules compute it.
func (s *Service) span(ctx context.Context, r booked) (int, error) {
	in, out, err := r.Stay()
	if err != nil || r.ContactKey == "" {
		return len(r.Slots), nil
	}
	list, err := reservation.List(ctx, s.st, store.ReservationFilter{
		ContactKey: r.ContactKey, From: in.AddDays(-s.cfg.Limits.MaxStayNights - s.cfg.Limits.AdjacencyGapNights - 1).String(),
		States: []string{string(reservation.Reserved), string(reservation.Confirmed), string(reservation.Completed)}, Limit: 1000,
	})
	if err != nil {
		return 0, fmt.Errorf("list the guest's stays: %w", err)
	}
	var held []stay
	for _, o := range list {
		if o.Reference == r.Reference {
			continue
		}
		if oin, oout, err := o.Stay(); err == nil {
			held = append(held, stay{oin, oout})
		}
	}
	return s.connectedSpan(held, stay{in, out}), nil
}

// phoneMatches are reservations from a year before this stay on whose
// stored phone has the same digits; a phone stored with an extension
// matches too, since the extension is not part of the digits.
func (s *Service) phoneMatches(ctx context.Context, r booked, visible func(string) bool) ([]reservation.Reservation, error) {
	p, ok := ParsePhone(r.Contact.Phone, s.cfg.Business.PhoneCountryCode)
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
		if q, ok := ParsePhone(o.Contact.Phone, s.cfg.Business.PhoneCountryCode); ok && q.Digits == p.Digits {
			out = append(out, o)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// noticeViews reads the queued notices of reference ref.
func (s *Service) noticeViews(ctx context.Context, ref string, now time.Time) ([]NoticeView, error) {
	rows, err := s.st.List(ctx, kindNotice, ref+"-", "", 100)
	if err != nil {
		return nil, fmt.Errorf("list notices: %w", err)
	}
	out := make([]NoticeView, 0, len(rows))
	for _, row := range rows {
		n, _, err := getJSON[notice](ctx, s.st, kindNotice, row.Key)
		if err != nil {
			return nil, err
		}
		v := NoticeView{ID: n.ID, To: strings.Join(n.Email.To, ", "), Subject: n.Email.Subject, State: n.State,
			Attempts: n.Attempts, CreatedAt: n.CreatedAt, LastAt: row.UpdatedAt, NextAt: n.NextAt}
		v.Exhausted = n.State != noticeSent && now.Sub(n.CreatedAt) >= noticeRetryWindow
		out = append(out, v)
	}
	return out, nil
}

// checks words the interrupted work around r that staff should look at
// before acting: a hold the index keeps that the reservation does not
// claim (or the reverse), a cancellation that began and did not finish,
// notices not delivered, and what the core flagged for attention.
func (s *Service) checks(ctx context.Context, r booked, notices []NoticeView, now time.Time) ([]string, error) {
	var out []string
	if r.Attention != "" {
		out = append(out, "Flagged for attention: "+r.Attention)
	}
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
	if id, _, err := getJSON[string](ctx, s.st, kindCancelOpen, r.Reference); err == nil {
		cn, _, err := getJSON[cancellation](ctx, s.st, kindCancel, id)
		switch {
		case err == nil && cn.State == stateCommitting:
			out = append(out, "Cancellation repair: the guest proved a chat cancellation that did not finish. Check the reservation's state before acting.")
		case err == nil && cn.State == stateOpen && now.Before(cn.Expires):
			out = append(out, "The guest is cancelling in chat: a cancellation code was sent and is still valid.")
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("read open cancellation: %w", err)
	}
	if r.State == reservation.Cancelled && !r.chat.CancelledAt.IsZero() && inIndex {
		out = append(out, "Cancellation repair: cancelled in chat but the room is still held.")
	}
	for _, n := range notices {
		switch {
		case n.Exhausted:
			out = append(out, fmt.Sprintf("Notice delivery exhausted: %q to %s was not delivered after %d attempts. Reach the guest another way; the reservation stands.", n.Subject, n.To, n.Attempts))
		case n.State != noticeSent:
			out = append(out, fmt.Sprintf("Notice delivery pending: %q to %s is %s; it will be retried. A failed email does not mean the reservation is absent.", n.Subject, n.To, n.State))
		}
	}
	return out, nil
}

// held reports whether the availability index holds units under hold ID
// ref.
func (s *Service) held(ctx context.Context, ref string) (bool, error) {
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
