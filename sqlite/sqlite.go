// Package sqlite is the embedded store engine: store.Store on a single
// SQLite file through modernc.org/sqlite (pure Go), in WAL mode.
//
// Writes go through one connection whose transactions begin IMMEDIATE, so
// writers in this process queue in Go and writers in other processes wait
// on busy_timeout instead of failing with SQLITE_BUSY. The writers queued
// at one moment share a transaction and its flush to disk, each in a
// savepoint of its own (group.go). Reads use a separate pool of read-only
// connections that WAL lets run alongside the writer.
// The schema lives in numbered, forward-only migrations embedded from
// migrations/ and applied by Open. The operations themselves, shared with
// the PostgreSQL engine, are in store/sqlstore; this package supplies the
// connections, the prepared statements and what SQLite does its own way.
//
// It imports store, store/sqlstore and internal/sqlmigrate from this
// module.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlitelib "modernc.org/sqlite/lib"

	"frontdesk/internal/sqlmigrate"
	"frontdesk/store"
	"frontdesk/store/sqlstore"
)

var _ store.Store = (*DB)(nil)

//go:embed migrations/*.sql
var migrationFS embed.FS

// busyTimeout is how long a write waits for another process's write lock
// (a `frontdesk sweep` next to `frontdesk serve`, say) before giving up.
// It is shorter than the 4 seconds the booking service allows one store
// request, so a write that cannot get the lock ends with SQLITE_BUSY,
// known not to have written, before that limit would cut it off with an
// outcome the caller must treat as unknown.
const busyTimeout = 3 * time.Second

// migrationSchema is this engine's table of applied migrations.
var migrationSchema = sqlmigrate.Schema{
	Create: `CREATE TABLE IF NOT EXISTS schema_migrations (
	version  INTEGER NOT NULL PRIMARY KEY,
	name     TEXT    NOT NULL,
	checksum TEXT    NOT NULL DEFAULT ''
) STRICT`,
	HasChecksum: `SELECT count(*) FROM pragma_table_info('schema_migrations') WHERE name = 'checksum'`,
}

// dialect is how SQLite differs in the shared operations.
var dialect = sqlstore.Dialect{
	IsUnique: isUniqueViolation,
	// json_each turns the slots, sent as one JSON array, into rows.
	InsertHoldSlots: `INSERT INTO hold_slots (hold_id, slot) SELECT $1, value FROM json_each($2)`,
	SlotList: func(slots []string) any {
		b, _ := json.Marshal(slots) // a []string always marshals
		return string(b)
	},
	PrefixEnd: prefixEnd,
	// Every write goes through the one writer connection.
	OneWriter: true,
}

// DB is a store.Store on one SQLite file. It is safe for concurrent use.
type DB struct {
	sqlstore.Engine
	writer *sql.DB     // exactly one connection: the only writer in this process
	stmts  *statements // prepared on the writer
	reader *sql.DB     // read-only connections for the reads and Ready
	// reads are prepared once on the read pool: availability is the
	// hottest read, and parsing its SQL on every call cost as much as
	// running it.
	reads   *statements
	readers *readers     // run the reads of the pool (readers.go)
	counts  *countsCache // availability counts while the file is unchanged (counts.go)
	group   *committer   // runs every write transaction once Open is done
	latest  int          // the newest embedded migration, which Ready expects
	unlock  func()       // releases the lock that keeps a restore away
	path    string       // the database file, whose disk Ready checks
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
	return openMigrations(ctx, path, ms)
}

// openMigrations is Open with the migrations given, for tests that stand
// for another release. It holds the shared lock of lockPath while the
// database is open (backup.go).
func openMigrations(ctx context.Context, path string, ms []sqlmigrate.Migration) (*DB, error) {
	unlock, err := openLock(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db, err := openLocked(ctx, path, ms)
	if err != nil {
		unlock()
		return nil, err
	}
	db.unlock = unlock
	return db, nil
}

func openLocked(ctx context.Context, path string, ms []sqlmigrate.Migration) (*DB, error) {
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
	// The savepoints of a group (group.go) keep the pages they change in
	// a statement journal, which spilled to a temporary file past 64 KiB:
	// a write syscall per page, more than the commit's own. In memory it
	// costs what a copy does.
	w.Add("_pragma", "temp_store(memory)")
	// secure_delete overwrites a deleted record's bytes with zeros, so a
	// purged guest's name, email and phone do not linger in free pages of
	// the file; Scrub then checkpoints the log that still holds them.
	w.Add("_pragma", "secure_delete(on)")
	writer, err := sql.Open("sqlite", path+"?"+w.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxLifetime(0) // keep the one connection, and the statements prepared on it

	db := &DB{writer: writer, stmts: &statements{db: writer}, latest: ms[len(ms)-1].Version, path: path}
	// The writer connects and migrates first, so the file is in WAL mode
	// before any reader opens it.
	if err := sqlmigrate.Run(ctx, db.begin, migrationSchema, ms); err != nil {
		return nil, errors.Join(fmt.Errorf("open sqlite: %w", err), writer.Close())
	}

	r := url.Values{}
	r.Set("_busy_timeout", timeout)
	r.Set("_foreign_keys", "1")
	r.Set("_query_only", "1")
	reader, err := sql.Open("sqlite", path+"?"+r.Encode())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open sqlite: %w", err), writer.Close())
	}
	readers := max(4, runtime.NumCPU())
	// One connection more than the readers: the counts cache holds one.
	reader.SetMaxOpenConns(readers + 1)
	reader.SetMaxIdleConns(readers + 1) // keep connections, and their prepared statements
	db.reader = reader
	db.reads = &statements{db: reader}
	db.readers = newReaders(readers)
	if err := reader.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("open sqlite: %w", err), db.Close())
	}
	if err := db.prepare(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("open sqlite: %w", err), db.Close())
	}
	if db.counts, err = newCountsCache(ctx, path, reader, db.readers); err != nil {
		return nil, errors.Join(fmt.Errorf("open sqlite: %w", err), db.Close())
	}
	db.group = newCommitter(writer, db.stmts)
	db.Engine = sqlstore.Engine{
		Dialect: dialect,
		Read:    prepared{stmts: db.reads, on: db.readers},
		Write:   single{db.group},
		InTx:    db.group.run,
	}
	return db, nil
}

// prepare prepares the statements of every write on the writer, so a
// write inside a transaction parses no SQL, and the hottest reads on the
// read pool.
func (db *DB) prepare(ctx context.Context) error {
	for _, q := range []string{
		sqlstore.InsertRecordSQL, sqlstore.SwapRecordSQL, sqlstore.DeleteRecordSQL, sqlstore.RecordExistsSQL,
		sqlstore.InsertHoldSQL, dialect.InsertHoldSlots, sqlstore.SlotSQL, sqlstore.InsertSlotSQL,
		sqlstore.TakeSlotSQL, sqlstore.DeleteHoldSlotsSQL, sqlstore.DeleteHoldSQL, sqlstore.GiveSlotSQL,
		sqlstore.InsertReservationSQL, sqlstore.SwapReservationSQL, sqlstore.ReservationExistsSQL,
		savepointSQL, rollbackToSQL, releaseSQL,
		sqlstore.LockCounterSQL, sqlstore.ExpireCounterSQL, sqlstore.DropBucketsSQL, sqlstore.GiveBackHeadSQL,
		sqlstore.GiveBackBucketSQL, sqlstore.ClearBucketsSQL, sqlstore.ClearHeadSQL, sqlstore.ForgetCounterSQL,
	} {
		if _, err := db.stmts.get(ctx, q); err != nil {
			return err
		}
	}
	// The runs of takes as long as a booking's (takes.go).
	for n := 1; n <= 6; n++ {
		read, drop, upsert := sqlstore.TakeStatements(n)
		for _, q := range []string{read, drop, upsert} {
			if _, err := db.stmts.get(ctx, q); err != nil {
				return err
			}
		}
	}
	for _, q := range []string{sqlstore.GetRecordSQL, sqlstore.CountsSQL} {
		if _, err := db.reads.get(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// begin starts a migration transaction on the writer.
func (db *DB) begin(ctx context.Context) (sqlmigrate.Tx, error) {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return migrationTx{script{tx}, tx}, nil
}

// script runs unprepared statements on a pool or in a transaction, as
// the migrations need: a migration is a file of several statements, which
// a prepared statement cannot hold.
type script struct {
	c interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (s script) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := s.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s script) QueryRow(ctx context.Context, query string, args []any, dest ...any) (bool, error) {
	err := s.c.QueryRowContext(ctx, query, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// migrationTx is a writer transaction as the migrations use it.
type migrationTx struct {
	script
	tx *sql.Tx
}

func (m migrationTx) Commit(context.Context) error   { return m.tx.Commit() }
func (m migrationTx) Rollback(context.Context) error { return m.tx.Rollback() }

// loadMigrations reads the embedded migrations in order.
func loadMigrations() ([]sqlmigrate.Migration, error) {
	return sqlmigrate.Load(migrationFS, "migrations")
}

// minFree is the free space below which the file's disk counts as full:
// a write may still fit in pages the log reuses, but the next booking
// that grows the file would fail.
const minFree = 16 << 20

// Ready reports whether the file answers, the newest embedded migration
// has been applied, a write commits and the disk has room.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.reader.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite ready: %w", err)
	}
	ok, err := sqlmigrate.Applied(ctx, script{db.reader}, db.latest)
	if err != nil {
		return fmt.Errorf("sqlite ready: %w", err)
	}
	if !ok {
		return fmt.Errorf("sqlite ready: migration %d not applied", db.latest)
	}
	if err := db.ProbeWrite(ctx); err != nil {
		return fmt.Errorf("sqlite ready: %w", err)
	}
	if free, known := freeBytes(db.path); known && free < minFree {
		return fmt.Errorf("sqlite ready: %d bytes free on the disk of %s", free, db.path)
	}
	return nil
}

var _ store.Scrubber = (*DB)(nil)

// Scrub copies the write-ahead log into the file and truncates it, so the
// pages that held deleted records before secure_delete zeroed them are
// gone from the log too. A reader still using an old snapshot keeps the
// checkpoint from finishing; that is reported as an error, and the next
// Scrub finishes the work.
func (db *DB) Scrub(ctx context.Context) error {
	var busy, logged, copied int
	if err := db.writer.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &copied); err != nil {
		return fmt.Errorf("sqlite scrub: %w", err)
	}
	if busy != 0 {
		return errors.New("sqlite scrub: a reader kept the checkpoint from finishing")
	}
	return nil
}

// Close closes both pools.
func (db *DB) Close() error {
	var errs []error
	db.readers.close() // the reads under way end first
	if db.group != nil {
		db.group.close()
	}
	errs = append(errs, db.stmts.close())
	if db.reads != nil {
		errs = append(errs, db.reads.close())
	}
	errs = append(errs, db.counts.close())
	if db.reader != nil {
		errs = append(errs, db.reader.Close())
	}
	errs = append(errs, db.writer.Close())
	if db.unlock != nil {
		db.unlock()
		db.unlock = nil
	}
	return errors.Join(errs...)
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
