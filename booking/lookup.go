package booking

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"frontdesk/config"
	"frontdesk/reservation"
	"frontdesk/store"
)

// LookupResult is what get_booking returns: no name, email or phone.
type LookupResult struct {
	OK                bool        `json:"ok"`
	ReservationNumber string      `json:"reservation_number"`
	Status            string      `json:"status"`
	Property          string      `json:"property"`
	RoomType          string      `json:"roomtype"`
	Checkin           string      `json:"checkin"`
	Checkout          string      `json:"checkout"`
	Total             json.Number `json:"total"`
}

var lookupFields = []string{"reservation_number", "phone_last4"}

// Lookup is get_booking.
func (s *Service) Lookup(ctx context.Context, c Caller, args Args) (*LookupResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	named := s.idRoute(args, "reservation_number")
	if r := checkFields(args, lookupFields, named); r != nil {
		return nil, r
	}
	ref, l, refusal := s.parseReference(args, named)
	if refusal != nil {
		return nil, refusal
	}
	rt := route{phone: l.Phone}
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	r, err := s.find(ctx, now, ref, args, rt)
	if err != nil {
		return nil, err
	}
	return &LookupResult{
		OK: true, ReservationNumber: r.Reference, Status: string(r.State), Property: l.Name, RoomType: r.Unit,
		Checkin: r.Checkin(), Checkout: r.Checkout(), Total: s.pricer.Amount(r.Total),
	}, nil
}

// parseReference checks reservation_number and phone_last4 syntax; a bad
// shape may get a field error, since it reveals nothing stored. named is
// the route of the location the reference's prefix names, if any.
func (s *Service) parseReference(args Args, named route) (string, config.Location, *Error) {
	ref, _, ok := args.str("reservation_number", maxIdentifier)
	ref = strings.ToUpper(strings.TrimSpace(ref))
	l, known := s.locationByPrefix(ref)
	if !ok || !known || len(ref) > maxReference || !validReference(ref, l.Prefix) {
		return "", config.Location{}, assemble("bad_reference", sentBadReference, AssembleP, named, s.prefixList())
	}
	last4, _, ok := args.str("phone_last4", 4)
	if !ok || len(last4) != 4 || !isDigits(last4) {
		return "", config.Location{}, assemble("bad_last4", sentBadLast4, AssembleP, route{phone: l.Phone})
	}
	return ref, l, nil
}

// validReference accepts PREFIX-16 uppercase hex, and the legacy
// five-character suffix.
func validReference(ref, prefix string) bool {
	rest, ok := strings.CutPrefix(ref, prefix+"-")
	if !ok {
		return false
	}
	if len(rest) == 16 {
		return isHex(rest, true)
	}
	if len(rest) == 5 {
		for _, r := range rest {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return true
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func (s *Service) prefixList() string {
	var p []string
	for _, l := range s.cfg.Locations {
		p = append(p, l.Prefix+"-")
	}
	if len(p) < 2 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " or " + p[len(p)-1]
}

// lookupTries are the tries at one reference in the last hour. A try is
// counted before the reservation is read and stays counted when it
// fails; a success clears them.
type lookupTries struct {
	Times []time.Time `json:"times"`
}

// live keeps the tries of the last hour.
func (l *lookupTries) live(now time.Time) {
	l.Times = slices.DeleteFunc(l.Times, func(t time.Time) bool { return !t.After(now.Add(-time.Hour)) })
}

// find returns a reservation for a reference and last four digits. Every
// well-formed private failure (absent, wrong digits, locked out, holding
// no room) gets the same answer; storage trouble never does. A try is
// claimed with a conditional write before the reservation is read, so
// parallel lookups evaluate no more guesses than the limit allows.
func (s *Service) find(ctx context.Context, now time.Time, ref string, args Args, rt route) (booked, error) {
	ctx, cancel := within(ctx, s.deadlines.Lookup)
	defer cancel()
	last4, _, _ := args.str("phone_last4", 4)
	notFound := assemble("not_found", sentNotFound, AssembleNone, rt)
	down := func(err error) error { return assemble("lookup_down", sentLookupDown, AssembleNone, rt).because(err) }
	for range maxCASAttempts {
		tries, version, err := getJSON[lookupTries](ctx, s.st, kindLookups, ref)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return booked{}, down(err)
		}
		tries.live(now)
		if len(tries.Times) >= lookupFailures {
			return booked{}, notFound
		}
		tries.Times = append(tries.Times, now)
		claimed, err := s.st.Apply(ctx, []store.Write{upsert(kindLookups, ref, tries, version, now)})
		if _, refused := errors.AsType[*store.WriteError](err); refused {
			continue // another lookup of this reference claimed first: count again
		}
		if err != nil {
			return booked{}, down(err)
		}
		r, err := s.getBooked(ctx, ref)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return booked{}, down(err)
		case r.State != reservation.Requested && subtle.ConstantTimeCompare([]byte(LastFour(r.Contact.Phone)), []byte(last4)) == 1:
			// A success clears the tries; failing to is the safe side.
			if err := s.st.Delete(ctx, kindLookups, ref, claimed[0].Version); err != nil {
				s.log.WarnContext(ctx, "clear lookups", "err", err)
			}
			return r, nil
		}
		return booked{}, notFound
	}
	return booked{}, down(store.ErrConflict)
}
