// Package inventory answers what is free and holds units through the
// store's availability index: nights for rooms, timed slots for services.
// Every channel holds through Hold, so the index's conditional write is
// the one place where the last unit is decided.
//
// It imports config, store and the internal civil helper only.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/store"
)

// Inventory reads and holds units for every location of a business.
type Inventory struct {
	index store.Index
}

// New returns an Inventory over the given index.
func New(index store.Index) *Inventory { return &Inventory{index: index} }

// Free is how many units of one type are free for a whole stay or slot.
type Free struct {
	Unit business.Unit
	Free int
	// Slots is the timed start checked (FreeSlots). FreeNights leaves it
	// empty: its caller knows the stay, and a search pricing 30 nights in
	// three places spent a sixth of its work listing them again.
	Slots []string
}

// Nights lists the nights of a stay as slots: checkin up to the night
// before checkout.
func Nights(checkin civil.Date, nights int) []string {
	out := make([]string, nights)
	for i := range out {
		out[i] = checkin.AddDays(i).String()
	}
	return out
}

// FreeNights returns, for every night unit of the location in config
// order, how many units are free on every night of the stay. It reads the
// index once for the location.
func (inv *Inventory) FreeNights(ctx context.Context, loc business.Location, checkin civil.Date, nights int) ([]Free, error) {
	counts, err := inv.index.Counts(ctx, loc.Slug, checkin.String(), checkin.AddDays(nights).String())
	if err != nil {
		return nil, fmt.Errorf("read availability: %w", err)
	}
	busiest := map[string]int{} // unit type → most units held on any night
	for _, c := range counts {
		if len(c.Slot) == len(time.DateOnly) && c.Held > busiest[c.Unit] {
			busiest[c.Unit] = c.Held
		}
	}
	// The night units are read in place (not through NightUnits, a copy)
	// and the answer sized first: a Free carries its unit, a few hundred
	// bytes, and each copy of every unit cost a find_rooms call.
	n := 0
	for i := range loc.Units {
		if loc.Units[i].Kind == business.KindNight {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]Free, 0, n)
	for i := range loc.Units {
		if u := &loc.Units[i]; u.Kind == business.KindNight {
			out = append(out, Free{Unit: *u, Free: max(0, u.Count-busiest[u.Type])})
		}
	}
	return out, nil
}

// TimedSlots lists the starts of a timed unit on one day: every Duration
// from Opens, each ending by Closes.
func TimedSlots(u business.Unit, day civil.Date) []string {
	if u.Kind != business.KindTimed || u.DurationMinutes <= 0 {
		return nil
	}
	// Built by hand rather than with Sprintf: availability queries list
	// every start of every day they read.
	prefix := day.String() + "T"
	var out []string
	for m := business.Minutes(u.Opens); m+u.DurationMinutes <= business.Minutes(u.Closes); m += u.DurationMinutes {
		h, mm := m/60, m%60
		out = append(out, prefix+string([]byte{byte('0' + h/10), byte('0' + h%10), ':', byte('0' + mm/10), byte('0' + mm%10)}))
	}
	return out
}

// Start is one start of a timed unit: its inventory slot and the
// instant it begins.
type Start struct {
	Slot string // "2026-03-02T06:00", as TimedSlots lists it
	At   time.Time
}

// TimedStarts lists the starts of a timed unit on one day that exist in
// zone: a daylight-saving change skips the starts of the hour it jumps.
func TimedStarts(u business.Unit, day civil.Date, zone *time.Location) []Start {
	slots := TimedSlots(u, day)
	out := make([]Start, 0, len(slots))
	for _, slot := range slots {
		if at, ok := day.Exact(business.Minutes(slot[len("2006-01-02T"):]), zone); ok {
			out = append(out, Start{Slot: slot, At: at})
		}
	}
	return out
}

// StartAt finds the start of a timed unit at local time slot
// ("2026-03-02T06:00"): ok is false for a time off the unit's grid, outside
// its hours or skipped by a daylight-saving change.
func StartAt(u business.Unit, slot string, zone *time.Location) (Start, bool) {
	date, _, _ := strings.Cut(slot, "T")
	day, err := civil.Parse(date)
	if err != nil {
		return Start{}, false
	}
	for _, st := range TimedStarts(u, day, zone) {
		if st.Slot == slot {
			return st, true
		}
	}
	return Start{}, false
}

// ErrStarted and ErrTooFarAhead refuse a slot outside the booking
// window: one that has begun, or one further ahead than the business
// takes bookings.
var (
	ErrStarted     = errors.New("inventory: the slot has already started")
	ErrTooFarAhead = errors.New("inventory: the slot is beyond the booking window")
)

// Window checks that a slot starting at start, on local day day, can be
// booked at now, at most advanceDays ahead of today in zone.
func Window(start time.Time, day civil.Date, now time.Time, zone *time.Location, advanceDays int) error {
	if !start.After(now) {
		return ErrStarted
	}
	if civil.Of(now, zone).AddDays(advanceDays).Before(day) {
		return ErrTooFarAhead
	}
	return nil
}

// FreeSlots returns how many places are free in each slot of a timed unit
// on one day. Count is the unit's capacity per slot.
func (inv *Inventory) FreeSlots(ctx context.Context, loc business.Location, u business.Unit, day civil.Date) ([]Free, error) {
	counts, err := inv.index.Counts(ctx, loc.Slug, day.String(), day.AddDays(1).String())
	if err != nil {
		return nil, fmt.Errorf("read availability: %w", err)
	}
	held := map[string]int{}
	for _, c := range counts {
		if c.Unit == u.Type {
			held[c.Slot] = c.Held
		}
	}
	starts := TimedSlots(u, day)
	out := make([]Free, 0, len(starts))
	for i, s := range starts {
		out = append(out, Free{Unit: u, Free: max(0, u.Count-held[s]), Slots: starts[i : i+1 : i+1]})
	}
	return out, nil
}

// ErrTaken means the last unit went to someone else; nothing was held.
var ErrTaken = errors.New("inventory: no unit is free for every slot")

// FreeEachNight returns, for every night unit of the location, how many
// units are free on each of days nights from first, in order. It reads
// the index once for the location, as FreeNights does.
func (inv *Inventory) FreeEachNight(ctx context.Context, loc business.Location, first civil.Date, days int) (map[string][]int, error) {
	counts, err := inv.index.Counts(ctx, loc.Slug, first.String(), first.AddDays(days).String())
	if err != nil {
		return nil, fmt.Errorf("read availability: %w", err)
	}
	held := map[string]int{} // unit type and night → units held
	for _, c := range counts {
		if len(c.Slot) == len(time.DateOnly) {
			held[c.Unit+" "+c.Slot] = c.Held
		}
	}
	out := map[string][]int{}
	for _, u := range loc.NightUnits() {
		free := make([]int, days)
		for i := range free {
			free[i] = max(0, u.Count-held[u.Type+" "+first.AddDays(i).String()])
		}
		out[u.Type] = free
	}
	return out, nil
}
