package booking

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
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
	business := route{phone: s.cfg.Business.Phone}
	if r := checkFields(args, lookupFields, business); r != nil {
		return nil, r
	}
	ref, l, refusal := s.parseReference(args, business)
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
// shape may get a field error, since it reveals nothing stored.
func (s *Service) parseReference(args Args, business route) (string, config.Location, *Refusal) {
	ref, _, ok := args.str("reservation_number", maxIdentifier)
	ref = strings.ToUpper(strings.TrimSpace(ref))
	l, known := s.locationByPrefix(ref)
	if !ok || !known || len(ref) > maxReference || !validReference(ref, l.Prefix) {
		return "", config.Location{}, assemble("bad_reference", sentBadReference, AssembleP, business, s.prefixList())
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

// failedLookups are the recent failures by reference.
type failedLookups struct {
	ByRef map[string][]time.Time `json:"by_ref"`
}

func (f *failedLookups) trim(now time.Time) {
	for ref, times := range f.ByRef {
		kept := times[:0]
		for _, t := range times {
			if t.After(now.Add(-time.Hour)) {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			delete(f.ByRef, ref)
		} else {
			f.ByRef[ref] = kept
		}
	}
}

// find returns a reservation for a reference and last four digits. Every
// well-formed private failure (absent, wrong digits, locked out, holding
// no room) gets the same answer; storage trouble never does.
func (s *Service) find(ctx context.Context, now time.Time, ref string, args Args, rt route) (booked, error) {
	last4, _, _ := args.str("phone_last4", 4)
	notFound := assemble("not_found", sentNotFound, AssembleNone, rt)
	down := assemble("lookup_down", sentLookupDown, AssembleNone, rt)
	fails, _, err := getJSON[failedLookups](ctx, s.st, kindLookups, "all")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return booked{}, down
	}
	fails.trim(now)
	if len(fails.ByRef[ref]) >= lookupFailures {
		return booked{}, notFound
	}
	r, err := s.getBooked(ctx, ref)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return booked{}, down
	case r.State != reservation.Requested && subtle.ConstantTimeCompare([]byte(LastFour(r.Contact.Phone)), []byte(last4)) == 1:
		s.clearLookups(ctx, now, ref)
		return r, nil
	}
	s.countFailedLookup(ctx, now, ref)
	return booked{}, notFound
}

func (s *Service) countFailedLookup(ctx context.Context, now time.Time, ref string) {
	_, err := update(ctx, s.st, kindLookups, "all", now, func(v *failedLookups) error {
		if v.ByRef == nil {
			v.ByRef = map[string][]time.Time{}
		}
		v.trim(now)
		v.ByRef[ref] = append(v.ByRef[ref], now)
		evictUnlocked(v, ref)
		return nil
	})
	if err != nil {
		s.log.WarnContext(ctx, "count failed lookup", "err", err)
	}
}

// evictUnlocked keeps at most lookupEntries counters that are not locked,
// dropping the ones whose last failure is oldest. Locked counters stay
// until they expire, so flooding cannot unlock a reference.
func evictUnlocked(v *failedLookups, keep string) {
	for {
		unlocked, oldest := 0, ""
		var oldestAt time.Time
		for ref, times := range v.ByRef {
			if len(times) >= lookupFailures {
				continue
			}
			unlocked++
			last := times[len(times)-1]
			if ref != keep && (oldest == "" || last.Before(oldestAt) || last.Equal(oldestAt) && ref < oldest) {
				oldest, oldestAt = ref, last
			}
		}
		if unlocked <= lookupEntries || oldest == "" {
			return
		}
		delete(v.ByRef, oldest)
	}
}

func (s *Service) clearLookups(ctx context.Context, now time.Time, ref string) {
	_, err := update(ctx, s.st, kindLookups, "all", now, func(v *failedLookups) error {
		if _, ok := v.ByRef[ref]; !ok {
			return errStop
		}
		delete(v.ByRef, ref)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		s.log.WarnContext(ctx, "clear lookups", "err", err)
	}
}
