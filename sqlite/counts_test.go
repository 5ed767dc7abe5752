package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
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

// TestUnchangedFileIsNotAskedAgain: while nothing is committed, reads
// take the WAL index's word for it and do not ask SQLite; a commit from
// another handle makes the next read ask again. On Unix the word is read
// from the index mapped into memory, without a system call.
func TestUnchangedFileIsNotAskedAgain(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	db, other := open(t, path), open(t, path)
	if mapped := db.counts.index != nil && db.counts.index.mapped != nil; mapped != mapsHeader {
		t.Fatalf("WAL index mapped = %v, want %v", mapped, mapsHeader)
	}
	asked := func() int {
		db.counts.mu.Lock()
		defer db.counts.mu.Unlock()
		return db.counts.asked
	}
	read := func() {
		t.Helper()
		if _, err := db.Counts(ctx, "riverside", "2026-12-01", "2026-12-02"); err != nil {
			t.Fatal(err)
		}
	}
	read()
	before := asked()
	for range 5 {
		read()
	}
	if got := asked(); got != before {
		t.Fatalf("five reads of an unchanged file asked SQLite %d times, want 0", got-before)
	}
	if err := other.Hold(ctx, doubleHold("other-handle")); err != nil {
		t.Fatal(err)
	}
	read()
	if got := asked(); got != before+1 {
		t.Fatalf("the read after a commit asked SQLite %d times, want 1", got-before)
	}
}

// TestWALIndexHeaderTrustedOnlyWhole: a header is taken only when both
// copies agree and the index is built; a commit writing them, or an
// index not yet built, sends the read to SQLite.
func TestWALIndexHeaderTrustedOnlyWhole(t *testing.T) {
	whole := make([]byte, 96)
	for i := range 48 {
		whole[i] = byte(i + 1)
	}
	copy(whole[48:], whole[:48])
	torn := bytes.Clone(whole)
	torn[48+16]++ // the second copy has the next commit's frame count
	unbuilt := bytes.Clone(whole)
	unbuilt[12], unbuilt[48+12] = 0, 0
	for _, c := range []struct {
		name string
		file []byte
		ok   bool
	}{
		{"whole", whole, true},
		{"torn", torn, false},
		{"not built", unbuilt, false},
		{"short", whole[:60], false},
	} {
		h, ok := (&walIndex{f: bytes.NewReader(c.file)}).header()
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.name, ok, c.ok)
		}
		if ok && !bytes.Equal(h[:], whole[:48]) {
			t.Errorf("%s: header = %x, want the first copy", c.name, h)
		}
	}
	if _, ok := (*walIndex)(nil).header(); ok {
		t.Error("no index: ok = true, want false")
	}
}

// BenchmarkCountsUnchanged is the hottest read as find_rooms makes it:
// counts for a window of a file nothing has been committed to since.
func BenchmarkCountsUnchanged(b *testing.B) {
	db := open(b, filepath.Join(b.TempDir(), "frontdesk.db"))
	if err := db.Hold(b.Context(), doubleHold("held")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Counts(b.Context(), "riverside", "2026-12-01", "2026-12-04"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordsSeeEveryCommit: single records are cached like the counts,
// and a record created, changed or deleted by another handle on the file
// shows in the next Get, as does an absent one created since it was
// asked for. A copy handed out and changed does not change the cache.
func TestRecordsSeeEveryCommit(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	db, other := open(t, path), open(t, path)
	get := func(want string) {
		t.Helper()
		for range 3 { // the second and third reads come from the cache
			r, err := db.Get(ctx, "settings", "current")
			switch {
			case want == "" && !errors.Is(err, store.ErrNotFound):
				t.Fatalf("Get = %q, %v; want store.ErrNotFound", r.Value, err)
			case want != "" && (err != nil || string(r.Value) != want):
				t.Fatalf("Get = %q, %v; want %s", r.Value, err, want)
			}
			if err == nil {
				r.Value[0] = 'X' // the caller's copy
			}
		}
	}
	get("")
	r, err := other.Create(ctx, store.Record{Kind: "settings", Key: "current", Value: []byte(`{"v":1}`), UpdatedAt: at()})
	if err != nil {
		t.Fatal(err)
	}
	get(`{"v":1}`)
	r.Value = []byte(`{"v":2}`)
	if r, err = other.Swap(ctx, r); err != nil {
		t.Fatal(err)
	}
	get(`{"v":2}`)
	if err := other.Delete(ctx, "settings", "current", r.Version); err != nil {
		t.Fatal(err)
	}
	get("")
}

// TestCachedReadsNeverMissACommit races readers against commits from
// another handle: a read that starts after a commit has returned must
// see it, whether it comes from SQLite or from the cache.
func TestCachedReadsNeverMissACommit(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	db, other := open(t, path), open(t, path)
	const commits = 40
	var done atomic.Int64 // commits returned so far
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done.Load() < commits {
				before := done.Load()
				cs, err := db.Counts(ctx, "riverside", "2026-12-01", "2026-12-02")
				if err != nil {
					errs <- err
					return
				}
				r, err := db.Get(ctx, "settings", "current")
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					errs <- err
					return
				}
				if held := int64(heldOf(cs)); held < before {
					errs <- fmt.Errorf("counts show %d held after %d commits returned", held, before)
					return
				}
				if r.Version < before {
					errs <- fmt.Errorf("record at version %d after %d commits returned", r.Version, before)
					return
				}
			}
		}()
	}
	var r store.Record
	for i := range commits {
		h := doubleHold(fmt.Sprint("hold-", i))
		h.Capacity = commits
		if err := other.Hold(ctx, h); err != nil {
			t.Fatal(err)
		}
		var err error
		if i == 0 {
			r, err = other.Create(ctx, store.Record{Kind: "settings", Key: "current", Value: []byte(`{}`), UpdatedAt: at()})
		} else {
			r, err = other.Swap(ctx, r)
		}
		if err != nil {
			t.Fatal(err)
		}
		done.Add(1)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
