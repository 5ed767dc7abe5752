package storetest

import (
	"errors"
	"strconv"
	"testing"

	"frontdesk/store"
)

// tally is the JSON value the cases of store.Update count in.
type tally struct {
	N     int      `json:"n"`
	Notes []string `json:"notes,omitempty"`
}

func getTally(t *testing.T, s store.Store, key string) (tally, int64) {
	t.Helper()
	v, r, err := store.GetJSON[tally](t.Context(), s, "tally", key)
	if err != nil {
		t.Fatalf("GetJSON(tally/%s) = %v, want nil", key, err)
	}
	return v, r.Version
}

// testUpdateCreatesThenSwaps: the first update of an absent record
// creates it, the next swaps it, and each returns what it wrote.
func testUpdateCreatesThenSwaps(t *testing.T, s store.Store) {
	ctx := t.Context()
	inc := func(v *tally, found bool) error {
		if found != (v.N > 0) {
			t.Errorf("found = %v with n = %d", found, v.N)
		}
		v.N++
		return nil
	}
	for want := 1; want <= 2; want++ {
		got, err := store.Update(ctx, s, "tally", "t", at(), inc)
		if err != nil || got.N != want {
			t.Fatalf("Update %d = %+v, %v; want n = %d", want, got, err, want)
		}
		if v, version := getTally(t, s, "t"); v.N != want || version != int64(want) {
			t.Fatalf("stored after update %d = %+v at version %d, want n = %d at version %d", want, v, version, want, want)
		}
	}
}

// testUpdateWritesNothingWhenChangeRefuses: ErrNoChange and any other
// error from the change leave the record as it was.
func testUpdateWritesNothingWhenChangeRefuses(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := store.Update(ctx, s, "tally", "t", at(), func(v *tally, _ bool) error { v.N = 5; return nil }); err != nil {
		t.Fatalf("Update = %v, want nil", err)
	}
	got, err := store.Update(ctx, s, "tally", "t", at(), func(v *tally, _ bool) error { v.N++; return store.ErrNoChange })
	if err != nil || got.N != 6 {
		t.Fatalf("Update with no change = %+v, %v; want the value as changed and nil", got, err)
	}
	stop := errors.New("refused")
	if _, err := store.Update(ctx, s, "tally", "t", at(), func(v *tally, _ bool) error { v.N++; return stop }); !errors.Is(err, stop) {
		t.Fatalf("Update with a refusing change = %v, want %v", err, stop)
	}
	if _, err := store.Update(ctx, s, "tally", "absent", at(), func(*tally, bool) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("Update of an absent record with a refusing change = %v, want %v", err, stop)
	}
	if v, version := getTally(t, s, "t"); v.N != 5 || version != 1 {
		t.Fatalf("stored = %+v at version %d, want n = 5 at version 1", v, version)
	}
	if _, err := s.Get(ctx, "tally", "absent"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(absent) = %v, want %v", err, store.ErrNotFound)
	}
}

// testConcurrentUpdates: parallel updates of one record, absent at first,
// each land exactly once, the losers of every race deciding again.
func testConcurrentUpdates(t *testing.T, s store.Store) {
	ctx := t.Context()
	const writers = 8
	errs := race(writers, func(i int) error {
		_, err := store.Update(ctx, s, "tally", "t", at(), func(v *tally, _ bool) error {
			v.N++
			v.Notes = append(v.Notes, strconv.Itoa(i))
			return nil
		})
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: Update = %v, want nil", i, err)
		}
	}
	v, version := getTally(t, s, "t")
	if v.N != writers || len(v.Notes) != writers || version != writers {
		t.Fatalf("stored = %+v at version %d, want %d updates", v, version, writers)
	}
}

// testUpdateWithOtherWrites: the writes a change returns commit with the
// record; one refused for contention makes the change decide again, one
// refused for a full counter ends the update with nothing written.
func testUpdateWithOtherWrites(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "side", "taken", "x")
	calls := 0
	got, err := store.UpdateWith(ctx, s, "tally", "t", at(), func(v *tally, read store.Record) ([]store.Write, error) {
		calls++
		v.N++
		// The first decision creates a side record that exists; the
		// second, on a fresh read, picks a free key.
		key := "taken"
		if calls > 1 {
			key = "free"
		}
		return []store.Write{createWrite("side", key, strconv.FormatInt(read.Version, 10))}, nil
	})
	if err != nil || got.N != 1 || calls != 2 {
		t.Fatalf("UpdateWith = %+v, %v after %d calls; want n = 1 after 2 calls", got, err, calls)
	}
	checkValue(t, s, "side", "free", "0", 1)

	mustApply(t, s, take("c", 1, 0, 1))
	calls = 0
	_, err = store.UpdateWith(ctx, s, "tally", "t", at(), func(v *tally, _ store.Record) ([]store.Write, error) {
		calls++
		v.N++
		return []store.Write{take("c", 1, 0, 1)}, nil
	})
	if !errors.Is(err, store.ErrFull) || calls != 1 {
		t.Fatalf("UpdateWith with a full counter = %v after %d calls, want %v after 1", err, calls, store.ErrFull)
	}
	if v, version := getTally(t, s, "t"); v.N != 1 || version != 1 {
		t.Fatalf("stored = %+v at version %d, want n = 1 at version 1", v, version)
	}
}

// testUpdateGivesUp: a change that loses every race ends with an error
// wrapping ErrConflict after store.UpdateAttempts decisions.
func testUpdateGivesUp(t *testing.T, s store.Store) {
	ctx := t.Context()
	calls := 0
	_, err := store.Update(ctx, s, "tally", "t", at(), func(v *tally, found bool) error {
		calls++
		// Another writer changes the record after every read.
		if _, err := store.Update(ctx, s, "tally", "t", at(), func(w *tally, _ bool) error { w.N++; return nil }); err != nil {
			return err
		}
		v.N = -1
		return nil
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Update losing every race = %v, want %v", err, store.ErrConflict)
	}
	if calls != store.UpdateAttempts {
		t.Fatalf("change called %d times, want %d", calls, store.UpdateAttempts)
	}
	if v, _ := getTally(t, s, "t"); v.N != store.UpdateAttempts {
		t.Fatalf("stored n = %d, want %d (the other writer's)", v.N, store.UpdateAttempts)
	}
}

// testEnsure: of parallel callers ensuring one record, one creates it and
// every caller gets its value; a later caller creates nothing.
func testEnsure(t *testing.T, s store.Store) {
	ctx := t.Context()
	const callers = 8
	got := make([]string, callers)
	errs := race(callers, func(i int) error {
		r, err := store.Ensure(ctx, s, "secret", "current", at(), func() ([]byte, error) { return []byte(strconv.Itoa(i)), nil })
		got[i] = string(r.Value)
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: Ensure = %v, want nil", i, err)
		}
		if got[i] != got[0] {
			t.Fatalf("callers got %q and %q, want one value", got[0], got[i])
		}
	}
	r, err := store.Ensure(ctx, s, "secret", "current", at(), func() ([]byte, error) {
		t.Error("create called for a record that exists")
		return nil, nil
	})
	if err != nil || string(r.Value) != got[0] || r.Version != 1 {
		t.Fatalf("Ensure again = %q at version %d, %v; want %q at version 1", r.Value, r.Version, err, got[0])
	}
	stop := errors.New("no randomness")
	if _, err := store.Ensure(ctx, s, "secret", "other", at(), func() ([]byte, error) { return nil, stop }); !errors.Is(err, stop) {
		t.Fatalf("Ensure with a failing create = %v, want %v", err, stop)
	}
}

// testRemove: a record is removed whatever its version, and removing an
// absent one is no error.
func testRemove(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "session", "a", "x")
	if _, err := s.Swap(ctx, store.Record{Kind: "session", Key: "a", Value: []byte("y"), Version: r.Version, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	for range 2 {
		if err := store.Remove(ctx, s, "session", "a"); err != nil {
			t.Fatalf("Remove = %v, want nil", err)
		}
	}
	if _, err := s.Get(ctx, "session", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Remove = %v, want %v", err, store.ErrNotFound)
	}
}
