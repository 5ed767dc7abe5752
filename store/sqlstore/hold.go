package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"frontdesk/store"
)

// maxAttempts bounds how often one slot's compare-and-swap is re-read and
// tried again. Every failed attempt means another writer succeeded, so the
// bound is only reached under pathological contention, which is reported
// as store.ErrConflict for the caller to retry.
const maxAttempts = 100

// The index statements both engines run.
const (
	CountsSQL = `SELECT unit, slot, held FROM slots
		WHERE location = $1 AND slot >= $2 AND slot < $3 AND held > 0
		ORDER BY unit, slot`
	InsertHoldSQL = `INSERT INTO holds (id, location, unit, units, created_at)
		VALUES ($1, $2, $3, $4, $5)`
	SlotSQL = `SELECT held, version FROM slots
		WHERE location = $1 AND unit = $2 AND slot = $3`
	// ON CONFLICT DO NOTHING turns a racing first insert into zero rows
	// changed instead of an error that would abort the transaction.
	InsertSlotSQL = `INSERT INTO slots (location, unit, slot, held, version)
		VALUES ($1, $2, $3, $4, 1) ON CONFLICT DO NOTHING`
	TakeSlotSQL = `UPDATE slots SET held = held + $1, version = version + 1
		WHERE location = $2 AND unit = $3 AND slot = $4 AND version = $5 AND held + $1 <= $6`
	DeleteHoldSlotsSQL = `DELETE FROM hold_slots WHERE hold_id = $1 RETURNING slot`
	DeleteHoldSQL      = `DELETE FROM holds WHERE id = $1
		RETURNING location, unit, units`
	GiveSlotSQL = `UPDATE slots SET held = held - $1, version = version + 1
		WHERE location = $2 AND unit = $3 AND slot = $4 AND version = $5 AND held >= $1`
	holdsSQL = `SELECT id, location, unit, units, created_at FROM holds
		WHERE id > $1 ORDER BY id LIMIT $2`
)

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot, read through q.
func Counts(ctx context.Context, q Querier, location, from, to string) ([]store.Count, error) {
	return collect(ctx, q, CountsSQL, []any{location, from, to}, func(scan func(...any) error) (store.Count, error) {
		var c store.Count
		err := scan(&c.Unit, &c.Slot, &c.Held)
		return c, err
	})
}

// Hold takes h.Units units in every slot of h through q, which runs
// inside a transaction: store.ErrFull or store.ErrExists unwrapped, and on
// any error the caller rolls back the slots already taken.
func (d *Dialect) Hold(ctx context.Context, q Querier, h store.Hold) error {
	slots, err := CheckHold(h)
	if err != nil {
		return err
	}
	at, err := Nanos(h.At)
	if err != nil {
		return err
	}
	// The hold row goes first: its primary key refuses a second hold with
	// the same ID before any slot is touched.
	_, err = q.Exec(ctx, InsertHoldSQL, h.ID, h.Location, h.Unit, h.Units, at)
	if d.IsUnique(err) {
		return store.ErrExists
	}
	if err != nil {
		return err
	}
	for _, slot := range slots {
		if err := takeSlot(ctx, q, h, slot); err != nil {
			return err
		}
	}
	// One statement records every slot taken, saving a round trip a slot.
	_, err = q.Exec(ctx, d.InsertHoldSlots, h.ID, d.SlotList(slots))
	return err
}

// takeSlot adds h.Units to one slot with a conditional write, re-reading
// after every write that did not apply. At READ COMMITTED each re-read
// sees the writes that beat this one.
func takeSlot(ctx context.Context, q Querier, h store.Hold, slot string) error {
	for range maxAttempts {
		var held, version int64
		found, err := q.QueryRow(ctx, SlotSQL, []any{h.Location, h.Unit, slot}, &held, &version)
		var n int64
		switch {
		case err != nil:
			return err
		case !found:
			if h.Units > h.Capacity {
				return store.ErrFull
			}
			n, err = q.Exec(ctx, InsertSlotSQL, h.Location, h.Unit, slot, h.Units)
		default:
			if held+int64(h.Units) > int64(h.Capacity) {
				return store.ErrFull
			}
			n, err = q.Exec(ctx, TakeSlotSQL, h.Units, h.Location, h.Unit, slot, version, h.Capacity)
		}
		// No row changed is contention: re-read and go again.
		if err != nil || n == 1 {
			return err
		}
	}
	return store.ErrConflict
}

// Release gives back every unit of hold id through q, which runs inside a
// transaction, or returns store.ErrNotFound unwrapped. The instant is part
// of the contract for engines that record it; these schemas keep no
// release time, since the hold row is deleted.
func Release(ctx context.Context, q Querier, id string) error {
	// Deleting is what claims the hold: of two racing releases, the second
	// waits on the first's locks and then finds nothing. The slots go
	// first because deleting the hold would cascade to them.
	slots, err := collect(ctx, q, DeleteHoldSlotsSQL, []any{id}, func(scan func(...any) error) (string, error) {
		var s string
		err := scan(&s)
		return s, err
	})
	if err != nil {
		return err
	}
	// Every writer touches slots in the same order, so two transactions
	// cannot deadlock on them.
	slices.Sort(slots)

	var location, unit string
	var units int64
	found, err := q.QueryRow(ctx, DeleteHoldSQL, []any{id}, &location, &unit, &units)
	if err != nil {
		return err
	}
	if !found {
		return store.ErrNotFound
	}
	for _, slot := range slots {
		if err := giveSlot(ctx, q, location, unit, slot, units); err != nil {
			return err
		}
	}
	return nil
}

// giveSlot takes units back from one slot with a conditional write,
// re-reading after every write that did not apply.
func giveSlot(ctx context.Context, q Querier, location, unit, slot string, units int64) error {
	for range maxAttempts {
		var held, version int64
		found, err := q.QueryRow(ctx, SlotSQL, []any{location, unit, slot}, &held, &version)
		if err == nil && !found {
			err = errors.New("no such slot")
		}
		if err != nil {
			return fmt.Errorf("slot %s %s %s: %w", location, unit, slot, err)
		}
		if held < units {
			// The index lost track of this hold; refusing keeps the count
			// from going negative and the hold in place for inspection.
			return fmt.Errorf("slot %s %s %s holds %d, fewer than the %d released", location, unit, slot, held, units)
		}
		n, err := q.Exec(ctx, GiveSlotSQL, units, location, unit, slot, version)
		if err != nil || n == 1 {
			return err
		}
	}
	return store.ErrConflict
}

// CheckHold validates h and returns its slots sorted, so every writer
// takes row locks in the same order and two holds cannot deadlock.
func CheckHold(h store.Hold) ([]string, error) {
	switch {
	case h.ID == "" || h.Location == "" || h.Unit == "":
		return nil, errors.New("id, location and unit are required")
	case h.Units < 1:
		return nil, fmt.Errorf("units %d must be at least 1", h.Units)
	case len(h.Slots) == 0:
		return nil, errors.New("at least one slot is required")
	}
	slots := slices.Clone(h.Slots)
	slices.Sort(slots)
	for i, s := range slots {
		if s == "" {
			return nil, errors.New("empty slot")
		}
		if i > 0 && s == slots[i-1] {
			return nil, fmt.Errorf("slot %s listed twice", s)
		}
	}
	return slots, nil
}

// Holds returns up to limit holds whose IDs sort after after, in ID order,
// read through q.
func Holds(ctx context.Context, q Querier, after string, limit int) ([]store.Hold, error) {
	if limit < 1 || limit > MaxList {
		return nil, fmt.Errorf("limit %d must be from 1 to %d", limit, MaxList)
	}
	return collect(ctx, q, holdsSQL, []any{after, limit}, func(scan func(...any) error) (store.Hold, error) {
		var h store.Hold
		var at int64
		err := scan(&h.ID, &h.Location, &h.Unit, &h.Units, &at)
		h.At = Instant(at)
		return h, err
	})
}
