package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"frontdesk/store"
)

// maxList is the most records one List may return.
const maxList = 1000

// querier is what the record and index writes need from the writer
// connection or from a transaction on it, so that one statement serves
// both a single write and a write inside an Apply.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getRecordSQL reads one record; it is prepared once on the read pool.
const getRecordSQL = `SELECT value, version, updated_at FROM records WHERE kind = ? AND key = ?`

// The writer statements of records, prepared once at Open.
const (
	insertRecordSQL = `INSERT INTO records (kind, key, value, version, updated_at)
		VALUES (?, ?, ?, 1, ?)`
	swapRecordSQL = `UPDATE records
		SET value = ?, version = version + 1, updated_at = ?
		WHERE kind = ? AND key = ? AND version = ?`
	deleteRecordSQL = `DELETE FROM records
		WHERE kind = ? AND key = ? AND version = ?`
	recordExistsSQL = `SELECT 1 FROM records WHERE kind = ? AND key = ?`
)

// write is the querier for single writes: prepared statements on the
// writer connection.
func (db *DB) write() querier { return prepared{stmts: db.stmts} }

// Create stores r with version 1, or returns store.ErrExists.
func (db *DB) Create(ctx context.Context, r store.Record) (store.Record, error) {
	r, err := createRecord(ctx, db.write(), r)
	if err != nil {
		return store.Record{}, fmt.Errorf("create record: %w", err)
	}
	return r, nil
}

// Get returns the current record, or store.ErrNotFound.
func (db *DB) Get(ctx context.Context, kind, key string) (store.Record, error) {
	r := store.Record{Kind: kind, Key: key}
	var at int64
	err := db.get.QueryRowContext(ctx, kind, key).Scan(&r.Value, &r.Version, &at)
	if errors.Is(err, sql.ErrNoRows) {
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
	r, err := swapRecord(ctx, db.write(), r)
	if err != nil {
		return store.Record{}, fmt.Errorf("swap record: %w", err)
	}
	return r, nil
}

// Delete removes the record if version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (db *DB) Delete(ctx context.Context, kind, key string, version int64) error {
	if err := deleteRecord(ctx, db.write(), kind, key, version); err != nil {
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
	// The keys wanted are one range of the primary key (kind, key), so the
	// bounds are given as plain comparisons that SQLite turns into a single
	// index range: it starts at the prefix, or just past after when that
	// is later, and ends before the first key past the prefix.
	query := `SELECT key, value, version, updated_at FROM records WHERE kind = ?`
	args := []any{kind}
	if after != "" && after >= prefix {
		query += ` AND key > ?`
		args = append(args, after)
	} else {
		query += ` AND key >= ?`
		args = append(args, prefix)
	}
	if end, ok := prefixEnd(prefix); ok {
		query += ` AND key < ?`
		args = append(args, end)
	}
	query += ` ORDER BY key LIMIT ?`
	args = append(args, limit)

	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	defer rows.Close()
	var rs []store.Record
	for rows.Next() {
		r := store.Record{Kind: kind}
		var at int64
		if err := rows.Scan(&r.Key, &r.Value, &r.Version, &at); err != nil {
			return nil, fmt.Errorf("list records: %w", err)
		}
		r.Value = nonNil(r.Value)
		r.UpdatedAt = instant(at)
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	return rs, nil
}

// prefixEnd returns the least string greater than every string that starts
// with prefix, comparing bytes as SQLite's BINARY collation does. There is
// none when prefix is empty or all 0xFF bytes.
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// Apply performs every write, of records and of the index, in one
// immediate transaction, or none: the first refused write rolls back the
// others and is reported as a *store.WriteError.
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
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	// The transaction holds the writer's one connection, so every
	// statement runs through it: prepared ones are borrowed from the
	// cache, never prepared on db.writer, which would wait for this very
	// connection.
	q := prepared{stmts: db.stmts, tx: tx}
	rs := make([]store.Record, len(writes))
	for i, w := range writes {
		r, err := applyWrite(ctx, q, w)
		if refused(err) {
			return nil, &store.WriteError{Index: i, Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("write %d: %w", i, err)
		}
		rs[i] = r
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return rs, nil
}

// applyWrite performs one write of an Apply with the same statements as
// Create, Swap and Delete, or the index writes behind Hold and Release.
func applyWrite(ctx context.Context, q querier, w store.Write) (store.Record, error) {
	switch w.Op {
	case store.OpCreate:
		return createRecord(ctx, q, w.Record)
	case store.OpSwap:
		return swapRecord(ctx, q, w.Record)
	case store.OpDelete:
		r := w.Record
		return r, deleteRecord(ctx, q, r.Kind, r.Key, r.Version)
	case store.OpHold, store.OpRelease:
		if w.Hold == nil {
			return store.Record{}, fmt.Errorf("op %d without a hold", w.Op)
		}
		if w.Op == store.OpHold {
			return store.Record{}, holdUnits(ctx, q, *w.Hold)
		}
		return store.Record{}, releaseUnits(ctx, q, w.Hold.ID)
	case store.OpCreateReservation, store.OpSwapReservation:
		return store.Record{}, putReservation(ctx, q, w.Op, w.Reservation)
	}
	return store.Record{}, fmt.Errorf("unknown op %d", w.Op)
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
	// second record, so two racing creators cannot both win.
	_, err = q.ExecContext(ctx, insertRecordSQL, r.Kind, r.Key, r.Value, at)
	if isUniqueViolation(err) {
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
	res, err := q.ExecContext(ctx, swapRecordSQL,
		r.Value, at, r.Kind, r.Key, r.Version)
	if err != nil {
		return store.Record{}, err
	}
	if err := changedOne(ctx, q, res, r.Kind, r.Key); err != nil {
		return store.Record{}, err
	}
	r.Version++
	r.UpdatedAt = instant(at)
	return r, nil
}

// deleteRecord removes the record through q if version is current, or
// returns store.ErrConflict or store.ErrNotFound.
func deleteRecord(ctx context.Context, q querier, kind, key string, version int64) error {
	res, err := q.ExecContext(ctx, deleteRecordSQL, kind, key, version)
	if err != nil {
		return err
	}
	return changedOne(ctx, q, res, kind, key)
}

// changedOne checks that a conditional write on one record took effect.
// When it did not, the version was stale or the record is gone, and only a
// fresh read can tell which. The read goes through q, so inside an Apply it
// sees the transaction's own earlier writes.
func changedOne(ctx context.Context, q querier, res sql.Result, kind, key string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 1 {
		return nil
	}
	var one int
	err = q.QueryRowContext(ctx,
		recordExistsSQL, kind, key).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
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
