// Package sqlmigrate applies numbered, forward-only SQL migrations
// embedded in a store engine, and records each one applied in a
// schema_migrations table so it runs once per database.
//
// The engine supplies its transactions through Tx and its own schema for
// schema_migrations; everything else, the numbering rule and the order of
// the steps, is the same on every engine. It imports only the standard
// library.
package sqlmigrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one embedded schema change.
type Migration struct {
	Version int
	Name    string // the file name, recorded beside the version
	SQL     string
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
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
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

// Run creates schema_migrations with createTable if it is missing, then
// applies every migration the database has not seen, each in its own
// transaction from begin that first checks schema_migrations, so two
// processes migrating at once apply each migration exactly once. A failed
// migration rolls back whole and stops the run.
func Run(ctx context.Context, begin func(context.Context) (Tx, error), createTable string, ms []Migration) error {
	err := inTx(ctx, begin, func(tx Tx) error {
		_, err := tx.Exec(ctx, createTable)
		return err
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
			_, err = tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.Name, err)
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
// applied, by version and name.
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
		found, err := q.QueryRow(ctx, `SELECT 1 FROM schema_migrations WHERE version = $1 AND name = $2`, []any{m.Version, m.Name}, &one)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("migration %s not applied", m.Name)
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
