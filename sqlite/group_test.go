package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/store"
	"frontdesk/store/sqlstore"
)

// held is a store whose one writer is busy with a transaction that waits
// for release, so that the writes asked meanwhile queue for one group.
type held struct {
	*DB
	release chan struct{}
	done    chan error
}

func newStore(t *testing.T) *DB { return open(t, filepath.Join(t.TempDir(), "frontdesk.db")) }

func holdWriter(t *testing.T, db *DB) *held {
	t.Helper()
	h := &held{DB: db, release: make(chan struct{}), done: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		h.done <- h.group.run(context.Background(), func(sqlstore.Querier) error {
			close(started)
			<-h.release
			return nil
		})
	}()
	<-started
	return h
}

// ask runs write in the background once the jobs queued before it are
// in place, so the group takes the writes in the order asked.
func (h *held) ask(t *testing.T, write func() error) <-chan error {
	t.Helper()
	before := len(h.group.jobs)
	out := make(chan error, 1)
	go func() { out <- write() }()
	for deadline := time.Now().Add(5 * time.Second); len(h.group.jobs) == before; {
		if time.Now().After(deadline) {
			t.Fatal("the write never queued")
		}
		time.Sleep(time.Millisecond)
	}
	return out
}

// let ends the holding transaction and waits for it.
func (h *held) let(t *testing.T) {
	t.Helper()
	close(h.release)
	if err := <-h.done; err != nil {
		t.Fatalf("holding transaction = %v, want nil", err)
	}
}

func rec(key string) store.Record {
	return store.Record{Kind: "intent", Key: key, Value: []byte(key), UpdatedAt: at()}
}

func (h *held) has(t *testing.T, key string) bool {
	t.Helper()
	_, err := h.Get(t.Context(), "intent", key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(%s) = %v", key, err)
	}
	return err == nil
}

func TestWritersShareOneCommit(t *testing.T) {
	ctx := t.Context()
	h := holdWriter(t, newStore(t))
	var asked []<-chan error
	for i := range 10 {
		asked = append(asked, h.ask(t, func() error {
			_, err := h.Create(ctx, rec(fmt.Sprint("k", i)))
			return err
		}))
	}
	before := h.group.commits.Load()
	h.let(t)
	for i, a := range asked {
		if err := <-a; err != nil {
			t.Errorf("write %d = %v, want nil", i, err)
		}
	}
	if got := h.group.commits.Load() - before; got != 2 {
		t.Errorf("commits for the holding transaction and 10 queued writes = %d, want 2", got)
	}
	for i := range 10 {
		if !h.has(t, fmt.Sprint("k", i)) {
			t.Errorf("record k%d missing after its write succeeded", i)
		}
	}
}

// One refused Apply in a group leaves nothing of itself and all of its
// neighbours.
func TestRefusedApplyLeavesItsGroup(t *testing.T) {
	ctx := t.Context()
	db := newStore(t)
	if _, err := db.Create(ctx, rec("taken")); err != nil {
		t.Fatalf("Create(taken) = %v", err)
	}
	h := holdWriter(t, db)
	apply := func(keys ...string) func() error {
		return func() error {
			var ws []store.Write
			for _, k := range keys {
				ws = append(ws, store.Write{Op: store.OpCreate, Record: rec(k)})
			}
			_, err := h.Apply(ctx, ws)
			return err
		}
	}
	a := h.ask(t, apply("a1", "a2"))
	b := h.ask(t, apply("b1", "taken", "b2"))
	c := h.ask(t, apply("c1"))
	before := h.group.commits.Load()
	h.let(t)
	if err := <-a; err != nil {
		t.Errorf("first Apply = %v, want nil", err)
	}
	var we *store.WriteError
	if err := <-b; !errors.As(err, &we) || we.Index != 1 || !errors.Is(err, store.ErrExists) {
		t.Errorf("Apply creating a taken key = %v, want *store.WriteError at 1 with ErrExists", err)
	}
	if err := <-c; err != nil {
		t.Errorf("last Apply = %v, want nil", err)
	}
	if got := h.group.commits.Load() - before; got != 2 {
		t.Errorf("commits = %d, want 2 (the holding transaction, then one group)", got)
	}
	for k, want := range map[string]bool{"a1": true, "a2": true, "b1": false, "b2": false, "c1": true} {
		if got := h.has(t, k); got != want {
			t.Errorf("record %s present = %v, want %v", k, got, want)
		}
	}
}

// A transaction that ends the group's transaction under it (as an
// interrupted write or a full disk does) takes only its own answer: the
// writes queued with it run again alone and are kept.
func TestBrokenGroupRunsTheOthersAlone(t *testing.T) {
	ctx := t.Context()
	h := holdWriter(t, newStore(t))
	create := func(key string) func() error {
		return func() error { _, err := h.Create(ctx, rec(key)); return err }
	}
	boom := errors.New("boom")
	a := h.ask(t, create("before"))
	broken := h.ask(t, func() error {
		return h.group.run(ctx, func(q sqlstore.Querier) error {
			if _, err := q.Exec(ctx, "INSERT INTO records (kind, key, value, version, updated_at) VALUES ('intent', 'broken', x'00', 1, 0)"); err != nil {
				return err
			}
			if _, err := q.Exec(ctx, "ROLLBACK"); err != nil {
				return err
			}
			return boom
		})
	})
	c := h.ask(t, create("after"))
	h.let(t)
	if err := <-a; err != nil {
		t.Errorf("write before the broken one = %v, want nil", err)
	}
	if err := <-broken; !errors.Is(err, boom) {
		t.Errorf("broken transaction = %v, want its own error", err)
	}
	if err := <-c; err != nil {
		t.Errorf("write after the broken one = %v, want nil", err)
	}
	for k, want := range map[string]bool{"before": true, "broken": false, "after": true} {
		if got := h.has(t, k); got != want {
			t.Errorf("record %s present = %v, want %v", k, got, want)
		}
	}
}

// A caller that gives up before its group is taken has written nothing,
// and never will.
func TestWithdrawnWriteNeverRuns(t *testing.T) {
	h := holdWriter(t, newStore(t))
	ctx, cancel := context.WithCancel(t.Context())
	gone := h.ask(t, func() error { _, err := h.Create(ctx, rec("gone")); return err })
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("write whose caller gave up = %v, want context.Canceled", err)
	}
	kept := h.ask(t, func() error { _, err := h.Create(t.Context(), rec("kept")); return err })
	h.let(t)
	if err := <-kept; err != nil {
		t.Fatalf("write queued after it = %v, want nil", err)
	}
	if h.has(t, "gone") {
		t.Error("the withdrawn write reached the store")
	}
}

// Closing the store answers the writes still queued, without running
// them.
func TestCloseAnswersQueuedWrites(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	h := holdWriter(t, db)
	queued := h.ask(t, func() error { _, err := h.Create(t.Context(), rec("late")); return err })
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	for !isClosed(db.group.stop) {
		time.Sleep(time.Millisecond)
	}
	h.let(t)
	if err := <-queued; !errors.Is(err, errClosed) {
		t.Errorf("write queued as the store closed = %v, want errClosed", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
	if _, err := db.Create(t.Context(), rec("after")); !errors.Is(err, errClosed) {
		t.Errorf("write after Close = %v, want errClosed", err)
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// The savepoints' statement journal stays in memory (2 is MEMORY).
func TestGroupJournalInMemory(t *testing.T) {
	db := newStore(t)
	var store int
	err := db.group.run(t.Context(), func(q sqlstore.Querier) error {
		_, err := q.QueryRow(t.Context(), "PRAGMA temp_store", nil, &store)
		return err
	})
	if err != nil || store != 2 {
		t.Errorf("PRAGMA temp_store on the writer = %d, %v; want 2 (memory)", store, err)
	}
}
