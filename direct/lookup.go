package direct

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/quota"
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

// LookupRequest names a reservation: its reference as printed, with its
// location prefix, and the last four digits of its contact phone. A door
// checks their shapes first (ValidReference); a malformed reference is
// simply not found.
type LookupRequest struct {
	Reference string
	Last4     string
}

// Lookup is get_booking.
func (s *Service) Lookup(ctx context.Context, c reservation.Caller, req LookupRequest) (*LookupResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	l, rt := s.referenceRoute(req.Reference)
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	r, err := s.find(ctx, now, req.Reference, req.Last4, rt)
	if err != nil {
		return nil, err
	}
	return &LookupResult{
		OK: true, ReservationNumber: r.Reference, Status: string(r.State), Property: l.Name, RoomType: r.Unit,
		Checkin: r.Checkin(), Checkout: r.Checkout(), Total: s.pricer.Amount(r.Total),
	}, nil
}

// referenceRoute is the location an identifier or reference names and
// the route of its answers: that location's phone, or the business phone
// when the prefix names none.
func (s *Service) referenceRoute(id string) (business.Location, route) {
	l, known := s.locationByPrefix(id)
	if !known {
		return l, route{phone: s.cfg.Business.Phone}
	}
	return l, route{phone: l.Phone}
}

// ValidReference reports whether ref has the shape of a reservation
// number of location l: its prefix, a dash and 16 uppercase hex
// characters, or the legacy five-character suffix.
func ValidReference(ref string, l business.Location) bool {
	if len(ref) > maxReference {
		return false
	}
	rest, ok := strings.CutPrefix(ref, l.Prefix+"-")
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

// lookupTries is the window of tries at one reference, counted in the
// store counter lookupCounter names. A try is counted before the
// reservation is read and stays counted when it fails; a success clears
// them.
var lookupTries = quota.Window{Limit: lookupFailures, Span: time.Hour}

func lookupCounter(ref string) string { return kindLookups + "/" + ref }

// find returns a reservation for a reference and last four digits. Every
// well-formed private failure (absent, wrong digits, locked out, holding
// no room) gets the same answer; storage trouble never does. A try is
// claimed with a conditional write before the reservation is read, so
// parallel lookups evaluate no more guesses than the limit allows; the
// lookups of one reference claim theirs in line (tryLines), so that a
// burst of them never waits on the store past its deadline.
func (s *Service) find(ctx context.Context, now time.Time, ref, last4 string, rt route) (booked, error) {
	name := lookupCounter(ref)
	g, evaluate := s.tries.join(name, last4)
	defer s.tries.leave(name, g)
	if evaluate {
		// The guess answers every lookup that joined it, so a caller
		// who goes away does not cut it short for the others.
		g.r, g.err = s.evaluate(context.WithoutCancel(ctx), now, g, name, ref, last4, rt)
		close(g.done)
	} else {
		select {
		case <-g.done:
		case <-ctx.Done():
			return booked{}, because(refuse(CodeLookupDown, rt), ctx.Err())
		}
	}
	if e, ok := g.err.(*Error); ok {
		c := *e // each door words its own copy
		return g.r, &c
	}
	return g.r, g.err
}

// evaluate claims a try for guess g and, when one is left, checks it.
func (s *Service) evaluate(ctx context.Context, now time.Time, g *guess, name, ref, last4 string, rt route) (booked, error) {
	ctx, cancel := within(ctx, s.deadlines.Lookup)
	defer cancel()
	notFound := refuse(CodeNotFound, rt)
	down := func(err error) error { return because(refuse(CodeLookupDown, rt), err) }
	err := s.claimTry(ctx, now, g, name)
	if errors.Is(err, store.ErrFull) {
		return booked{}, notFound
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
		clear := store.Write{Op: store.OpClear, Tally: &store.Tally{Name: name}}
		if _, err := s.st.Apply(ctx, []store.Write{clear}); err != nil {
			s.log.WarnContext(ctx, "clear lookups", "err", err)
		}
		return r, nil
	}
	if err := s.capLookups(ctx, now); err != nil {
		// The cap is housekeeping: the sweep drops old counters anyway.
		s.log.WarnContext(ctx, "cap lookup counters", "err", err)
	}
	return booked{}, notFound
}

// claimTry takes one try of counter name for g in its line's turn, or
// returns store.ErrFull when none is left.
func (s *Service) claimTry(ctx context.Context, now time.Time, g *guess, name string) error {
	select {
	case g.line.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.line.turn }()
	full, joined := s.tries.started(g, now)
	if full {
		return store.ErrFull
	}
	_, err := s.st.Apply(ctx, []store.Write{lookupTries.Take(name, now)})
	if errors.Is(err, store.ErrFull) {
		s.tries.refused(g, joined, s.triesFreeAt(ctx, name, now))
	}
	return err
}

// triesFreeAt is when the full window of counter name frees a try, or
// the zero time when it cannot tell: the newest Limit tries are what
// keep it full.
func (s *Service) triesFreeAt(ctx context.Context, name string, now time.Time) time.Time {
	times, err := lookupTries.Times(ctx, s.st, name, now)
	if n := len(times) - lookupTries.Limit; err == nil && n >= 0 {
		return times[n].Add(lookupTries.Span)
	}
	return time.Time{}
}
