package orp_test

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/orp"
)

// journalClicks clicks link n times on e's host, a second apart, and
// returns the click ids the redirects carried ("" for a plain one).
func journalClicks(e *env, link string, n int) []string {
	var ids []string
	for range n {
		u, err := url.Parse(e.click(link, map[string]string{"User-Agent": browser}, ""))
		if err != nil {
			e.t.Fatal(err)
		}
		ids = append(ids, u.Query().Get("via"))
		e.clock.Advance(time.Second)
	}
	return ids
}

// storedIDs restarts the host on e's store and journal, as after a kill
// -9 of the last one, counts what it finds and returns the click ids
// stored for link, sorted.
func storedIDs(e *env, link string) []string {
	e.t.Helper()
	h := e.newHost(e.db)
	h.Flush(context.Background())
	t0 := e.clock.Now().Add(-time.Hour)
	clicks, err := h.StoredClicks(context.Background(), link[strings.LastIndex(link, "/")+1:], t0, e.clock.Now().Add(time.Hour))
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, c := range clicks {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// journalFile is the journal file that holds records, and its bytes.
func journalFile(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	for _, name := range []string{"clicks-0.journal", "clicks-1.journal"} {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimRight(b, "\x00")) > 0 {
			return path, b
		}
	}
	t.Fatal("no journal file holds a record")
	return "", nil
}

// TestJournalTornTail: a record torn by a crash (its last bytes never
// written) is ignored, the records before it are counted, and the next
// run appends where the torn one began, so its clicks count after the
// next crash too.
func TestJournalTornTail(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	ids := journalClicks(e, link, 4)
	path, b := journalFile(t, e.journal)
	end := len(bytes.TrimRight(b, "\x00"))
	// The last click's id is the last thing in the file: its tail never
	// reached the disk.
	clear(b[end-6 : end])
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.host = e.newHost(e.db)
	more := journalClicks(e, link, 1)
	if got, want := storedIDs(e, link), sorted(append(ids[:3], more...)); !slices.Equal(got, want) {
		t.Fatalf("stored ids = %v, want %v", got, want)
	}
}

// TestJournalFoldedOnce: a crash after a fold committed, while the
// journal still holds what it folded, counts nothing twice; clicks after
// the fold are counted once.
func TestJournalFoldedOnce(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	ids := journalClicks(e, link, 3)
	e.host.Flush(context.Background()) // counted, still in the file
	ids = append(ids, journalClicks(e, link, 2)...)
	if got, want := storedIDs(e, link), sorted(ids); !slices.Equal(got, want) {
		t.Fatalf("stored ids = %v, want %v", got, want)
	}
	// A journal that holds nothing (lost, or never written since the
	// last fold): numbering goes on above the mark, so new clicks are not
	// taken for counted ones.
	if err := os.RemoveAll(e.journal); err != nil {
		t.Fatal(err)
	}
	e.host = e.newHost(e.db)
	ids = append(ids, journalClicks(e, link, 1)...)
	if got, want := storedIDs(e, link), sorted(ids); !slices.Equal(got, want) {
		t.Fatalf("stored ids after a second restart = %v, want %v", got, want)
	}
}

// failingFile is a journal file whose syncs fail while fail is set.
type failingFile struct {
	orp.JournalFile
	fail *atomic.Bool
}

func (f failingFile) Sync() error {
	if f.fail.Load() {
		return errors.New("injected sync failure")
	}
	return f.JournalFile.Sync()
}

// TestJournalFailedSync: a click whose journal sync fails redirects
// plain, without a click id, and is never counted, not even after the
// next click's sync succeeds and a crash follows.
func TestJournalFailedSync(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	var fail atomic.Bool
	e.openJournal = func(path string) (orp.JournalFile, error) {
		f, err := orp.OpenJournalFile(path)
		return failingFile{f, &fail}, err
	}
	e.host = e.newHost(e.db)
	e.host.Start()
	t.Cleanup(e.host.Close)
	fail.Store(true)
	plain := journalClicks(e, link, 1)
	fail.Store(false)
	ids := journalClicks(e, link, 1)
	if plain[0] != "" || ids[0] == "" {
		t.Fatalf("click ids = %q with a failing sync, %q after it, want none, then one", plain[0], ids[0])
	}
	e.openJournal = nil
	if got := storedIDs(e, link); !slices.Equal(got, ids) {
		t.Fatalf("stored ids = %v, want %v", got, ids)
	}
}
