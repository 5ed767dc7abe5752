package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"frontdesk/store"
)

// The record statements both engines run.
const (
	GetRecordSQL    = `SELECT value, version, updated_at FROM records WHERE kind = $1 AND key = $2`
	InsertRecordSQL = `INSERT INTO records (kind, key, value, version, updated_at)
		VALUES ($1, $2, $3, 1, $4)`
	SwapRecordSQL = `UPDATE records
		SET value = $1, version = version + 1, updated_at = $2
		WHERE kind = $3 AND key = $4 AND version = $5`
	DeleteRecordSQL = `DELETE FROM records
		WHERE kind = $1 AND key = $2 AND version = $3`
	RecordExistsSQL = `SELECT 1 FROM records WHERE kind = $1 AND key = $2`
)

// Create inserts r with version 1 through q, or returns store.ErrExists.
func (d *Dialect) Create(ctx context.Context, q Querier, r store.Record) (store.Record, error) {
	at, err := Nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, err
	}
	r.Value = NonNil(r.Value)
	// A plain INSERT is the conditional create: the primary key refuses a
	// second record, so two racing creators cannot both win. In a
	// transaction the refusal may abort it, which is fine: a refused
	// write rolls the whole Apply back anyway.
	_, err = q.Exec(ctx, InsertRecordSQL, r.Kind, r.Key, r.Value, at)
	if d.IsUnique(err) {
		return store.Record{}, store.ErrExists
	}
	if err != nil {
		return store.Record{}, err
	}
	r.Version = 1
	r.UpdatedAt = Instant(at)
	return r, nil
}

// Get reads one record through q, or returns store.ErrNotFound.
func Get(ctx context.Context, q Querier, kind, key string) (store.Record, error) {
	r := store.Record{Kind: kind, Key: key}
	var at int64
	found, err := q.QueryRow(ctx, GetRecordSQL, []any{kind, key}, &r.Value, &r.Version, &at)
	if err != nil {
		return store.Record{}, err
	}
	if !found {
		return store.Record{}, store.ErrNotFound
	}
	r.Value = NonNil(r.Value)
	r.UpdatedAt = Instant(at)
	return r, nil
}

// GetMany reads the records of keys through q in one statement, one per
// key in the order of keys, an absent one with Version 0. The keys are
// compared as row values, which both engines match against the primary
// key (kind, key).
func GetMany(ctx context.Context, q Querier, keys []store.Key) ([]store.Record, error) {
	if len(keys) > store.MaxGetMany {
		return nil, fmt.Errorf("%d keys, at most %d", len(keys), store.MaxGetMany)
	}
	out := make([]store.Record, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	var query strings.Builder
	query.WriteString(`SELECT kind, key, value, version, updated_at FROM records WHERE (kind, key) IN (`)
	args := make([]any, 0, 2*len(keys))
	for i, k := range keys {
		if i > 0 {
			query.WriteString(", ")
		}
		fmt.Fprintf(&query, "($%d, $%d)", 2*i+1, 2*i+2)
		args = append(args, k.Kind, k.Key)
		out[i] = store.Record{Kind: k.Kind, Key: k.Key}
	}
	query.WriteString(")")
	found, err := collect(ctx, q, query.String(), args, func(scan func(...any) error) (store.Record, error) {
		var r store.Record
		var at int64
		if err := scan(&r.Kind, &r.Key, &r.Value, &r.Version, &at); err != nil {
			return store.Record{}, err
		}
		r.Value = NonNil(r.Value)
		r.UpdatedAt = Instant(at)
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	// A key asked for twice gets the record twice.
	for _, r := range found {
		for i, k := range keys {
			if k.Kind == r.Kind && k.Key == r.Key {
				out[i] = r
			}
		}
	}
	return out, nil
}

// Swap replaces the value through q if r.Version is current, or returns
// store.ErrConflict or store.ErrNotFound.
func Swap(ctx context.Context, q Querier, r store.Record) (store.Record, error) {
	at, err := Nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, err
	}
	r.Value = NonNil(r.Value)
	n, err := q.Exec(ctx, SwapRecordSQL, r.Value, at, r.Kind, r.Key, r.Version)
	if err != nil {
		return store.Record{}, err
	}
	if err := ChangedOne(ctx, q, n, r.Kind, r.Key); err != nil {
		return store.Record{}, err
	}
	r.Version++
	r.UpdatedAt = Instant(at)
	return r, nil
}

// Delete removes the record through q if version is current, or returns
// store.ErrConflict or store.ErrNotFound.
func Delete(ctx context.Context, q Querier, kind, key string, version int64) error {
	n, err := q.Exec(ctx, DeleteRecordSQL, kind, key, version)
	if err != nil {
		return err
	}
	return ChangedOne(ctx, q, n, kind, key)
}

// ChangedOne checks that a conditional write on one record, which changed
// n rows, took effect. When it did not, the version was stale or the
// record is gone, and only a fresh read can tell which. The read goes
// through q, so inside an Apply it sees the transaction's own earlier
// writes and, at READ COMMITTED, the writes that beat this one.
func ChangedOne(ctx context.Context, q Querier, n int64, kind, key string) error {
	if n == 1 {
		return nil
	}
	var one int
	found, err := q.QueryRow(ctx, RecordExistsSQL, []any{kind, key}, &one)
	if err != nil {
		return err
	}
	if !found {
		return store.ErrNotFound
	}
	return store.ErrConflict
}

// List returns up to limit records of kind whose keys start with prefix
// and sort after after, in byte order of key, read through q.
func (d *Dialect) List(ctx context.Context, q Querier, kind, prefix, after string, limit int) ([]store.Record, error) {
	if limit < 1 || limit > MaxList {
		return nil, fmt.Errorf("limit %d must be from 1 to %d", limit, MaxList)
	}
	// The keys wanted are one range of the primary key (kind, key), so the
	// bounds are plain comparisons with values computed here, which every
	// plan, generic ones included, turns into a single index range: from
	// the prefix, or just past after when that is later, to before the
	// first key past the prefix.
	query := `SELECT key, value, version, updated_at FROM records WHERE kind = $1`
	args := []any{kind}
	if after != "" && after >= prefix {
		query += ` AND key > $2`
		args = append(args, after)
	} else {
		query += ` AND key >= $2`
		args = append(args, prefix)
	}
	if end, ok := d.PrefixEnd(prefix); ok {
		query += ` AND key < $3`
		args = append(args, end)
	}
	args = append(args, limit)
	query += fmt.Sprintf(` ORDER BY key LIMIT $%d`, len(args))

	return collect(ctx, q, query, args, func(scan func(...any) error) (store.Record, error) {
		r := store.Record{Kind: kind}
		var at int64
		err := scan(&r.Key, &r.Value, &r.Version, &at)
		r.Value = NonNil(r.Value)
		r.UpdatedAt = Instant(at)
		return r, err
	})
}
