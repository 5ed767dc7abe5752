package direct

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"frontdesk/reservation"
	"frontdesk/store"
)

// What the staff screen (staff/office) reads of direct booking: a
// reservation's chat details and connected span, its queued notices, a
// chat cancellation under way, and the send times a ceiling admitted.
// The staff screen assembles its views from these; the records stay
// direct booking's own.

// NoticeRetryWindow is how long notices are retried before they count as
// exhausted and need staff (§14: at least 36 hours).
const NoticeRetryWindow = 36 * time.Hour

// Booked reads reservation ref with its chat details; an absent one is
// store.ErrNotFound.
func (s *Service) Booked(ctx context.Context, ref string) (reservation.Reservation, reservation.ChatFacts, error) {
	r, err := s.getBooked(ctx, ref)
	if err != nil {
		return reservation.Reservation{}, reservation.ChatFacts{}, err
	}
	facts := reservation.ChatFacts{Unread: r.chat.UncheckedProperties,
		AgreementAtCheckin: r.Source == reservation.SourceChat && r.chat.AgreementAtCheckin,
		CancelledAt:        r.chat.CancelledAt}
	if r.chat.GroupPendingUnread {
		facts.Unchecked = append(facts.Unchecked, uncheckedGroupPending)
	}
	return r.Reservation, facts, nil
}

// uncheckedGroupPending tells staff that the group's pending ceiling was
// not applied to a reservation (§10: the hub's pending count could not be
// read, and the location's own ceiling bounded it alone).
const uncheckedGroupPending = "The group's count of chat reservations awaiting staff could not be read when this booking was checked: only this location's own limit was applied. Check the group's reservations awaiting confirmation before confirming."

// Store is the store the service reads, every request under its limit.
func (s *Service) Store() store.Store { return s.st }

// Span is the connected span of r with its guest's other stays that hold
// or held a room, computed as the chat contact rules compute it.
func (s *Service) Span(ctx context.Context, r reservation.Reservation) (int, error) {
	in, out, err := r.Stay()
	if err != nil || r.ContactKey == "" {
		return len(r.Slots), nil
	}
	// The guest's stays are read under every live version of the secret.
	keys := []string{r.ContactKey}
	if e, ok := reservation.ParseEmail(r.Contact.Email); ok {
		all, err := s.keyedAll(ctx, s.clock.Now(), "mailbox", e.Normalized)
		if err != nil {
			return 0, err
		}
		for _, k := range all {
			if k != r.ContactKey {
				keys = append(keys, k)
			}
		}
	}
	list, err := s.heldBy(ctx, keys, in.AddDays(-s.cfg.Limits.MaxStayNights-s.cfg.Limits.AdjacencyGapNights-1))
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

// Notices reads the queued notices of reference ref, once the outcomes
// this process is still storing for them are stored.
func (s *Service) Notices(ctx context.Context, ref string, now time.Time) ([]reservation.NoticeView, error) {
	s.after.wait(ctx, func(id string) bool { return strings.HasPrefix(id, ref+"-") })
	rows, err := s.st.List(ctx, kindNotice, ref+"-", "", 100)
	if err != nil {
		return nil, fmt.Errorf("list notices: %w", err)
	}
	out := make([]reservation.NoticeView, 0, len(rows))
	for _, row := range rows {
		n, _, err := getJSON[notice](ctx, s.st, kindNotice, row.Key)
		if err != nil {
			return nil, err
		}
		v := reservation.NoticeView{ID: n.ID, To: strings.Join(n.Email.To, ", "), Subject: n.Email.Subject, State: n.State,
			Attempts: n.Attempts, CreatedAt: n.CreatedAt, LastAt: row.UpdatedAt, NextAt: n.NextAt}
		v.Exhausted = n.State != noticeSent && now.Sub(n.CreatedAt) >= NoticeRetryWindow
		out = append(out, v)
	}
	return out, nil
}

// CancelChecks words a chat cancellation of reference ref that began and
// did not finish, for staff to look at before acting.
func (s *Service) CancelChecks(ctx context.Context, ref string, now time.Time) ([]string, error) {
	var out []string
	if id, _, err := getJSON[string](ctx, s.st, kindCancelOpen, ref); err == nil {
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
	return out, nil
}

// staffLink is the address of a reservation on the staff screen, which
// staff mail links to; opening it needs a sign-in.
func (s *Service) staffLink(ref string) string {
	return s.pricer.URL("/staff/reservations/" + url.PathEscape(ref))
}

// AdmissionTimes returns the send times a budget's window of the given
// length counts now, oldest first.
func (s *Service) AdmissionTimes(ctx context.Context, key string, now time.Time, window time.Duration) ([]time.Time, error) {
	for _, c := range (budget{key: key, hourly: 1, daily: 1}).counters() {
		if c.Span == window {
			return c.Times(ctx, s.st, c.name, now)
		}
	}
	return nil, fmt.Errorf("no %v window", window)
}

// The keys under which the adjustable code ceilings count admissions:
// the group's booking codes, the group's cancellation codes, and one
// location's booking codes.
func (s *Service) GroupBookingKey() string { return s.groupBookingBudget(reservation.Settings{}).key }
func (s *Service) CancelGroupKey() string  { return s.cancelGroupBudget(reservation.Settings{}).key }
func (s *Service) LocationBookingKey(slug string) string {
	return s.locationBudget(reservation.Settings{}, slug).key
}

// PendingScope is the pending ceiling's scope of location slug, or of
// the group for "".
func (s *Service) PendingScope(slug string) string {
	if slug == "" {
		return scopeGroup
	}
	return scopeLocation(slug)
}
