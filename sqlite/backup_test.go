package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/internal/filelock"
	"frontdesk/store"
)

// TestBackupAndRestore backs up a database another handle keeps writing,
// is refused a restore while that handle is open, and restores once it is
// closed, keeping the replaced file.
func TestBackupAndRestore(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "frontdesk.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Create(ctx, store.Record{Kind: "k", Key: "before", Value: []byte("v"), UpdatedAt: at()}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "backup.db")
	s, err := Backup(ctx, path, backup)
	if err != nil {
		t.Fatalf("Backup = %v, want nil", err)
	}
	if s.Records != 1 || s.Migration < 2 {
		t.Fatalf("Backup summary = %+v, want 1 record at the newest schema", s)
	}
	if _, err := Backup(ctx, path, backup); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("Backup onto an existing file = %v, want a refusal", err)
	}
	if _, err := db.Create(ctx, store.Record{Kind: "k", Key: "after", Value: []byte("v"), UpdatedAt: at()}); err != nil {
		t.Fatal(err)
	}

	if _, _, err := Restore(ctx, path, backup, at()); !errors.Is(err, ErrInUse) {
		t.Fatalf("Restore while the database is open = %v, want %v", err, ErrInUse)
	}
	if _, err := db.Get(ctx, "k", "after"); err != nil {
		t.Fatalf("the refused restore changed the database: %v", err)
	}
	db.Close()

	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte("not a database"), 0o600)
	if _, _, err := Restore(ctx, path, garbage, at()); err == nil {
		t.Fatal("Restore of a file that is no database = nil, want an error")
	}
	kept, _, err := Restore(ctx, path, backup, at())
	if err != nil {
		t.Fatalf("Restore = %v, want nil", err)
	}
	if want := path + ".replaced-20261130T090000Z"; kept != want {
		t.Fatalf("Restore kept the old database as %q, want %q", kept, want)
	}
	restored := open(t, path)
	if _, err := restored.Get(ctx, "k", "before"); err != nil {
		t.Fatalf("Get of the record in the backup = %v, want it", err)
	}
	if _, err := restored.Get(ctx, "k", "after"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a record written after the backup = %v, want %v", err, store.ErrNotFound)
	}
	old := open(t, kept)
	if _, err := old.Get(ctx, "k", "after"); err != nil {
		t.Fatalf("the kept database lost a record its WAL held: %v", err)
	}
}

// TestOpenRefusedDuringRestore: while a restore holds the lock, Open says
// so instead of opening a file about to be replaced.
func TestOpenRefusedDuringRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	unlock, busy, err := filelock.Lock(lockPath(path), true)
	if err != nil || busy {
		t.Fatalf("filelock.Lock = %v, %v", busy, err)
	}
	defer unlock()
	if db, err := Open(t.Context(), path); !errors.Is(err, errRestoring) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open during a restore = %v, want %v", err, errRestoring)
	}
}
