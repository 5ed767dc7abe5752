package sqlstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// Engine is store.Store less Ready and Close, on an engine's queriers. An
// engine embeds it and adds what is its own: connections, migrations,
// readiness and locks.
type Engine struct {
	Dialect
	// Read serves the reads outside a transaction.
	Read Querier
	// Write serves the single writes outside a transaction.
	Write Querier
	// InTx runs fn in one transaction and commits it, or rolls it back
	// when fn fails. An engine may run fn again from the start when it
	// aborted the transaction for contention alone.
	InTx func(ctx context.Context, fn func(Querier) error) error
	// Pipeline, when set, performs a whole Apply at once (in one round
	// trip, say), or reports false for writes it leaves to the path that
	// runs them one by one in InTx.
	Pipeline func(ctx context.Context, writes []store.Write) (rs []store.Record, ok bool, err error)
}

// ProbeWrite commits a transaction that creates a record and deletes it
// again, so readiness covers writing: a full or read-only disk, or a
// database refusing writes, fails it while reads still answer. The key
// is random, so probes of several instances never meet; the record never
// outlives its transaction, so its time is a constant, not the clock's.
func (e *Engine) ProbeWrite(ctx context.Context) error {
	key := rand.Text()
	_, err := e.Apply(ctx, []store.Write{
		{Op: store.OpCreate, Record: store.Record{Kind: "store.probe", Key: key, Value: []byte("{}"), UpdatedAt: time.Unix(0, 0).UTC()}},
		{Op: store.OpDelete, Record: store.Record{Kind: "store.probe", Key: key, Version: 1}},
	})
	return wrap("probe write", err)
}

// Create stores r with version 1, or returns store.ErrExists.
func (e *Engine) Create(ctx context.Context, r store.Record) (store.Record, error) {
	r, err := e.Dialect.Create(ctx, e.Write, r)
	return r, wrap("create record", err)
}

// Get returns the current record, or store.ErrNotFound.
func (e *Engine) Get(ctx context.Context, kind, key string) (store.Record, error) {
	r, err := Get(ctx, e.Read, kind, key)
	return r, wrap("get record", err)
}

// GetMany reads the records of keys in one statement, one per key in
// order; an absent key has Version 0.
func (e *Engine) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	rs, err := GetMany(ctx, e.Read, keys)
	return rs, wrap("get records", err)
}

// Swap replaces the value if r.Version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (e *Engine) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	r, err := Swap(ctx, e.Write, r)
	return r, wrap("swap record", err)
}

// Delete removes the record if version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (e *Engine) Delete(ctx context.Context, kind, key string, version int64) error {
	return wrap("delete record", Delete(ctx, e.Write, kind, key, version))
}

// List returns up to limit records of kind whose keys start with prefix
// and sort after after, in byte order of key.
func (e *Engine) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	rs, err := e.Dialect.List(ctx, e.Read, kind, prefix, after, limit)
	return rs, wrap("list records", err)
}

// Counted returns how many uses of counter name count from bucket live
// on.
func (e *Engine) Counted(ctx context.Context, name string, live int64) (int64, error) {
	n, err := Counted(ctx, e.Read, name, live)
	return n, wrap("counted", err)
}

// Buckets returns the buckets of counter name from live on that hold a
// use.
func (e *Engine) Buckets(ctx context.Context, name string, live int64) ([]store.Bucket, error) {
	bs, err := Buckets(ctx, e.Read, name, live)
	return bs, wrap("counter buckets", err)
}

// CounterNames lists up to limit counter names starting with prefix,
// after after.
func (e *Engine) CounterNames(ctx context.Context, prefix, after string, limit int) ([]string, error) {
	ns, err := e.Dialect.CounterNames(ctx, e.Read, prefix, after, limit)
	return ns, wrap("counter names", err)
}

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot.
func (e *Engine) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	cs, err := Counts(ctx, e.Read, location, from, to)
	return cs, wrap("counts", err)
}

// Holds returns up to limit holds whose IDs sort after after, in ID order.
func (e *Engine) Holds(ctx context.Context, after string, limit int) ([]store.Hold, error) {
	hs, err := Holds(ctx, e.Read, after, limit)
	return hs, wrap("list holds", err)
}

// GetReservation returns the reservation with this reference, or
// store.ErrNotFound.
func (e *Engine) GetReservation(ctx context.Context, reference string) (store.Reservation, error) {
	r, err := GetReservation(ctx, e.Read, reference)
	return r, wrap("get reservation", err)
}

// ListReservations returns up to f.Limit reservations matching f, in order
// of first slot then reference, after f.After.
func (e *Engine) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	rs, err := ListReservations(ctx, e.Read, f)
	return rs, wrap("list reservations", err)
}

// SearchReservations returns up to s.Limit reservations matching s,
// nearest first.
func (e *Engine) SearchReservations(ctx context.Context, s store.ReservationSearch) ([]store.Reservation, error) {
	rs, err := e.Dialect.SearchReservations(ctx, e.Read, s)
	return rs, wrap("search reservations", err)
}

// Hold takes h.Units units in every slot of h or none: store.ErrFull if
// any slot would pass h.Capacity, store.ErrExists if h.ID is taken. It is
// an Apply of one hold.
func (e *Engine) Hold(ctx context.Context, h store.Hold) error {
	_, err := e.apply(ctx, []store.Write{{Op: store.OpHold, Hold: &h}})
	return store.OneWrite("hold", err)
}

// Release gives back every unit of hold id, or returns store.ErrNotFound.
// It is an Apply of one release.
func (e *Engine) Release(ctx context.Context, id string, at time.Time) error {
	_, err := e.apply(ctx, []store.Write{{Op: store.OpRelease, Hold: &store.Hold{ID: id, At: at}}})
	return store.OneWrite("release", err)
}

// Apply performs every write, of records, of the index and of
// reservations, in one transaction, or none: the first refused write rolls
// back the others and is reported as a *store.WriteError.
func (e *Engine) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	rs, err := e.apply(ctx, writes)
	if _, ok := errors.AsType[*store.WriteError](err); ok {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	return rs, nil
}

// apply is Apply with its failures unwrapped, for Hold and Release to word
// as their own.
func (e *Engine) apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	if e.Pipeline != nil {
		if rs, ok, err := e.Pipeline(ctx, writes); ok {
			return rs, err
		}
	}
	var rs []store.Record
	err := e.InTx(ctx, func(q Querier) error {
		// A transaction run again from the start drops the results of the
		// attempt before.
		rs = make([]store.Record, len(writes))
		b, batches := q.(Batcher)
		for i := 0; i < len(writes); {
			if n := takeRun(writes[i:]); e.OneWriter && n > 0 {
				if err := takeAll(ctx, q, writes[i:i+n], i); err != nil {
					return err
				}
				i += n
				continue
			}
			if n := recordRun(writes[i:]); batches && n > 1 {
				if err := applyRecords(ctx, b, writes[i:i+n], rs[i:i+n], i); err != nil {
					return err
				}
				i += n
				continue
			}
			r, err := e.ApplyWrite(ctx, q, writes[i])
			if Refused(err) {
				return &store.WriteError{Index: i, Write: writes[i], Err: err}
			}
			if err != nil {
				return fmt.Errorf("write %d: %w", i, err)
			}
			rs[i] = r
			i++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// wrap words a failure of op, keeping nil as nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
