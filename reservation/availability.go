package reservation

import (
	"context"
	"fmt"
)

// The guest site's availability calendar: how many units of each room
// type of a property are free on each night of the coming weeks. It
// reads the availability index as the search does and saves nothing.

// Availability reads the free units of the property with slug for days
// nights from today; an unknown slug is an error.
func (c *Core) Availability(ctx context.Context, slug string, days int) (Availability, error) {
	l, ok := c.Location(slug)
	if !ok {
		return Availability{}, fmt.Errorf("availability: no property %q", slug)
	}
	first := today(l, c.clock.Now())
	free, err := c.inv.FreeEachNight(ctx, l, first, days)
	if err != nil {
		return Availability{}, fmt.Errorf("availability: %w", err)
	}
	return Availability{First: first, Days: days, Free: free}, nil
}
