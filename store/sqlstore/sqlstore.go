// Package sqlstore is the half of the SQL store engines that does not
// depend on the engine: the conditional record writes, the availability
// holds and their slot claims, the reservation rows, the counters, the
// dispatch of an Apply's writes and the encoding of instants. The engines (sqlite/,
// postgres/) keep their connections, transactions, locking and the SQL
// that differs between them, and run these operations through Querier.
//
// Statements here use $1-style placeholders, which PostgreSQL and SQLite
// both accept. It imports only store from this module.
package sqlstore

import (
	"context"
	"fmt"
	"time"

	"frontdesk/store"
)

// MaxList is the most rows one listing may return.
const MaxList = 1000

// Querier is an engine's connection or transaction as the shared
// operations use it. Inside an Apply it is the transaction, so reads see
// the transaction's own earlier writes.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query and scans its first row into dest. found is
	// false when there is no row.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) (found bool, err error)
	// Query runs a query and calls each with a scan function per row.
	Query(ctx context.Context, query string, args []any, each func(scan func(dest ...any) error) error) error
}

// Dialect is what differs between engines in the shared operations.
type Dialect struct {
	// IsUnique reports whether err is the engine refusing a duplicate
	// primary or unique key, read from its error code.
	IsUnique func(error) bool
	// InsertHoldSlots records every slot of a hold in one statement,
	// taking the hold ID and SlotList(slots).
	InsertHoldSlots string
	SlotList        func(slots []string) any
	// PrefixEnd returns the least key greater than every key that starts
	// with prefix, by the engine's order of keys, or false when there is
	// none.
	PrefixEnd func(prefix string) (string, bool)
	// OneWriter says the engine runs one write transaction at a time, so
	// a run of counter takes reads and checks instead of locking (takes.go).
	OneWriter bool
}

// Refused reports whether err is a conditional write refusing, as opposed
// to a failure. The shared writes return these sentinels unwrapped.
func Refused(err error) bool {
	return err == store.ErrExists || err == store.ErrConflict || err == store.ErrNotFound || err == store.ErrFull
}

// ApplyWrite performs one write of an Apply through q, which runs inside
// the Apply's transaction, returning refusals as bare sentinels.
func (d *Dialect) ApplyWrite(ctx context.Context, q Querier, w store.Write) (store.Record, error) {
	switch w.Op {
	case store.OpCreate:
		return d.Create(ctx, q, w.Record)
	case store.OpSwap:
		return Swap(ctx, q, w.Record)
	case store.OpDelete:
		r := w.Record
		return r, Delete(ctx, q, r.Kind, r.Key, r.Version)
	case store.OpHold, store.OpRelease:
		if w.Hold == nil {
			return store.Record{}, fmt.Errorf("op %d without a hold", w.Op)
		}
		if w.Op == store.OpHold {
			return store.Record{}, d.Hold(ctx, q, *w.Hold)
		}
		return store.Record{}, Release(ctx, q, w.Hold.ID)
	case store.OpCreateReservation, store.OpSwapReservation:
		return store.Record{}, d.PutReservation(ctx, q, w.Op, w.Reservation)
	case store.OpIndexReservation:
		return store.Record{}, IndexReservation(ctx, q, w.Reservation)
	case store.OpTake, store.OpGiveBack, store.OpClear, store.OpForget:
		return store.Record{}, count(ctx, q, w)
	}
	return store.Record{}, fmt.Errorf("unknown op %d", w.Op)
}

// Nanos converts t to the stored form, UTC unix nanoseconds. Only instants
// between the years 1678 and 2262 fit; anything else, the zero time
// included, is a caller's mistake and is refused rather than stored wrong.
func Nanos(t time.Time) (int64, error) {
	n := t.UnixNano()
	if !time.Unix(0, n).Equal(t) {
		return 0, fmt.Errorf("time %v is outside the storable range", t)
	}
	return n, nil
}

// Instant is the inverse of Nanos.
func Instant(n int64) time.Time {
	return time.Unix(0, n).UTC()
}

// NonNil turns a nil value into an empty one: values are NOT NULL, and an
// empty value is still a value.
func NonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Rows is what Each needs of a driver's rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Each calls each with the scan function of every row, for an engine's
// Querier.Query. The caller closes rows.
func Each(rows Rows, each func(scan func(dest ...any) error) error) error {
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// collect runs query through q and returns one value per row, made by
// row from the row's scan function; nil when there are no rows.
func collect[T any](ctx context.Context, q Querier, query string, args []any, row func(scan func(...any) error) (T, error)) ([]T, error) {
	var out []T
	err := q.Query(ctx, query, args, func(scan func(...any) error) error {
		v, err := row(scan)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
