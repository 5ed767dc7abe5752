package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"frontdesk/internal/filelock"
	"frontdesk/internal/sqlmigrate"
)

// Every process that opens the database holds a shared lock on the file
// beside it named by lockPath for as long as it has the database open;
// Restore takes it exclusively, so it never replaces a file a server,
// sweep or staff command is using, and no process opens the file while a
// restore is under way.
func lockPath(path string) string { return path + ".lock" }

// ErrInUse is a restore refused because another process has the database
// open.
var ErrInUse = errors.New("the database is in use by another frontdesk process (serve, mcp, sweep or a staff command); stop it, then restore")

// errRestoring is an Open refused while a restore replaces the file.
var errRestoring = errors.New("a restore is replacing the database; start again when it has finished")

// openLock takes the shared lock Open holds.
func openLock(path string) (func(), error) {
	unlock, busy, err := filelock.Lock(lockPath(path), false)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lockPath(path), err)
	}
	if busy {
		return nil, errRestoring
	}
	return unlock, nil
}

// Backup writes a consistent copy of the database at path to dest while
// other processes go on reading and writing it: VACUUM INTO reads one
// snapshot in a read transaction, which WAL lets run beside the writer,
// and writes a compact file with no WAL of its own. The copy goes to a
// temporary file beside dest, is synced and checked, then renamed, so
// dest is either absent or complete. An existing dest is refused.
func Backup(ctx context.Context, path, dest string) (Summary, error) {
	if _, err := os.Stat(path); err != nil {
		return Summary{}, fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return Summary{}, fmt.Errorf("backup: %s exists already; name a new file", dest)
	}
	tmp := dest + ".partial"
	_ = os.Remove(tmp) // a partial copy left by an interrupted backup
	// Not query_only: SQLite counts writing the copy as a write, though
	// the source is only read.
	db, err := sql.Open("sqlite", path+"?_busy_timeout=3000")
	if err != nil {
		return Summary{}, fmt.Errorf("backup: %w", err)
	}
	defer func() { _ = db.Close() }() // read or written already; the operation's own error decided the outcome
	if _, err := db.ExecContext(ctx, `VACUUM INTO $1`, tmp); err != nil {
		_ = os.Remove(tmp) // a leftover is removed by the next run
		return Summary{}, fmt.Errorf("backup: %w", err)
	}
	s, err := finish(ctx, tmp, dest)
	if err != nil {
		_ = os.Remove(tmp) // a leftover is removed by the next run
		return Summary{}, fmt.Errorf("backup: %w", err)
	}
	return s, nil
}

// Summary describes a database file, as backup and restore report it.
type Summary struct {
	Migration    int // the newest migration applied
	Reservations int
	Records      int
}

func (s Summary) String() string {
	return fmt.Sprintf("schema version %d, %d reservations, %d other records", s.Migration, s.Reservations, s.Records)
}

// readOnly are the connection settings of a reader that never writes.
func readOnly() url.Values {
	v := url.Values{}
	v.Set("_busy_timeout", "3000")
	v.Set("_query_only", "1")
	return v
}

// inspect checks a database file whole and summarises it.
func inspect(ctx context.Context, path string) (Summary, error) {
	db, err := sql.Open("sqlite", path+"?"+readOnly().Encode())
	if err != nil {
		return Summary{}, err
	}
	defer func() { _ = db.Close() }() // read or written already; the operation's own error decided the outcome
	var ok string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil {
		return Summary{}, fmt.Errorf("%s is not a frontdesk database: %w", path, err)
	}
	if ok != "ok" {
		return Summary{}, fmt.Errorf("%s fails its integrity check: %s", path, ok)
	}
	var s Summary
	err = db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&s.Migration)
	if err == nil {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&s.Records)
	}
	if err == nil && s.Migration >= 2 {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM reservations`).Scan(&s.Reservations)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("%s is not a frontdesk database: %w", path, err)
	}
	return s, nil
}

// finish syncs and checks the copy at tmp, then renames it to dest.
func finish(ctx context.Context, tmp, dest string) (Summary, error) {
	if err := syncFile(tmp); err != nil {
		return Summary{}, err
	}
	s, err := inspect(ctx, tmp)
	if err != nil {
		return Summary{}, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Summary{}, err
	}
	return s, syncFile(filepath.Dir(dest))
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read or written already; the operation's own error decided the outcome
	return f.Sync()
}

// Restore replaces the database at path with the backup from, and returns
// where the database it replaced was kept (empty when there was none).
// It refuses with ErrInUse while any other process has the database
// open, and holds the lock until the new file is in place, so nothing
// opens the database halfway. The backup is copied, checked whole and
// opened with this binary's migrations before anything is replaced: a
// damaged file, or one from a newer release, changes nothing. The old
// database is folded into one file (its WAL checkpointed) and kept beside
// it as path.replaced-TIME.
func Restore(ctx context.Context, path, from string, now time.Time) (kept string, s Summary, err error) {
	unlock, busy, err := filelock.Lock(lockPath(path), true)
	if err != nil {
		return "", Summary{}, fmt.Errorf("restore: lock %s: %w", lockPath(path), err)
	}
	if busy {
		return "", Summary{}, fmt.Errorf("restore: %w", ErrInUse)
	}
	defer unlock()

	tmp := path + ".restoring"
	_ = os.Remove(tmp) // a leftover is removed by the next run
	if err := copyFile(from, tmp); err != nil {
		return "", Summary{}, fmt.Errorf("restore: %w", err)
	}
	defer func() { _ = os.Remove(tmp) }() // a leftover is removed by the next run
	if _, err := inspect(ctx, tmp); err != nil {
		return "", Summary{}, fmt.Errorf("restore: %w", err)
	}
	// Migrating the copy checks its checksums and refuses a schema newer
	// than this binary's, as serve would, before the old file is touched.
	if err := migrateFile(ctx, tmp); err != nil {
		return "", Summary{}, fmt.Errorf("restore: %s: %w", from, err)
	}
	if _, err := os.Stat(path); err == nil {
		if err := checkpoint(ctx, path); err != nil {
			return "", Summary{}, fmt.Errorf("restore: fold the current database's WAL: %w", err)
		}
		kept = path + ".replaced-" + now.UTC().Format("20060102T150405Z")
		if err := os.Rename(path, kept); err != nil {
			return "", Summary{}, fmt.Errorf("restore: %w", err)
		}
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Remove(path + suffix) // empty after the checkpoint; they belong to the old file
	}
	s, err = finish(ctx, tmp, path)
	if err != nil {
		return kept, Summary{}, fmt.Errorf("restore: %w", err)
	}
	return kept, s, nil
}

// migrateFile applies this binary's migrations to the file at path.
func migrateFile(ctx context.Context, path string) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	w, err := sql.Open("sqlite", path+"?_txlock=immediate&_busy_timeout=3000")
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }() // read or written already; the operation's own error decided the outcome
	w.SetMaxOpenConns(1)
	db := &DB{writer: w}
	return sqlmigrate.Run(ctx, db.begin, migrationSchema, ms)
}

// checkpoint writes the WAL of the database at path into the file and
// empties it; no other process has it open (Restore holds the lock).
func checkpoint(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", path+"?_busy_timeout=3000")
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // read or written already; the operation's own error decided the outcome
	var busy, logged, done int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil {
		return err
	}
	if busy != 0 {
		return ErrInUse // another connection, outside frontdesk's lock, reads it
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read or written already; the operation's own error decided the outcome
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close() // the copy failed; that error is the one reported
		return err
	}
	return out.Close()
}
