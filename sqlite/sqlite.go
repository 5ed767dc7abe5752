// Package sqlite is the embedded store engine: store.Store on a single
// SQLite file through modernc.org/sqlite (pure Go), in WAL mode.
//
// Writes go through one connection whose transactions begin IMMEDIATE, so
// writers in this process queue in Go and writers in other processes wait
// on busy_timeout instead of failing with SQLITE_BUSY; reads use a separate
// pool of read-only connections that WAL lets run alongside the writer.
// The schema lives in numbered, forward-only migrations embedded from
// migrations/ and applied by Open.
//
// It imports only store from this module.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlitelib "modernc.org/sqlite/lib"

	"frontdesk/store"
)

var _ store.Store = (*DB)(nil)

//go:embed migrations/*.sql
var migrationFS embed.FS

// busyTimeout is how long a write waits for another process's write lock
// (a `frontdesk sweep` next to `frontdesk serve`, say) before giving up.
const busyTimeout = 5 * time.Second

// DB is a store.Store on one SQLite file. It is safe for concurrent use.
type DB struct {
	writer *sql.DB // exactly one connection: the only writer in this process
	stmts  *statements
	reader *sql.DB // read-only connections for Get, Counts and Ready
	// counts is prepared once: availability is the hottest read, and
	// parsing its SQL on every call cost as much as running it.
	counts *sql.Stmt
	get    *sql.Stmt // one record by kind and key, the most frequent read
	latest int       // the newest embedded migration, which Ready expects
}

// Open opens (creating if needed) the database file at path, applies any
// pending migrations and returns the store. The path must name a file:
// ":memory:" would give every pooled connection its own empty database.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite: path %q must be a plain file path", path)
	}
	// The driver cuts a plain file name at its first '?', so such a name
	// would silently open some other file.
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("open sqlite: path %q must not contain '?'", path)
	}
	ms, err := loadMigrations()
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}

	timeout := strconv.FormatInt(busyTimeout.Milliseconds(), 10)
	w := url.Values{}
	w.Set("_busy_timeout", timeout)
	w.Set("_foreign_keys", "1")
	w.Set("_journal_mode", "WAL")
	// FULL makes every acknowledged booking survive a power cut, not just
	// a crash of the process.
	w.Set("_synchronous", "FULL")
	// IMMEDIATE takes the write lock at BEGIN, so two writers serialize at
	// the start instead of one failing when it upgrades a read lock.
	w.Set("_txlock", "immediate")
	writer, err := sql.Open("sqlite", path+"?"+w.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxLifetime(0) // keep the one connection, and the statements prepared on it

	db := &DB{writer: writer, stmts: &statements{db: writer}, latest: ms[len(ms)-1].version}
	// The writer connects and migrates first, so the file is in WAL mode
	// before any reader opens it.
	if err := migrate(ctx, writer, ms); err != nil {
		writer.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}

	r := url.Values{}
	r.Set("_busy_timeout", timeout)
	r.Set("_foreign_keys", "1")
	r.Set("_query_only", "1")
	reader, err := sql.Open("sqlite", path+"?"+r.Encode())
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	readers := max(4, runtime.NumCPU())
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers) // keep connections, and their prepared statements
	db.reader = reader
	if err := reader.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	for _, q := range []string{
		insertRecordSQL, swapRecordSQL, deleteRecordSQL, recordExistsSQL,
		insertHoldSQL, insertHoldSlotSQL, slotSQL, insertSlotSQL, takeSlotSQL,
		deleteHoldSlotsSQL, deleteHoldSQL, giveSlotSQL,
		insertReservationSQL, swapReservationSQL, reservationExistsSQL,
	} {
		if _, err := db.stmts.get(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
	}
	if db.get, err = reader.PrepareContext(ctx, getRecordSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db.counts, err = reader.PrepareContext(ctx, countsSQL)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	return db, nil
}

// Ready reports whether the file answers and the newest embedded migration
// has been applied.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.reader.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite ready: %w", err)
	}
	var n int
	err := db.reader.QueryRowContext(ctx,
		`SELECT count(*) FROM schema_migrations WHERE version = ?`, db.latest).Scan(&n)
	if err != nil {
		return fmt.Errorf("sqlite ready: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("sqlite ready: migration %d not applied", db.latest)
	}
	return nil
}

// Close closes both pools.
func (db *DB) Close() error {
	var errs []error
	errs = append(errs, db.stmts.close())
	for _, st := range []*sql.Stmt{db.counts, db.get} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if db.reader != nil {
		errs = append(errs, db.reader.Close())
	}
	errs = append(errs, db.writer.Close())
	return errors.Join(errs...)
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

// migrate applies every migration the file has not seen yet. Each runs in
// its own immediate transaction that first checks schema_migrations, so two
// processes opening one file at once apply each migration exactly once.
func migrate(ctx context.Context, db *sql.DB, ms []migration) error {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER NOT NULL PRIMARY KEY,
		name    TEXT    NOT NULL
	) STRICT`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		if err := applyMigration(ctx, db, m); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var n int
	err = tx.QueryRowContext(ctx,
		`SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, m.version, m.name)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// isUniqueViolation reports whether err is SQLite refusing a duplicate
// primary or unique key. It reads the extended result code, never the
// message text.
func isUniqueViolation(err error) bool {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code() == sqlitelib.SQLITE_CONSTRAINT_PRIMARYKEY ||
		e.Code() == sqlitelib.SQLITE_CONSTRAINT_UNIQUE
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
