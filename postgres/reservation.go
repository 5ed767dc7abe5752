package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"frontdesk/store"
)

// reservationColumns are the columns of a reservation row in the order
// every statement here reads and writes them.
const reservationColumns = `reference, location, unit, first_slot, last_slot, state, source, contact_key, value, version, updated_at`

// GetReservation returns the reservation with this reference, or
// store.ErrNotFound.
func (db *DB) GetReservation(ctx context.Context, reference string) (store.Reservation, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+reservationColumns+` FROM reservations WHERE reference = $1`, reference)
	if err != nil {
		return store.Reservation{}, fmt.Errorf("get reservation: %w", err)
	}
	rs, err := scanReservations(rows)
	if err != nil {
		return store.Reservation{}, fmt.Errorf("get reservation: %w", err)
	}
	if len(rs) == 0 {
		return store.Reservation{}, fmt.Errorf("get reservation: %w", store.ErrNotFound)
	}
	return rs[0], nil
}

// ListReservations returns up to f.Limit reservations matching f, in order
// of first slot then reference, after f.After.
func (db *DB) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	if f.Limit < 1 || f.Limit > maxList {
		return nil, fmt.Errorf("list reservations: limit %d must be from 1 to %d", f.Limit, maxList)
	}
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", fmt.Sprintf("$%d", len(args))))
	}
	if f.Location != "" {
		add(`location = $?`, f.Location)
	}
	if f.From != "" {
		add(`last_slot >= $?`, f.From)
	}
	if f.To != "" {
		add(`first_slot < $?`, f.To)
	}
	if len(f.States) > 0 {
		add(`state = ANY($?)`, f.States)
	}
	if f.Source != "" {
		add(`source = $?`, f.Source)
	}
	if f.ContactKey != "" {
		add(`contact_key = $?`, f.ContactKey)
	}
	if f.After != (store.ReservationCursor{}) {
		args = append(args, f.After.FirstSlot, f.After.Reference)
		where = append(where, fmt.Sprintf(`(first_slot, reference) > ($%d, $%d)`, len(args)-1, len(args)))
	}
	query := `SELECT ` + reservationColumns + ` FROM reservations`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	args = append(args, f.Limit)
	query += fmt.Sprintf(` ORDER BY first_slot, reference LIMIT $%d`, len(args))
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	rs, err := scanReservations(rows)
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	return rs, nil
}

func scanReservations(rows pgx.Rows) ([]store.Reservation, error) {
	// AppendRows onto nil gives nil for no rows, as the SQLite engine does.
	return pgx.AppendRows([]store.Reservation(nil), rows, func(row pgx.CollectableRow) (store.Reservation, error) {
		var r store.Reservation
		var at int64
		if err := row.Scan(&r.Reference, &r.Location, &r.Unit, &r.FirstSlot, &r.LastSlot, &r.State,
			&r.Source, &r.ContactKey, &r.Value, &r.Version, &at); err != nil {
			return store.Reservation{}, err
		}
		r.Value = nonNil(r.Value)
		r.UpdatedAt = instant(at)
		return r, nil
	})
}

// putReservation creates or swaps one reservation row inside tx,
// returning the refusal sentinels unwrapped.
func putReservation(ctx context.Context, tx pgx.Tx, op store.Op, r *store.Reservation) error {
	if r == nil {
		return fmt.Errorf("op %d without a reservation", op)
	}
	if r.Reference == "" {
		return errors.New("reservation without a reference")
	}
	at, err := nanos(r.UpdatedAt)
	if err != nil {
		return err
	}
	value := nonNil(r.Value)
	if op == store.OpCreateReservation {
		_, err := tx.Exec(ctx, `INSERT INTO reservations (`+reservationColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10)`,
			r.Reference, r.Location, r.Unit, r.FirstSlot, r.LastSlot, r.State, r.Source, r.ContactKey, value, at)
		if hasCode(err, uniqueViolation) {
			return store.ErrExists
		}
		return err
	}
	tag, err := tx.Exec(ctx, `UPDATE reservations
		SET location = $1, unit = $2, first_slot = $3, last_slot = $4, state = $5, source = $6,
			contact_key = $7, value = $8, version = version + 1, updated_at = $9
		WHERE reference = $10 AND version = $11`,
		r.Location, r.Unit, r.FirstSlot, r.LastSlot, r.State, r.Source, r.ContactKey, value, at, r.Reference, r.Version)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	var one int
	err = tx.QueryRow(ctx, `SELECT 1 FROM reservations WHERE reference = $1`, r.Reference).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	return store.ErrConflict
}
