//go:build unix

package sqlite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMappedHeaderCutShortIsNotRead: a WAL index cut shorter under its
// mapping faults on reading; that read reports no header, so the caller
// asks SQLite, instead of the process dying.
func TestMappedHeaderCutShortIsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	whole := make([]byte, 4096)
	for i := range 48 {
		whole[i], whole[48+i] = byte(i+1), byte(i+1)
	}
	if err := os.WriteFile(path+"-shm", whole, 0o600); err != nil {
		t.Fatal(err)
	}
	w := openWALIndex(path)
	if w == nil || w.mapped == nil {
		t.Fatal("the index was not mapped")
	}
	defer func() { _ = w.close() }()
	if _, ok := w.header(); !ok {
		t.Fatal("a whole header was not read")
	}
	if err := os.Truncate(path+"-shm", 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.header(); ok {
		t.Fatal("a header was read from a file cut to nothing")
	}
}
