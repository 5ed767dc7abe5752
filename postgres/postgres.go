// Package postgres is the scale-out store engine: store.Store on
// PostgreSQL through pgx/v5 and its connection pool, for any number of
// frontdesk instances sharing one database.
//
// The schema lives in numbered, forward-only migrations embedded from
// migrations/ and applied by Open under a transaction-scoped advisory lock,
// so instances starting together apply each migration once. A schema other
// than public is chosen with the search_path option of the connection URL.
//
// It imports only store from this module.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"frontdesk/store"
)

var _ store.Store = (*DB)(nil)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock key that serializes migrations across
// every instance on one database. It is fixed so that all versions of the
// binary agree on it; the value is "frontdes" read as a big-endian int64.
const migrationLock int64 = 0x66726f6e74646573

// DB is a store.Store on a PostgreSQL pool. It is safe for concurrent use.
type DB struct {
	pool   *pgxpool.Pool
	latest int // the newest embedded migration, which Ready expects
}

// Open connects to the database at url, applies any pending migrations and
// returns the store. url is a pgx connection string; its search_path
// option, if any, selects the schema, which must already exist.
func Open(ctx context.Context, url string) (*DB, error) {
	ms, err := loadMigrations()
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := migrate(ctx, pool, ms); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &DB{pool: pool, latest: ms[len(ms)-1].version}, nil
}

// Ready reports whether the database answers and the newest embedded
// migration has been applied.
func (db *DB) Ready(ctx context.Context) error {
	var n int
	err := db.pool.QueryRow(ctx,
		`SELECT count(*) FROM schema_migrations WHERE version = $1`, db.latest).Scan(&n)
	if err != nil {
		return fmt.Errorf("postgres ready: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("postgres ready: migration %d not applied", db.latest)
	}
	return nil
}

// Close closes the pool, waiting for connections in use to be returned.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// migration is one embedded schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations in order. Their names start
// with a number that counts up from 1 without gaps, so a missing or
// misnumbered file fails every Open instead of skipping a change.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || v != len(ms)+1 {
			return nil, fmt.Errorf("migration %s: want number %04d", e.Name(), len(ms)+1)
		}
		b, err := fs.ReadFile(migrationFS, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
}

// migrate applies every pending migration in one transaction that first
// takes the migration advisory lock. The transaction-scoped lock is
// released by COMMIT or ROLLBACK, or by the server if the connection dies,
// so it can never be left behind on a pooled connection; and DDL in
// PostgreSQL is transactional, so a failed migration leaves nothing half
// done.
func migrate(ctx context.Context, pool *pgxpool.Pool, ms []migration) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx)

	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	_, err = tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER NOT NULL PRIMARY KEY,
		name    TEXT    NOT NULL
	)`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		var n int
		err := tx.QueryRow(ctx,
			`SELECT count(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&n)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if n > 0 {
			continue
		}
		// Exec without arguments uses the simple protocol, which runs a
		// file of several statements.
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		_, err = tx.Exec(ctx,
			`INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return tx.Commit(ctx)
}

// SQLSTATE codes this engine acts on.
const (
	uniqueViolation      = "23505"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

// hasCode reports whether err carries one of the SQLSTATE codes.
func hasCode(err error, codes ...string) bool {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return false
	}
	for _, c := range codes {
		if e.Code == c {
			return true
		}
	}
	return false
}

// maxTxAttempts bounds how often a transaction that PostgreSQL aborted as a
// serialization failure or deadlock victim is run again from the start.
const maxTxAttempts = 10

// inTx runs fn in a transaction and commits it, running it again from the
// start when PostgreSQL chose it as the victim of a deadlock or a
// serialization failure: that is contention, and a fresh attempt re-reads.
func (db *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for range maxTxAttempts {
		err = db.tryTx(ctx, fn)
		if !hasCode(err, serializationFailure, deadlockDetected) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", store.ErrConflict, err)
}

func (db *DB) tryTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// nanos converts t to the stored form, UTC unix nanoseconds. Only instants
// between the years 1678 and 2262 fit; anything else, the zero time
// included, is a caller's mistake and is refused rather than stored wrong.
func nanos(t time.Time) (int64, error) {
	n := t.UnixNano()
	if !time.Unix(0, n).Equal(t) {
		return 0, fmt.Errorf("time %v is outside the storable range", t)
	}
	return n, nil
}

// instant is the inverse of nanos.
func instant(n int64) time.Time {
	return time.Unix(0, n).UTC()
}
