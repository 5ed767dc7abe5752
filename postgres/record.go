package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"frontdesk/store"
)

// Create stores r with version 1, or returns store.ErrExists.
func (db *DB) Create(ctx context.Context, r store.Record) (store.Record, error) {
	at, err := nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, fmt.Errorf("create record: %w", err)
	}
	r.Value = nonNil(r.Value)
	// A plain INSERT is the conditional create: the primary key refuses a
	// second record, so two racing creators cannot both win.
	_, err = db.pool.Exec(ctx, `INSERT INTO records (kind, key, value, version, updated_at)
		VALUES ($1, $2, $3, 1, $4)`, r.Kind, r.Key, r.Value, at)
	if hasCode(err, uniqueViolation) {
		return store.Record{}, fmt.Errorf("create record: %w", store.ErrExists)
	}
	if err != nil {
		return store.Record{}, fmt.Errorf("create record: %w", err)
	}
	r.Version = 1
	r.UpdatedAt = instant(at)
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
	at, err := nanos(r.UpdatedAt)
	if err != nil {
		return store.Record{}, fmt.Errorf("swap record: %w", err)
	}
	r.Value = nonNil(r.Value)
	tag, err := db.pool.Exec(ctx, `UPDATE records
		SET value = $1, version = version + 1, updated_at = $2
		WHERE kind = $3 AND key = $4 AND version = $5`,
		r.Value, at, r.Kind, r.Key, r.Version)
	if err != nil {
		return store.Record{}, fmt.Errorf("swap record: %w", err)
	}
	if err := db.changedOne(ctx, tag, r.Kind, r.Key); err != nil {
		return store.Record{}, fmt.Errorf("swap record: %w", err)
	}
	r.Version++
	r.UpdatedAt = instant(at)
	return r, nil
}

// Delete removes the record if version is current: store.ErrConflict for a
// stale version, store.ErrNotFound when absent.
func (db *DB) Delete(ctx context.Context, kind, key string, version int64) error {
	tag, err := db.pool.Exec(ctx, `DELETE FROM records
		WHERE kind = $1 AND key = $2 AND version = $3`, kind, key, version)
	if err != nil {
		return fmt.Errorf("delete record: %w", err)
	}
	if err := db.changedOne(ctx, tag, kind, key); err != nil {
		return fmt.Errorf("delete record: %w", err)
	}
	return nil
}

// changedOne checks that a conditional write on one record took effect.
// When it did not, the version was stale or the record is gone, and only a
// fresh read can tell which.
func (db *DB) changedOne(ctx context.Context, tag pgconn.CommandTag, kind, key string) error {
	if tag.RowsAffected() == 1 {
		return nil
	}
	var one int
	err := db.pool.QueryRow(ctx,
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
