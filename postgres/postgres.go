// Package postgres is the scale-out store engine: store.Store on
// PostgreSQL through pgx/v5 and its connection pool, for any number of
// frontdesk instances sharing one database.
//
// The schema lives in numbered, forward-only migrations embedded from
// migrations/ and applied by Open under a transaction-scoped advisory lock,
// so instances starting together apply each migration once. A schema other
// than public is chosen with the search_path option of the connection URL.
// The operations themselves, shared with the SQLite engine, are in
// store/sqlstore; this package supplies the pool, the transactions with
// their retries, the pipelined batches and what PostgreSQL does its own
// way.
//
// It imports store, store/sqlstore and internal/sqlmigrate from this
// module.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"frontdesk/internal/sqlmigrate"
	"frontdesk/store"
	"frontdesk/store/sqlstore"
)

var _ store.Store = (*DB)(nil)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock key that serializes migrations across
// every instance on one database. It is fixed so that all versions of the
// binary agree on it; the value is "frontdes" read as a big-endian int64.
const migrationLock int64 = 0x66726f6e74646573

// migrationSchema is this engine's table of applied migrations, in the
// schema the connection's search_path names first.
var migrationSchema = sqlmigrate.Schema{
	Create: `CREATE TABLE IF NOT EXISTS schema_migrations (
	version  INTEGER NOT NULL PRIMARY KEY,
	name     TEXT    NOT NULL,
	checksum TEXT    NOT NULL DEFAULT ''
)`,
	HasChecksum: `SELECT count(*) FROM information_schema.columns
	WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'checksum'`,
}

// dialect is how PostgreSQL differs in the shared operations.
var dialect = sqlstore.Dialect{
	IsUnique:        func(err error) bool { return hasCode(err, uniqueViolation) },
	InsertHoldSlots: `INSERT INTO hold_slots (hold_id, slot) SELECT $1, unnest($2::text[])`,
	SlotList:        func(slots []string) any { return slots },
	PrefixEnd:       prefixEnd,
}

// minPoolConns is the least number of pooled connections: a booking
// waits mostly on round trips, so more bookings in flight than cores
// still gain.
const minPoolConns = 16

// DB is a store.Store on a PostgreSQL pool. It is safe for concurrent use.
type DB struct {
	sqlstore.Engine
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
	// pgxpool's default of four connections on a two-core machine made
	// eight bookings at once queue for a connection while the server sat
	// idle waiting on round trips; a pool_max_conns in the URL still wins.
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, minPoolConns)
	}
	return openConfig(ctx, cfg, ms)
}

// openConfig is Open with the pool's configuration parsed, for tests that
// watch the connections.
func openConfig(ctx context.Context, cfg *pgxpool.Config, ms []sqlmigrate.Migration) (*DB, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db := &DB{pool: pool, latest: ms[len(ms)-1].Version}
	if err := sqlmigrate.Run(ctx, db.beginMigration, migrationSchema, ms); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db.Engine = sqlstore.Engine{
		Dialect:  dialect,
		Read:     querier{pool},
		Write:    querier{pool},
		InTx:     db.inTx,
		Pipeline: db.pipeline,
	}
	return db, nil
}

// loadMigrations reads the embedded migrations in order.
func loadMigrations() ([]sqlmigrate.Migration, error) {
	return sqlmigrate.Load(migrationFS, "migrations")
}

// beginMigration starts a transaction that first takes the migration
// advisory lock. The transaction-scoped lock is released by COMMIT or
// ROLLBACK, or by the server if the connection dies, so it can never be
// left behind on a pooled connection; and DDL in PostgreSQL is
// transactional, so a failed migration leaves nothing half done.
func (db *DB) beginMigration(ctx context.Context) (sqlmigrate.Tx, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		tx.Rollback(ctx)
		return nil, err
	}
	return migrationTx{querier{tx}, tx}, nil
}

// migrationTx is a transaction as the migrations use it. Its Exec
// without arguments uses the simple protocol, which runs a file of
// several statements.
type migrationTx struct {
	querier
	tx pgx.Tx
}

func (m migrationTx) Commit(ctx context.Context) error   { return m.tx.Commit(ctx) }
func (m migrationTx) Rollback(ctx context.Context) error { return m.tx.Rollback(ctx) }

// Ready reports whether the database answers, the newest embedded
// migration has been applied and a write commits.
func (db *DB) Ready(ctx context.Context) error {
	ok, err := sqlmigrate.Applied(ctx, querier{db.pool}, db.latest)
	if err != nil {
		return fmt.Errorf("postgres ready: %w", err)
	}
	if !ok {
		return fmt.Errorf("postgres ready: migration %d not applied", db.latest)
	}
	if err := db.ProbeWrite(ctx); err != nil {
		return fmt.Errorf("postgres ready: %w", err)
	}
	return nil
}

// Close closes the pool, waiting for connections in use to be returned.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
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
func (db *DB) inTx(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return retryAborted(func() error { return db.tryTx(ctx, fn) })
}

// retryAborted runs try again while PostgreSQL aborts it as a
// serialization failure or a deadlock, at most maxTxAttempts times. One
// still aborted after them is a store.ErrConflict, which the doors answer
// as contention, not as an outage.
func retryAborted(try func() error) error {
	var err error
	for range maxTxAttempts {
		err = try()
		if !hasCode(err, serializationFailure, deadlockDetected) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", store.ErrConflict, err)
}

func (db *DB) tryTx(ctx context.Context, fn func(sqlstore.Querier) error) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(querier{tx}); err != nil {
		return err
	}
	return tx.Commit(ctx)
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
