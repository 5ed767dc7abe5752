package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"frontdesk/store"
)

// holdEnv names the file a child process of TestCountsSeeEveryCommit
// holds a room in, as `frontdesk mcp` or `frontdesk sweep` would.
const holdEnv = "FRONTDESK_SQLITE_TEST_HOLD"

// TestMain lets the test binary stand for another process writing the
// same file: with holdEnv set, it holds one double for the night of
// 2026-12-01 there and exits.
func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		os.Exit(holdIn(path))
	}
	os.Exit(m.Run())
}

func holdIn(path string) int {
	db, err := Open(context.Background(), path)
	if err == nil {
		err = db.Hold(context.Background(), doubleHold("other-process"))
		err = errors.Join(err, db.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func doubleHold(id string) store.Hold {
	return store.Hold{ID: id, Location: "riverside", Unit: "double", Slots: []string{"2026-12-01"}, Units: 1, Capacity: 5, At: at()}
}

// TestCountsSeeEveryCommit: availability counts are cached, and a room
// held after they were read, by this process, by another handle on the
// file or by another process, shows in the next read: a cache that
// showed a sold room as free would sell it twice.
func TestCountsSeeEveryCommit(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	db, other := open(t, path), open(t, path)
	held := func(want int) {
		t.Helper()
		for range 2 { // the second read comes from the cache
			got, err := db.Counts(ctx, "riverside", "2026-12-01", "2026-12-02")
			if err != nil {
				t.Fatalf("Counts = %v, want nil", err)
			}
			if n := heldOf(got); n != want {
				t.Fatalf("Counts = %v: %d held, want %d", got, n, want)
			}
		}
	}
	held(0)
	if err := db.Hold(ctx, doubleHold("this-handle")); err != nil {
		t.Fatal(err)
	}
	held(1)
	if err := other.Hold(ctx, doubleHold("other-handle")); err != nil {
		t.Fatal(err)
	}
	held(2)
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), holdEnv+"="+path)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("the other process: %v: %s", err, out)
	}
	held(3)
	if err := db.Release(ctx, "this-handle", at()); err != nil {
		t.Fatal(err)
	}
	held(2)
}

func heldOf(cs []store.Count) int {
	n := 0
	for _, c := range cs {
		n += c.Held
	}
	return n
}
