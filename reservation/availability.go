package reservation

import (
	"context"
	"fmt"

	"frontdesk/reservation"
)

// The guest site's availability calendar: how many units of each room
// type of a property are free on each night of the coming weeks. It
// reads the availability index as the search does and saves nothing.

// Availability reads the free units of the property with slug for days
// nights from today; an unknown slug is an error.
func (s *Service) Availability(ctx context.Context, slug string, days int) (reservation.Availability, error) {
	l, ok := s.location(slug)
	if !ok {
		return reservation.Availability{}, fmt.Errorf("availability: no property %q", slug)
	}
	first := s.today(l, s.clock.Now())
	free, err := s.inv.FreeEachNight(ctx, l, first, days)
	if err != nil {
		return reservation.Availability{}, fmt.Errorf("availability: %w", err)
	}
	return reservation.Availability{First: first, Days: days, Free: free}, nil
}
