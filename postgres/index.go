package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"frontdesk/store"
)

// maxAttempts bounds how often one slot's compare-and-swap is re-read and
// tried again. Every failed attempt means another writer committed, so the
// bound is only reached under pathological contention, which is reported
// as store.ErrConflict for the caller to retry.
const maxAttempts = 100

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot.
func (db *DB) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	rows, err := db.pool.Query(ctx, `SELECT unit, slot, held FROM slots
		WHERE location = $1 AND slot >= $2 AND slot < $3 AND held > 0
		ORDER BY unit, slot`, location, from, to)
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

// holdUnits takes h.Units units in every slot of h inside tx:
// store.ErrFull or store.ErrExists unwrapped, and on any error the caller
// rolls back the slots already taken.
func holdUnits(ctx context.Context, tx pgx.Tx, h store.Hold) error {
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
	_, err = tx.Exec(ctx, `INSERT INTO holds (id, location, unit, units, created_at)
		VALUES ($1, $2, $3, $4, $5)`, h.ID, h.Location, h.Unit, h.Units, at)
	if hasCode(err, uniqueViolation) {
		return store.ErrExists
	}
	if err != nil {
		return err
	}
	for _, slot := range slots {
		if err := takeSlot(ctx, tx, h, slot); err != nil {
			return err
		}
	}
	// One statement records every slot taken, saving a round trip a night.
	_, err = tx.Exec(ctx, `INSERT INTO hold_slots (hold_id, slot)
		SELECT $1, unnest($2::text[])`, h.ID, slots)
	return err
}

// takeSlot adds h.Units to one slot with a conditional write, re-reading
// after every write that did not apply. At READ COMMITTED each re-read
// sees the writes that beat this one.
func takeSlot(ctx context.Context, tx pgx.Tx, h store.Hold, slot string) error {
	for range maxAttempts {
		var held, version int64
		err := tx.QueryRow(ctx, `SELECT held, version FROM slots
			WHERE location = $1 AND unit = $2 AND slot = $3`, h.Location, h.Unit, slot).Scan(&held, &version)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if h.Units > h.Capacity {
				return store.ErrFull
			}
			// DO NOTHING turns a racing first insert into zero rows
			// affected instead of an error that would abort the
			// transaction: contention, so re-read and go again.
			tag, err := tx.Exec(ctx, `INSERT INTO slots (location, unit, slot, held, version)
				VALUES ($1, $2, $3, $4, 1) ON CONFLICT DO NOTHING`, h.Location, h.Unit, slot, h.Units)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				return nil
			}
		case err != nil:
			return err
		default:
			if held+int64(h.Units) > int64(h.Capacity) {
				return store.ErrFull
			}
			tag, err := tx.Exec(ctx, `UPDATE slots SET held = held + $1, version = version + 1
				WHERE location = $2 AND unit = $3 AND slot = $4 AND version = $5 AND held + $1 <= $6`,
				h.Units, h.Location, h.Unit, slot, version, h.Capacity)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				return nil
			}
		}
	}
	return store.ErrConflict
}

// releaseUnits gives back every unit of hold id inside tx, or returns
// store.ErrNotFound unwrapped. The instant is part of the contract for
// engines that record it; this schema keeps no release time, since the
// hold row is deleted.
func releaseUnits(ctx context.Context, tx pgx.Tx, id string) error {
	// Deleting is what claims the hold: of two racing releases, the second
	// waits on the first's row locks and then finds nothing. The slots go
	// first because deleting the hold would cascade to them.
	rows, err := tx.Query(ctx, `DELETE FROM hold_slots WHERE hold_id = $1 RETURNING slot`, id)
	if err != nil {
		return err
	}
	slots, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	// Every writer touches slots in the same order, so two transactions
	// cannot deadlock on them.
	slices.Sort(slots)

	var location, unit string
	var units int64
	err = tx.QueryRow(ctx, `DELETE FROM holds WHERE id = $1
		RETURNING location, unit, units`, id).Scan(&location, &unit, &units)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	for _, slot := range slots {
		if err := giveSlot(ctx, tx, location, unit, slot, units); err != nil {
			return err
		}
	}
	return nil
}

// giveSlot takes units back from one slot with a conditional write,
// re-reading after every write that did not apply.
func giveSlot(ctx context.Context, tx pgx.Tx, location, unit, slot string, units int64) error {
	for range maxAttempts {
		var held, version int64
		err := tx.QueryRow(ctx, `SELECT held, version FROM slots
			WHERE location = $1 AND unit = $2 AND slot = $3`, location, unit, slot).Scan(&held, &version)
		if err != nil {
			return fmt.Errorf("slot %s %s %s: %w", location, unit, slot, err)
		}
		if held < units {
			// The index lost track of this hold; refusing keeps the count
			// from going negative and the hold in place for inspection.
			return fmt.Errorf("slot %s %s %s holds %d, fewer than the %d released", location, unit, slot, held, units)
		}
		tag, err := tx.Exec(ctx, `UPDATE slots SET held = held - $1, version = version + 1
			WHERE location = $2 AND unit = $3 AND slot = $4 AND version = $5 AND held >= $1`,
			units, location, unit, slot, version)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
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
	rows, err := db.pool.Query(ctx, `SELECT id, location, unit, units, created_at FROM holds
		WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list holds: %w", err)
	}
	hs, err := pgx.AppendRows([]store.Hold(nil), rows, func(row pgx.CollectableRow) (store.Hold, error) {
		var h store.Hold
		var at int64
		if err := row.Scan(&h.ID, &h.Location, &h.Unit, &h.Units, &at); err != nil {
			return store.Hold{}, err
		}
		h.At = instant(at)
		return h, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list holds: %w", err)
	}
	return hs, nil
}

var _ store.Locker = (*DB)(nil)

// TryLock takes a session-level advisory lock on a connection of its own,
// kept until release, so that one instance on this schema runs a
// scheduled pass at a time. The lock goes with the session if the
// process dies.
func (db *DB) TryLock(ctx context.Context, name string) (func(), bool, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("try lock: %w", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext(current_schema() || '/' || $1))`, name).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, fmt.Errorf("try lock: %w", err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		// A failed unlock ends the session instead, which drops the lock.
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtext(current_schema() || '/' || $1))`, name); err != nil {
			conn.Conn().Close(context.Background())
		}
		conn.Release()
	}, true, nil
}
