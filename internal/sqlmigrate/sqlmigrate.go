// Package sqlmigrate applies numbered, forward-only SQL migrations
// embedded in a store engine, and records each one applied, with the
// SHA-256 of its file, in a schema_migrations table so it runs once per
// database and an edited migration is noticed.
//
// The engine supplies its transactions through Tx and its own schema for
// schema_migrations; everything else, the numbering rule, the checks made
// at every start and the order of the steps, is the same on every engine.
// It imports only the standard library.
package sqlmigrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one embedded schema change.
type Migration struct {
	Version  int
	Name     string // the file name, recorded beside the version
	SQL      string
	Checksum string // hex SHA-256 of SQL, recorded when it is applied
}

// Load reads the migrations in dir of fsys in order. Their names start with
// a number that counts up from 1 without gaps, so a missing or misnumbered
// file fails every Open instead of skipping a change.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, e := range entries {
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || v != len(ms)+1 {
			return nil, fmt.Errorf("migration %s: want number %04d", e.Name(), len(ms)+1)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(b), Checksum: Checksum(b)})
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
}

// Checksum is the hex SHA-256 of a migration file, as schema_migrations
// records it.
func Checksum(sql []byte) string {
	sum := sha256.Sum256(sql)
	return hex.EncodeToString(sum[:])
}

// Querier runs statements for the migrations, in a transaction or on a
// plain connection. Placeholders are written $1, $2, which every engine
// here accepts. Its methods are a part of each engine's own querier.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed;
	// without arguments the statement may be a script of several.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query and scans its first row into dest. found is
	// false when there is no row.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) (found bool, err error)
}

// Tx is one engine transaction. The engine's begin takes whatever lock
// keeps other processes from migrating at the same time.
type Tx interface {
	Querier
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Schema is how an engine keeps schema_migrations.
type Schema struct {
	// Create creates schema_migrations (version, name, checksum) if it
	// is missing.
	Create string
	// HasChecksum counts the checksum columns of schema_migrations (0 or
	// 1): a table created before checksums were recorded has none, and
	// gets one.
	HasChecksum string
}

// addChecksum is the same statement on every engine.
const addChecksum = `ALTER TABLE schema_migrations ADD COLUMN checksum TEXT NOT NULL DEFAULT ''`

// TooNewError is a database migrated by a newer binary than this one: its
// schema may have changed in ways this binary would misread, so it does
// not start on it.
type TooNewError struct {
	Database   int    // the newest migration applied to the database
	Name       string // its file name, as recorded
	Binary     int    // the newest migration this binary embeds
	BinaryName string
}

func (e *TooNewError) Error() string {
	return fmt.Sprintf("the database schema is at version %d (%s), newer than this binary knows (version %d, %s): it was migrated by a newer release; run that release, or restore a backup taken before the upgrade",
		e.Database, e.Name, e.Binary, e.BinaryName)
}

// ChecksumError is an applied migration whose recorded checksum or name
// differs from the file this binary embeds: the file was edited after it
// shipped, or the database was migrated by another build.
type ChecksumError struct {
	Version          int
	Name, Recorded   string // the name and checksum schema_migrations holds
	Embedded, Binary string // the name and checksum of this binary's file
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("migration %d was applied as %s with checksum %s, but this binary's %s has checksum %s: a migration is never edited after it ships",
		e.Version, e.Name, e.Recorded, e.Embedded, e.Binary)
}

// Run creates schema_migrations if it is missing, checks what the database
// has applied, then applies every migration it has not seen, each in its
// own transaction from begin that first checks schema_migrations, so two
// processes migrating at once apply each migration exactly once. A failed
// migration rolls back whole and stops the run.
//
// The checks come first and change nothing when they fail: a database
// with a migration newer than ms is a *TooNewError, and an applied
// migration whose name or checksum differs from ms is a *ChecksumError.
// A migration recorded before checksums were kept gets this binary's.
func Run(ctx context.Context, begin func(context.Context) (Tx, error), schema Schema, ms []Migration) error {
	err := inTx(ctx, begin, func(tx Tx) error {
		if _, err := tx.Exec(ctx, schema.Create); err != nil {
			return err
		}
		var n int
		if _, err := tx.QueryRow(ctx, schema.HasChecksum, nil, &n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.Exec(ctx, addChecksum); err != nil {
				return err
			}
		}
		return check(ctx, tx, ms)
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		err := inTx(ctx, begin, func(tx Tx) error {
			done, err := Applied(ctx, tx, m.Version)
			if err != nil || done {
				return err
			}
			// Without arguments the whole file goes in one call, which
			// every engine runs as a script of several statements.
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Checksum)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.Name, err)
		}
	}
	return nil
}

// check refuses a database newer than ms or one whose applied migrations
// differ from ms, and records the checksums of migrations applied before
// checksums were kept.
func check(ctx context.Context, tx Tx, ms []Migration) error {
	latest := ms[len(ms)-1]
	var newest int
	if _, err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`, nil, &newest); err != nil {
		return err
	}
	if newest > latest.Version {
		var name string
		if _, err := tx.QueryRow(ctx, `SELECT name FROM schema_migrations WHERE version = $1`, []any{newest}, &name); err != nil {
			return err
		}
		return &TooNewError{Database: newest, Name: name, Binary: latest.Version, BinaryName: latest.Name}
	}
	for _, m := range ms {
		var name, sum string
		found, err := tx.QueryRow(ctx, `SELECT name, checksum FROM schema_migrations WHERE version = $1`, []any{m.Version}, &name, &sum)
		if err != nil {
			return err
		}
		switch {
		case !found:
			continue
		case name != m.Name || sum != "" && sum != m.Checksum:
			return &ChecksumError{Version: m.Version, Name: name, Recorded: sum, Embedded: m.Name, Binary: m.Checksum}
		case sum == "":
			if _, err := tx.Exec(ctx, `UPDATE schema_migrations SET checksum = $1 WHERE version = $2`, m.Checksum, m.Version); err != nil {
				return err
			}
		}
	}
	return nil
}

// Applied reports whether migration version has been applied.
func Applied(ctx context.Context, q Querier, version int) (bool, error) {
	var one int
	return q.QueryRow(ctx, `SELECT 1 FROM schema_migrations WHERE version = $1`, []any{version}, &one)
}

// Verify reports an error unless the database lists exactly ms as
// applied, by version, name and checksum.
func Verify(ctx context.Context, q Querier, ms []Migration) error {
	var n int
	if _, err := q.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`, nil, &n); err != nil {
		return err
	}
	if n != len(ms) {
		return fmt.Errorf("%d migrations applied, want %d", n, len(ms))
	}
	for _, m := range ms {
		var one int
		found, err := q.QueryRow(ctx, `SELECT 1 FROM schema_migrations WHERE version = $1 AND name = $2 AND checksum = $3`, []any{m.Version, m.Name, m.Checksum}, &one)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("migration %s not applied with checksum %s", m.Name, m.Checksum)
		}
	}
	return nil
}

func inTx(ctx context.Context, begin func(context.Context) (Tx, error), fn func(Tx) error) error {
	tx, err := begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
