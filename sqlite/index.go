package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"frontdesk/store"
)

// maxAttempts bounds how often one slot's compare-and-swap is re-read and
// tried again. Every failed attempt means another writer succeeded, so the
// bound is only reached under pathological contention, which is reported
// as store.ErrConflict for the caller to retry.
const maxAttempts = 100

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot.
const countsSQL = `SELECT unit, slot, held FROM slots
	WHERE location = ? AND slot >= ? AND slot < ? AND held > 0
	ORDER BY unit, slot`

func (db *DB) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	rows, err := db.counts.QueryContext(ctx, location, from, to)
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	defer rows.Close()
	var cs []store.Count
	for rows.Next() {
		var c store.Count
		if err := rows.Scan(&c.Unit, &c.Slot, &c.Held); err != nil {
			return nil, fmt.Errorf("counts: %w", err)
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	return cs, nil
}

// The writer statements of the index, prepared once at Open like those of
// records, so a hold inside an Apply parses no SQL.
const (
	insertHoldSQL = `INSERT INTO holds (id, location, unit, units, created_at)
		VALUES (?, ?, ?, ?, ?)`
	insertHoldSlotSQL = `INSERT INTO hold_slots (hold_id, slot) VALUES (?, ?)`
	slotSQL           = `SELECT held, version FROM slots
		WHERE location = ? AND unit = ? AND slot = ?`
	insertSlotSQL = `INSERT INTO slots (location, unit, slot, held, version)
		VALUES (?, ?, ?, ?, 1) ON CONFLICT DO NOTHING`
	takeSlotSQL = `UPDATE slots SET held = held + ?, version = version + 1
		WHERE location = ? AND unit = ? AND slot = ? AND version = ? AND held + ? <= ?`
	deleteHoldSlotsSQL = `DELETE FROM hold_slots WHERE hold_id = ? RETURNING slot`
	deleteHoldSQL      = `DELETE FROM holds WHERE id = ?
		RETURNING location, unit, units`
	giveSlotSQL = `UPDATE slots SET held = held - ?, version = version + 1
		WHERE location = ? AND unit = ? AND slot = ? AND version = ? AND held >= ?`
)

// Hold takes h.Units units in every slot of h or none: store.ErrFull if
// any slot would pass h.Capacity, store.ErrExists if h.ID is taken. It is
// an Apply of one hold.
func (db *DB) Hold(ctx context.Context, h store.Hold) error {
	_, err := db.apply(ctx, []store.Write{{Op: store.OpHold, Hold: &h}})
	return store.OneWrite("hold", err)
}

// Release gives back every unit of hold id, or returns store.ErrNotFound.
// It is an Apply of one release.
func (db *DB) Release(ctx context.Context, id string, at time.Time) error {
	_, err := db.apply(ctx, []store.Write{{Op: store.OpRelease, Hold: &store.Hold{ID: id, At: at}}})
	return store.OneWrite("release", err)
}

// holdUnits takes h.Units units in every slot of h through q, which runs
// inside a transaction: store.ErrFull or store.ErrExists unwrapped, and on
// any error the caller rolls back the slots already taken.
func holdUnits(ctx context.Context, q querier, h store.Hold) error {
	slots, err := checkHold(h)
	if err != nil {
		return err
	}
	at, err := nanos(h.At)
	if err != nil {
		return err
	}
	// The hold row goes first: its primary key refuses a second hold with
	// the same ID before any slot is touched.
	_, err = q.ExecContext(ctx, insertHoldSQL, h.ID, h.Location, h.Unit, h.Units, at)
	if isUniqueViolation(err) {
		return store.ErrExists
	}
	if err != nil {
		return err
	}
	for _, slot := range slots {
		if err := takeSlot(ctx, q, h, slot); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, insertHoldSlotSQL, h.ID, slot); err != nil {
			return err
		}
	}
	return nil
}

// takeSlot adds h.Units to one slot with a conditional write, re-reading
// after every write that did not apply.
func takeSlot(ctx context.Context, q querier, h store.Hold, slot string) error {
	for range maxAttempts {
		var held, version int64
		err := q.QueryRowContext(ctx, slotSQL, h.Location, h.Unit, slot).Scan(&held, &version)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if h.Units > h.Capacity {
				return store.ErrFull
			}
			// DO NOTHING turns a racing first insert into zero rows
			// affected, which is contention: re-read and go again.
			res, err := q.ExecContext(ctx, insertSlotSQL, h.Location, h.Unit, slot, h.Units)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		case err != nil:
			return err
		default:
			if held+int64(h.Units) > int64(h.Capacity) {
				return store.ErrFull
			}
			res, err := q.ExecContext(ctx, takeSlotSQL,
				h.Units, h.Location, h.Unit, slot, version, h.Units, h.Capacity)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		}
	}
	return store.ErrConflict
}

// releaseUnits gives back every unit of hold id through q, which runs
// inside a transaction, or returns store.ErrNotFound unwrapped. The
// instant is part of the contract for engines that record it; this schema
// keeps no release time, since the hold row is deleted.
func releaseUnits(ctx context.Context, q querier, id string) error {
	// Deleting is what claims the hold: of two racing releases, only one
	// finds the rows to give back. The slots go first because deleting the
	// hold would cascade to them.
	slots, err := deleteHoldSlots(ctx, q, id)
	if err != nil {
		return err
	}
	var location, unit string
	var units int64
	err = q.QueryRowContext(ctx, deleteHoldSQL, id).Scan(&location, &unit, &units)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	for _, slot := range slots {
		if err := giveSlot(ctx, q, location, unit, slot, units); err != nil {
			return err
		}
	}
	return nil
}

// deleteHoldSlots removes and returns the slots of hold id, sorted so that
// every writer touches slots in the same order.
func deleteHoldSlots(ctx context.Context, q querier, id string) ([]string, error) {
	rows, err := q.QueryContext(ctx, deleteHoldSlotsSQL, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var slots []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		slots = append(slots, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(slots)
	return slots, nil
}

// giveSlot takes units back from one slot with a conditional write,
// re-reading after every write that did not apply.
func giveSlot(ctx context.Context, q querier, location, unit, slot string, units int64) error {
	for range maxAttempts {
		var held, version int64
		err := q.QueryRowContext(ctx, slotSQL, location, unit, slot).Scan(&held, &version)
		if err != nil {
			return fmt.Errorf("slot %s %s %s: %w", location, unit, slot, err)
		}
		if held < units {
			// The index lost track of this hold; refusing keeps the count
			// from going negative and the hold in place for inspection.
			return fmt.Errorf("slot %s %s %s holds %d, fewer than the %d released", location, unit, slot, held, units)
		}
		res, err := q.ExecContext(ctx, giveSlotSQL, units, location, unit, slot, version, units)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
	}
	return store.ErrConflict
}

// checkHold validates h and returns its slots sorted, so every writer takes
// row locks in the same order and two holds cannot deadlock.
func checkHold(h store.Hold) ([]string, error) {
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

// Holds returns up to limit holds whose IDs sort after after, in ID order.
func (db *DB) Holds(ctx context.Context, after string, limit int) ([]store.Hold, error) {
	if limit < 1 || limit > maxList {
		return nil, fmt.Errorf("list holds: limit %d must be from 1 to %d", limit, maxList)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT id, location, unit, units, created_at FROM holds
		WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list holds: %w", err)
	}
	defer rows.Close()
	var hs []store.Hold
	for rows.Next() {
		var h store.Hold
		var at int64
		if err := rows.Scan(&h.ID, &h.Location, &h.Unit, &h.Units, &at); err != nil {
			return nil, fmt.Errorf("list holds: %w", err)
		}
		h.At = instant(at)
		hs = append(hs, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list holds: %w", err)
	}
	return hs, nil
}
