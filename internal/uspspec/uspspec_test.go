package uspspec

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCopiesMatch checks every file kept in testdata against the
// specification's own folders, when FRONTDESK_USP_SPEC names them (or they
// sit in ../shared/spec beside the repository), byte for byte.
func TestCopiesMatch(t *testing.T) {
	copies := Copies(t)
	upstream := os.Getenv("FRONTDESK_USP_SPEC")
	if upstream == "" {
		upstream = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(copies))), "..", "shared", "spec")
	}
	if _, err := os.Stat(filepath.Join(upstream, "usp-newer")); err != nil {
		t.Skipf("no specification folder to compare the copies with (%v); set FRONTDESK_USP_SPEC to the folder holding usp-2026-08-20 and usp-newer", err)
	}
	n := 0
	err := filepath.WalkDir(copies, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(copies, path)
		if rel == "NOTICE" {
			return nil
		}
		got, _ := os.ReadFile(path)
		want, err := os.ReadFile(filepath.Join(upstream, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the specification's copy in %s", rel, upstream)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("compared %d files, want the 30 or more the tests read", n)
	}
}

// TestFoldersFound checks that the copies are found without any
// environment, as on a fresh clone.
func TestFoldersFound(t *testing.T) {
	t.Setenv("FRONTDESK_USP_SPEC", "")
	for _, dir := range []string{Snapshot(t), Newer(t)} {
		if _, err := os.Stat(filepath.Join(dir, "LICENSE")); err != nil {
			t.Errorf("no LICENSE beside the copies in %s: %v", dir, err)
		}
	}
	s := Load(t)
	if len(s.NewerParams()) == 0 {
		t.Fatal("the newer OpenRPC document lists no methods")
	}
}
