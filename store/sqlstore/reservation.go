package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"frontdesk/store"
)

// reservationColumns are the columns of a reservation row in the order
// every statement here reads and writes them.
const reservationColumns = `reference, location, unit, first_slot, last_slot, state, source, contact_key, value, version, updated_at`

// The reservation statements both engines run.
const (
	GetReservationSQL    = `SELECT ` + reservationColumns + ` FROM reservations WHERE reference = $1`
	InsertReservationSQL = `INSERT INTO reservations (` + reservationColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10)`
	SwapReservationSQL = `UPDATE reservations
		SET location = $1, unit = $2, first_slot = $3, last_slot = $4, state = $5, source = $6,
			contact_key = $7, value = $8, version = version + 1, updated_at = $9
		WHERE reference = $10 AND version = $11`
	ReservationExistsSQL = `SELECT 1 FROM reservations WHERE reference = $1`
)

// GetReservation reads the reservation with this reference through q, or
// returns store.ErrNotFound.
func GetReservation(ctx context.Context, q Querier, reference string) (store.Reservation, error) {
	rs, err := reservations(ctx, q, GetReservationSQL, []any{reference})
	if err != nil {
		return store.Reservation{}, err
	}
	if len(rs) == 0 {
		return store.Reservation{}, store.ErrNotFound
	}
	return rs[0], nil
}

// ListReservations returns up to f.Limit reservations matching f, in order
// of first slot then reference, after f.After, read through q.
func ListReservations(ctx context.Context, q Querier, f store.ReservationFilter) ([]store.Reservation, error) {
	if f.Limit < 1 || f.Limit > MaxList {
		return nil, fmt.Errorf("limit %d must be from 1 to %d", f.Limit, MaxList)
	}
	var where []string
	var args []any
	// param adds v as the next argument and returns its placeholder.
	param := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Location != "" {
		where = append(where, `location = `+param(f.Location))
	}
	if f.From != "" {
		where = append(where, `last_slot >= `+param(f.From))
	}
	if f.To != "" {
		where = append(where, `first_slot < `+param(f.To))
	}
	if len(f.States) > 0 {
		ps := make([]string, len(f.States))
		for i, s := range f.States {
			ps[i] = param(s)
		}
		where = append(where, `state IN (`+strings.Join(ps, `, `)+`)`)
	}
	if f.Source != "" {
		where = append(where, `source = `+param(f.Source))
	}
	if f.ContactKey != "" {
		where = append(where, `contact_key = `+param(f.ContactKey))
	}
	if f.After != (store.ReservationCursor{}) {
		// A row comparison, which both engines read as one range of the
		// (first_slot, reference) order.
		where = append(where, `(first_slot, reference) > (`+param(f.After.FirstSlot)+`, `+param(f.After.Reference)+`)`)
	}
	query := `SELECT ` + reservationColumns + ` FROM reservations`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY first_slot, reference LIMIT ` + param(f.Limit)
	return reservations(ctx, q, query, args)
}

func reservations(ctx context.Context, q Querier, query string, args []any) ([]store.Reservation, error) {
	return collect(ctx, q, query, args, func(scan func(...any) error) (store.Reservation, error) {
		var r store.Reservation
		var at int64
		err := scan(&r.Reference, &r.Location, &r.Unit, &r.FirstSlot, &r.LastSlot, &r.State,
			&r.Source, &r.ContactKey, &r.Value, &r.Version, &at)
		r.Value = NonNil(r.Value)
		r.UpdatedAt = Instant(at)
		return r, err
	})
}

// PutReservation creates or swaps one reservation row through q inside an
// Apply, returning the refusal sentinels unwrapped.
func (d *Dialect) PutReservation(ctx context.Context, q Querier, op store.Op, r *store.Reservation) error {
	if r == nil {
		return fmt.Errorf("op %d without a reservation", op)
	}
	if r.Reference == "" {
		return errors.New("reservation without a reference")
	}
	at, err := Nanos(r.UpdatedAt)
	if err != nil {
		return err
	}
	value := NonNil(r.Value)
	if op == store.OpCreateReservation {
		_, err := q.Exec(ctx, InsertReservationSQL, r.Reference, r.Location, r.Unit, r.FirstSlot, r.LastSlot,
			r.State, r.Source, r.ContactKey, value, at)
		if d.IsUnique(err) {
			return store.ErrExists
		}
		return err
	}
	n, err := q.Exec(ctx, SwapReservationSQL, r.Location, r.Unit, r.FirstSlot, r.LastSlot, r.State, r.Source,
		r.ContactKey, value, at, r.Reference, r.Version)
	if err != nil || n == 1 {
		return err
	}
	var one int
	found, err := q.QueryRow(ctx, ReservationExistsSQL, []any{r.Reference}, &one)
	if err != nil {
		return err
	}
	if !found {
		return store.ErrNotFound
	}
	return store.ErrConflict
}
