package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/sqlite"
)

// errPostgresBackup answers backup and restore on PostgreSQL, whose own
// tools do both while the servers run.
var errPostgresBackup = errors.New("the store is PostgreSQL: back it up with pg_dump and restore with pg_restore (see docs/operating.md, Backups)")

// runBackup writes a consistent copy of the SQLite store to FILE while
// serve may go on serving.
func runBackup(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	m, fs, err := newMainWith(clk, "backup", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("usage: frontdesk backup FILE (see frontdesk backup --help)")
	}
	if m.Config.Store.Database != "" {
		return errPostgresBackup
	}
	s, err := sqlite.Backup(ctx, sqlitePath(m.Config.Store), fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %s\n", sqlitePath(m.Config.Store), fs.Arg(0), s)
	return nil
}

// runRestore replaces the SQLite store with a backup, refusing while any
// frontdesk process has the store open.
func runRestore(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	m, fs, err := newMainWith(clk, "restore", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("usage: frontdesk restore FILE (see frontdesk restore --help)")
	}
	if m.Config.Store.Database != "" {
		return errPostgresBackup
	}
	if err := os.MkdirAll(m.Config.Store.DataDir, 0o750); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	kept, s, err := sqlite.Restore(ctx, sqlitePath(m.Config.Store), fs.Arg(0), m.Clock.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s: %s\n", sqlitePath(m.Config.Store), fs.Arg(0), s)
	if kept != "" {
		fmt.Fprintf(stdout, "the database it replaced is kept as %s\n", kept)
	}
	return nil
}

// sqlitePath is the SQLite file of the store, as openStore opens it.
func sqlitePath(c config.Store) string { return filepath.Join(c.DataDir, "frontdesk.db") }
