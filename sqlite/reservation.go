package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"frontdesk/store"
)

// reservationColumns are the columns of a reservation row in the order
// every statement here reads and writes them.
const reservationColumns = `reference, location, unit, first_slot, last_slot, state, source, contact_key, value, version, updated_at`

const (
	insertReservationSQL = `INSERT INTO reservations (` + reservationColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`
	swapReservationSQL = `UPDATE reservations
		SET location = ?, unit = ?, first_slot = ?, last_slot = ?, state = ?, source = ?,
			contact_key = ?, value = ?, version = version + 1, updated_at = ?
		WHERE reference = ? AND version = ?`
	reservationExistsSQL = `SELECT 1 FROM reservations WHERE reference = ?`
)

// GetReservation returns the reservation with this reference, or
// store.ErrNotFound.
func (db *DB) GetReservation(ctx context.Context, reference string) (store.Reservation, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT `+reservationColumns+` FROM reservations WHERE reference = ?`, reference)
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
	add := func(cond string, v ...any) {
		where = append(where, cond)
		args = append(args, v...)
	}
	if f.Location != "" {
		add(`location = ?`, f.Location)
	}
	if f.From != "" {
		add(`last_slot >= ?`, f.From)
	}
	if f.To != "" {
		add(`first_slot < ?`, f.To)
	}
	if len(f.States) > 0 {
		add(`state IN (?`+strings.Repeat(`, ?`, len(f.States)-1)+`)`, anys(f.States)...)
	}
	if f.Source != "" {
		add(`source = ?`, f.Source)
	}
	if f.ContactKey != "" {
		add(`contact_key = ?`, f.ContactKey)
	}
	if f.After != (store.ReservationCursor{}) {
		add(`(first_slot > ? OR first_slot = ? AND reference > ?)`, f.After.FirstSlot, f.After.FirstSlot, f.After.Reference)
	}
	query := `SELECT ` + reservationColumns + ` FROM reservations`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY first_slot, reference LIMIT ?`
	args = append(args, f.Limit)
	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	rs, err := scanReservations(rows)
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	return rs, nil
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func scanReservations(rows *sql.Rows) ([]store.Reservation, error) {
	defer rows.Close()
	var rs []store.Reservation
	for rows.Next() {
		var r store.Reservation
		var at int64
		if err := rows.Scan(&r.Reference, &r.Location, &r.Unit, &r.FirstSlot, &r.LastSlot, &r.State,
			&r.Source, &r.ContactKey, &r.Value, &r.Version, &at); err != nil {
			return nil, err
		}
		r.Value = nonNil(r.Value)
		r.UpdatedAt = instant(at)
		rs = append(rs, r)
	}
	return rs, rows.Err()
}

// putReservation creates or swaps one reservation row through q inside an
// Apply, returning the refusal sentinels unwrapped.
func putReservation(ctx context.Context, q querier, op store.Op, r *store.Reservation) error {
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
		_, err := q.ExecContext(ctx, insertReservationSQL, r.Reference, r.Location, r.Unit, r.FirstSlot, r.LastSlot,
			r.State, r.Source, r.ContactKey, value, at)
		if isUniqueViolation(err) {
			return store.ErrExists
		}
		return err
	}
	res, err := q.ExecContext(ctx, swapReservationSQL, r.Location, r.Unit, r.FirstSlot, r.LastSlot, r.State, r.Source,
		r.ContactKey, value, at, r.Reference, r.Version)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 1 {
		return err
	}
	var one int
	err = q.QueryRowContext(ctx, reservationExistsSQL, r.Reference).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	return store.ErrConflict
}
