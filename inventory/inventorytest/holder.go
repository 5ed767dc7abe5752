// Package inventorytest holds units straight in an availability index,
// as an interrupted or stray hold leaves them, for tests that set the
// index up by hand. Outside tests only the reservation desk holds and
// releases.
package inventorytest

import (
	"context"
	"errors"
	"time"

	"frontdesk/business"
	"frontdesk/inventory"
	"frontdesk/store"
)

// Holder holds and releases units of Index.
type Holder struct{ Index store.Index }

// Hold takes one unit of u for every slot, or none, under id:
// inventory.ErrTaken when one is full, store.ErrExists for a held id.
func (h Holder) Hold(ctx context.Context, id string, loc business.Location, u business.Unit, slots []string, now time.Time) error {
	err := h.Index.Hold(ctx, store.Hold{ID: id, Location: loc.Slug, Unit: u.Type, Slots: slots, Units: 1, Capacity: u.Count, At: now})
	if errors.Is(err, store.ErrFull) {
		return inventory.ErrTaken
	}
	return err
}

// Release gives back the units of hold id.
func (h Holder) Release(ctx context.Context, id string, now time.Time) error {
	return h.Index.Release(ctx, id, now)
}
