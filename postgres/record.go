package postgres

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"frontdesk/store"
)

// maxList is the most records one List may return.
const maxList = 1000

// querier is what the record writes need from the pool or a transaction,
// so that one statement serves both a single write and a write inside an
// Apply.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// The conditional swap and delete of one record, for single writes and
// for runs of writes sent together alike.
const (
	swapRecordSQL = `UPDATE records
		SET value = $1, version = version + 1, updated_at = $2
		WHERE kind = $3 AND key = $4 AND version = $5`
	deleteRecordSQL = `DELETE FROM records
		WHERE kind = $1 AND key = $2 AND version = $3`
)

// Create stores r with version 1, or returns store.ErrExists.
func (db *DB) Create(ctx context.Context, r store.Record) (store.Record, error) {
	r, err := createRecord(ctx, db.pool, r)
	if err != nil {
		return store.Record{}, fmt.Errorf("create record: %w", err)
	}
	return r, nil
}

// Get returns the current record, or store.ErrNotFound.
func (db *DB) Get(ctx context.Context, kind, key string) (store.Record, error) {
	r := store.Record{Kind: kind, Key: key}
	var at int64
	err := db.pool.QueryRow(ctx, `SELECT value, version, updated_at FROM records
		WHERE kind = $1 AND key = $2`, kind, key).Scan(&r.Value, &r.Version, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Record{}, fmt.Errorf("get record: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Record{}, fmt.Errorf("get record: %w", err)
	}
	r.Value = nonNil(r.Value)
	r.UpdatedAt = instant(at)
	return r, nil
}

// Swap replaces the value if r.Version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (db *DB) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	r, err := swapRecord(ctx, db.pool, r)
	if err != nil {
		return store.Record{}, fmt.Errorf("swap record: %w", err)
	}
	return r, nil
}

// Delete removes the record if version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (db *DB) Delete(ctx context.Context, kind, key string, version int64) error {
	if err := deleteRecord(ctx, db.pool, kind, key, version); err != nil {
		return fmt.Errorf("delete record: %w", err)
	}
	return nil
}

// List returns up to limit records of kind whose keys start with prefix
// and sort after after, in byte order of key.
func (db *DB) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	if limit < 1 || limit > maxList {
		return nil, fmt.Errorf("list records: limit %d must be from 1 to %d", limit, maxList)
	}
	// The keys wanted are one range of the primary key (kind, key), whose
	// "C" collation compares bytes. The bounds are plain comparisons with
	// values computed here, so that every plan, generic ones included,
	// scans just that range: from the prefix, or just past after when that
	// is later, to before the first key past the prefix.
	query := `SELECT key, value, version, updated_at FROM records WHERE kind = $1`
	args := []any{kind}
	if after != "" && after >= prefix {
		query += ` AND key > $2`
		args = append(args, after)
	} else {
		query += ` AND key >= $2`
		args = append(args, prefix)
	}
	if end, ok := prefixEnd(prefix); ok {
		query += ` AND key < $3`
		args = append(args, end)
	}
	query += fmt.Sprintf(` ORDER BY key LIMIT $%d`, len(args)+1)
	args = append(args, limit)

	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	// AppendRows onto nil, unlike CollectRows, gives nil for no rows, as
	// the SQLite engine does.
	rs, err := pgx.AppendRows([]store.Record(nil), rows, func(row pgx.CollectableRow) (store.Record, error) {
		r := store.Record{Kind: kind}
		var at int64
		if err := row.Scan(&r.Key, &r.Value, &r.Version, &at); err != nil {
			return store.Record{}, err
		}
		r.Value = nonNil(r.Value)
		r.UpdatedAt = instant(at)
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	return rs, nil
}

// prefixEnd returns the least string greater than every string that starts
// with prefix, or false when there is none. PostgreSQL text is valid UTF-8,
// whose byte order is code point order, so the bound is the prefix with its
// last code point raised by one: raising a byte instead could produce
// invalid UTF-8, which PostgreSQL refuses as a parameter. Surrogates are no
// code points of UTF-8 and are skipped; a prefix ending in the greatest
// code point drops it and raises the one before.
func prefixEnd(prefix string) (string, bool) {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		switch rs[i] {
		case utf8.MaxRune:
			continue
		case 0xD7FF:
			rs[i] = 0xE000
		default:
			rs[i]++
		}
		return string(rs[:i+1]), true
	}
	return "", false
}

// Apply performs every write, of records and of the index, in one
// transaction, or none: the first refused write rolls back the others and
// is reported as a *store.WriteError.
func (db *DB) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	rs, err := db.apply(ctx, writes)
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
func (db *DB) apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	var rs []store.Record
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		// A deadlock victim runs again from the start, so the results of
		// an earlier attempt are dropped.
		rs = make([]store.Record, len(writes))
		for i := 0; i < len(writes); {
			if n := recordRun(writes[i:]); n > 1 {
				if err := applyRecords(ctx, tx, writes[i:i+n], rs[i:i+n], i); err != nil {
					return err
				}
				i += n
				continue
			}
			r, err := applyWrite(ctx, tx, writes[i])
			if refused(err) {
				return &store.WriteError{Index: i, Err: err}
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

// applyWrite performs one write of an Apply with the same statements as
// Create, Swap and Delete, or the index writes behind Hold and Release.
func applyWrite(ctx context.Context, tx pgx.Tx, w store.Write) (store.Record, error) {
	switch w.Op {
	case store.OpCreate:
		return createRecord(ctx, tx, w.Record)
	case store.OpSwap:
		return swapRecord(ctx, tx, w.Record)
	case store.OpDelete:
		r := w.Record
		return r, deleteRecord(ctx, tx, r.Kind, r.Key, r.Version)
	case store.OpHold, store.OpRelease:
		if w.Hold == nil {
			return store.Record{}, fmt.Errorf("op %d without a hold", w.Op)
		}
		if w.Op == store.OpHold {
			return store.Record{}, holdUnits(ctx, tx, *w.Hold)
		}
		return store.Record{}, releaseUnits(ctx, tx, w.Hold.ID)
	case store.OpCreateReservation, store.OpSwapReservation:
		return store.Record{}, putReservation(ctx, tx, w.Op, w.Reservation)
	}
	return store.Record{}, fmt.Errorf("unknown op %d", w.Op)
}

// recordRun is how many writes at the start of ws are record writes that
// can be sent together: every one a create, swap or delete of a key no
// other one of them writes. Each write then stands or falls on its own,
// so their results can be read after all of them ran.
func recordRun(ws []store.Write) int {
	type key struct{ kind, key string }
	seen := map[key]bool{}
	n := 0
	for _, w := range ws {
		k := key{w.Record.Kind, w.Record.Key}
		if (w.Op != store.OpCreate && w.Op != store.OpSwap && w.Op != store.OpDelete) || seen[k] {
			break
		}
		seen[k] = true
		n++
	}
	return n
}

// applyRecords performs a run of record writes inside tx in one round
// trip, writing the results to rs. A create that finds its key taken does
// nothing instead of failing, so the transaction stays usable; the first
// write that changed no row is then refused as a *store.WriteError,
// numbered from base. Its key is written by no other write of the run, so
// a read of it now tells a stale version from an absent record exactly as
// it would have right after the write.
func applyRecords(ctx context.Context, tx pgx.Tx, ws []store.Write, rs []store.Record, base int) error {
	b := &pgx.Batch{}
	for i, w := range ws {
		r := w.Record
		if w.Op == store.OpDelete {
			b.Queue(deleteRecordSQL, r.Kind, r.Key, r.Version)
			rs[i] = r
			continue
		}
		at, err := nanos(r.UpdatedAt)
		if err != nil {
			return fmt.Errorf("write %d: %w", base+i, err)
		}
		r.Value = nonNil(r.Value)
		r.UpdatedAt = instant(at)
		if w.Op == store.OpCreate {
			b.Queue(`INSERT INTO records (kind, key, value, version, updated_at)
				VALUES ($1, $2, $3, 1, $4) ON CONFLICT DO NOTHING`, r.Kind, r.Key, r.Value, at)
			r.Version = 1
		} else {
			b.Queue(swapRecordSQL, r.Value, at, r.Kind, r.Key, r.Version)
			r.Version++
		}
		rs[i] = r
	}
	results := tx.SendBatch(ctx, b)
	tags := make([]pgconn.CommandTag, len(ws))
	var err error
	for i := range ws {
		if tags[i], err = results.Exec(); err != nil {
			err = fmt.Errorf("write %d: %w", base+i, err)
			break
		}
	}
	if cerr := results.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for i, w := range ws {
		if tags[i].RowsAffected() == 1 {
			continue
		}
		if w.Op == store.OpCreate {
			return &store.WriteError{Index: base + i, Err: store.ErrExists}
		}
		err := changedOne(ctx, tx, tags[i], w.Record.Kind, w.Record.Key)
		if refused(err) {
			return &store.WriteError{Index: base + i, Err: err}
		}
		return fmt.Errorf("write %d: %w", base+i, err)
	}
	return nil
}

// refused reports whether err is a conditional write refusing, as opposed
// to a failure. The record and index writes return these sentinels
// unwrapped.
func refused(err error) bool {
	return err == store.ErrExists || err == store.ErrConflict || err == store.ErrNotFound || err == store.ErrFull
}

// createRecord inserts r with version 1 through q, or returns
// store.ErrExists.
func createRecord(ctx context.Context, q querier, r store.Record) (store.Record, error) {
	at, err := nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, err
	}
	r.Value = nonNil(r.Value)
	// A plain INSERT is the conditional create: the primary key refuses a
	// second record, so two racing creators cannot both win. In a
	// transaction the violation aborts it, which is fine: a refused write
	// rolls the whole Apply back anyway.
	_, err = q.Exec(ctx, `INSERT INTO records (kind, key, value, version, updated_at)
		VALUES ($1, $2, $3, 1, $4)`, r.Kind, r.Key, r.Value, at)
	if hasCode(err, uniqueViolation) {
		return store.Record{}, store.ErrExists
	}
	if err != nil {
		return store.Record{}, err
	}
	r.Version = 1
	r.UpdatedAt = instant(at)
	return r, nil
}

// swapRecord replaces the value through q if r.Version is current, or
// returns store.ErrConflict or store.ErrNotFound.
func swapRecord(ctx context.Context, q querier, r store.Record) (store.Record, error) {
	at, err := nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, err
	}
	r.Value = nonNil(r.Value)
	tag, err := q.Exec(ctx, swapRecordSQL, r.Value, at, r.Kind, r.Key, r.Version)
	if err != nil {
		return store.Record{}, err
	}
	if err := changedOne(ctx, q, tag, r.Kind, r.Key); err != nil {
		return store.Record{}, err
	}
	r.Version++
	r.UpdatedAt = instant(at)
	return r, nil
}

// deleteRecord removes the record through q if version is current, or
// returns store.ErrConflict or store.ErrNotFound.
func deleteRecord(ctx context.Context, q querier, kind, key string, version int64) error {
	tag, err := q.Exec(ctx, deleteRecordSQL, kind, key, version)
	if err != nil {
		return err
	}
	return changedOne(ctx, q, tag, kind, key)
}

// changedOne checks that a conditional write on one record took effect.
// When it did not, the version was stale or the record is gone, and only a
// fresh read can tell which. The read goes through q, so inside an Apply it
// sees the transaction's own earlier writes and, at READ COMMITTED, the
// writes that beat this one.
func changedOne(ctx context.Context, q querier, tag pgconn.CommandTag, kind, key string) error {
	if tag.RowsAffected() == 1 {
		return nil
	}
	var one int
	err := q.QueryRow(ctx,
		`SELECT 1 FROM records WHERE kind = $1 AND key = $2`, kind, key).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	return store.ErrConflict
}

// nonNil turns a nil value into an empty one: value is NOT NULL, and an
// empty value is still a value.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
