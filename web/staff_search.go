package web

import (
	"context"
	"errors"
	"slices"

	"frontdesk/reservation"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// Search of the reservation list by guest name, email, phone or
// reference. The core reads the index of terms (reservation.Search), so a
// search costs what its matches cost in any amount of history; the
// list's other filters (state, source, dates) narrow its matches here.

const (
	// searchFetched bounds how many matches one search reads before the
	// list's filters narrow them.
	searchFetched = 500
	// searchShown bounds how many matches it shows.
	searchShown = 50
)

// search returns the reservations of f that q finds, nearest first;
// with the *office.NotRead of a split hub's read, the others' matches.
func (s *StaffScreen) search(ctx context.Context, f store.ReservationFilter, q string) ([]reservation.Reservation, error) {
	found, err := s.Core.Search(ctx, q, f.Location, searchFetched)
	if errors.Is(err, reservation.ErrEmptySearch) {
		return nil, nil
	}
	if _, partly := office.NotReadOf(err); err != nil && !partly {
		return nil, err
	}
	out := slices.DeleteFunc(found, func(r reservation.Reservation) bool { return !inFilter(r, f) })
	return out[:min(len(out), searchShown)], err
}

// inFilter reports whether r passes f's state, source and date filters,
// as the store applies them to a listing.
func inFilter(r reservation.Reservation, f store.ReservationFilter) bool {
	switch {
	case len(f.States) > 0 && !slices.Contains(f.States, string(r.State)):
		return false
	case f.Source != "" && string(r.Source) != f.Source:
		return false
	case f.From != "" && r.LastSlot() < f.From:
		return false
	case f.To != "" && r.FirstSlot() >= f.To:
		return false
	}
	return true
}
