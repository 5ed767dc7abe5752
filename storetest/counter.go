package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"frontdesk/store"
)

func take(name string, bucket, live, limit int64) store.Write {
	return store.Write{Op: store.OpTake, Tally: &store.Tally{Name: name, Bucket: bucket, Live: live, Limit: limit}}
}

func giveBack(name string, bucket, live int64) store.Write {
	return store.Write{Op: store.OpGiveBack, Tally: &store.Tally{Name: name, Bucket: bucket, Live: live}}
}

func counted(t *testing.T, s store.Store, name string, live int64) int64 {
	t.Helper()
	n, err := s.Counted(t.Context(), name, live)
	if err != nil {
		t.Fatalf("Counted(%q): %v", name, err)
	}
	return n
}

// testCounterTakeUpToLimit takes a counter to its limit, sees the next
// take refused with ErrFull, and sees uses stop counting once their
// bucket falls below Live.
func testCounterTakeUpToLimit(t *testing.T, s store.Store) {
	ctx := t.Context()
	if got := counted(t, s, "c", 0); got != 0 {
		t.Fatalf("Counted of a new counter = %d, want 0", got)
	}
	for i, bucket := range []int64{10, 10, 20} {
		if _, err := s.Apply(ctx, []store.Write{take("c", bucket, 0, 3)}); err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
	}
	_, err := s.Apply(ctx, []store.Write{take("c", 30, 0, 3)})
	checkWriteError(t, "take over the limit", nil, err, 0, store.ErrFull)
	if got := counted(t, s, "c", 0); got != 3 {
		t.Fatalf("Counted = %d, want 3", got)
	}
	if got := counted(t, s, "c", 11); got != 1 {
		t.Fatalf("Counted from 11 = %d, want 1 (bucket 10 no longer counts)", got)
	}
	// From bucket 11 on, the two uses of bucket 10 are gone: two fit.
	for i := range 2 {
		if _, err := s.Apply(ctx, []store.Write{take("c", 30, 11, 3)}); err != nil {
			t.Fatalf("take %d after expiry: %v", i, err)
		}
	}
	_, err = s.Apply(ctx, []store.Write{take("c", 30, 11, 3)})
	checkWriteError(t, "take over the limit after expiry", nil, err, 0, store.ErrFull)
	if got := counted(t, s, "c", 11); got != 3 {
		t.Fatalf("Counted from 11 = %d, want 3", got)
	}
	if got := counted(t, s, "other", 0); got != 0 {
		t.Fatalf("Counted of another counter = %d, want 0", got)
	}
}

// testCounterGiveBack gives back a use once: a second give-back of an
// empty bucket, or one of a bucket that stopped counting, changes
// nothing.
func testCounterGiveBack(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustApply(t, s, take("c", 5, 0, 2), take("c", 7, 0, 2))
	mustApply(t, s, giveBack("c", 5, 0))
	if got := counted(t, s, "c", 0); got != 1 {
		t.Fatalf("Counted after a give-back = %d, want 1", got)
	}
	mustApply(t, s, giveBack("c", 5, 0))
	mustApply(t, s, giveBack("c", 99, 0))
	if got := counted(t, s, "c", 0); got != 1 {
		t.Fatalf("Counted after give-backs of empty buckets = %d, want 1", got)
	}
	// Bucket 7 stops counting from 8: giving it back then changes nothing.
	mustApply(t, s, take("c", 9, 8, 2))
	mustApply(t, s, giveBack("c", 7, 8))
	if got := counted(t, s, "c", 8); got != 1 {
		t.Fatalf("Counted after a late give-back = %d, want 1", got)
	}
	mustApply(t, s, store.Write{Op: store.OpClear, Tally: &store.Tally{Name: "c"}})
	if got := counted(t, s, "c", 0); got != 0 {
		t.Fatalf("Counted after a clear = %d, want 0", got)
	}
	if _, err := s.Apply(ctx, []store.Write{take("c", 9, 8, 2), take("c", 9, 8, 2)}); err != nil {
		t.Fatalf("two takes after a clear: %v", err)
	}
}

// testCounterTakeWithRecords shows a refused take rolling back the other
// writes of its Apply, and a refused record write rolling back the take.
func testCounterTakeWithRecords(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustApply(t, s, take("c", 1, 0, 1))
	_, err := s.Apply(ctx, []store.Write{createWrite("k", "a", "x"), take("c", 1, 0, 1)})
	checkWriteError(t, "create and full take", nil, err, 1, store.ErrFull)
	if _, err := s.Get(ctx, "k", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after a refused take = %v, want ErrNotFound", err)
	}
	mustApply(t, s, createWrite("k", "b", "x"))
	_, err = s.Apply(ctx, []store.Write{take("d", 1, 0, 5), createWrite("k", "b", "y")})
	checkWriteError(t, "take and taken create", nil, err, 1, store.ErrExists)
	if got := counted(t, s, "d", 0); got != 0 {
		t.Fatalf("Counted after a refused create = %d, want 0", got)
	}
	_, err = s.Apply(ctx, []store.Write{{Op: store.OpTake, Tally: &store.Tally{Name: "d", Bucket: 1, Live: 2, Limit: 5}}})
	if err == nil || errors.Is(err, store.ErrFull) {
		t.Fatalf("take below Live = %v, want an error that is no refusal", err)
	}
}

// testConcurrentCounterTakes races many takes of a few counters, each in
// an Apply with a record of its own: exactly the limit of each wins.
func testConcurrentCounterTakes(t *testing.T, s store.Store) {
	ctx := t.Context()
	const racers, limit = 30, 8
	var won, full atomic.Int64
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, err := s.Apply(ctx, []store.Write{
				createWrite("k", fmt.Sprint(i), "x"),
				take("group", int64(100+i%3), 0, limit),
				take(fmt.Sprint("local/", i%2), int64(100+i%5), 0, limit),
			})
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, store.ErrFull):
				full.Add(1)
			default:
				t.Errorf("take %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if won.Load() != limit || full.Load() != racers-limit {
		t.Fatalf("won %d and full %d of %d, want %d and %d", won.Load(), full.Load(), racers, limit, racers-limit)
	}
	if got := counted(t, s, "group", 0); got != limit {
		t.Fatalf("Counted = %d, want %d", got, limit)
	}
	if a, b := counted(t, s, "local/0", 0), counted(t, s, "local/1", 0); a+b != limit {
		t.Fatalf("local counters = %d + %d, want %d in all", a, b, limit)
	}
}

// testCounterForget forgets a counter only once nothing counts, and
// lists counters by prefix with their buckets.
func testCounterForget(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustApply(t, s, take("a/1", 5, 0, 9), take("a/1", 6, 0, 9), take("a/2", 8, 0, 9), take("b/1", 1, 0, 9))
	bs, err := s.Buckets(ctx, "a/1", 6)
	if err != nil || len(bs) != 1 || bs[0] != (store.Bucket{Bucket: 6, N: 1}) {
		t.Fatalf("Buckets from 6 = %v, %v; want [{6 1}]", bs, err)
	}
	names, err := s.CounterNames(ctx, "a/", "", 10)
	if err != nil || fmt.Sprint(names) != "[a/1 a/2]" {
		t.Fatalf("CounterNames(a/) = %v, %v; want [a/1 a/2]", names, err)
	}
	names, err = s.CounterNames(ctx, "a/", "a/1", 10)
	if err != nil || fmt.Sprint(names) != "[a/2]" {
		t.Fatalf("CounterNames(a/ after a/1) = %v, %v; want [a/2]", names, err)
	}
	if _, err := s.CounterNames(ctx, "", "", 0); err == nil {
		t.Fatal("CounterNames with limit 0 = nil, want an error")
	}
	forget := func(name string, live int64) store.Write {
		return store.Write{Op: store.OpForget, Tally: &store.Tally{Name: name, Live: live}}
	}
	// a/1 still counts bucket 6 from 6 on; a/2 counts nothing from 9 on.
	mustApply(t, s, forget("a/1", 6), forget("a/2", 9))
	names, err = s.CounterNames(ctx, "", "", 10)
	if err != nil || fmt.Sprint(names) != "[a/1 b/1]" {
		t.Fatalf("CounterNames after forgetting = %v, %v; want [a/1 b/1]", names, err)
	}
	if got := counted(t, s, "a/1", 6); got != 1 {
		t.Fatalf("Counted of a kept counter = %d, want 1", got)
	}
	// A forgotten counter starts again from nothing.
	mustApply(t, s, take("a/2", 10, 9, 1))
	if got := counted(t, s, "a/2", 9); got != 1 {
		t.Fatalf("Counted of a counter taken after forgetting = %d, want 1", got)
	}
}

// testCounterInStepByStepApply takes and gives back in an Apply that an
// engine runs write by write (a release is among its writes): the same
// answers as in any other Apply.
func testCounterInStepByStepApply(t *testing.T, s store.Store) {
	ctx := t.Context()
	h := store.Hold{ID: "h", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01"}, Units: 1, Capacity: 1, At: at()}
	mustApply(t, s, holdWrite(h), take("c", 1, 0, 1))
	_, err := s.Apply(ctx, []store.Write{releaseWrite("h"), take("c", 2, 0, 1)})
	checkWriteError(t, "release and full take", nil, err, 1, store.ErrFull)
	if counts, _ := s.Counts(ctx, "riverside", "2026-12-01", "2026-12-02"); len(counts) != 1 {
		t.Fatalf("counts after a refused take = %v, want the hold kept", counts)
	}
	mustApply(t, s, releaseWrite("h"), giveBack("c", 1, 0), take("c", 2, 0, 1))
	if got := counted(t, s, "c", 0); got != 1 {
		t.Fatalf("Counted after give-back and take = %d, want 1", got)
	}
}

func mustApply(t *testing.T, s store.Store, ws ...store.Write) {
	t.Helper()
	if _, err := s.Apply(t.Context(), ws); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

// testCounterRunOfTakes applies several takes in one Apply, as a send's
// mail budgets are: the first full one, by its index, refuses them all;
// buckets that stopped counting are dropped on the way; and one counter
// taken twice in a run is decided in order.
func testCounterRunOfTakes(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustApply(t, s, take("a", 5, 0, 2), take("b", 5, 0, 1))
	_, err := s.Apply(ctx, []store.Write{take("a", 6, 0, 2), take("b", 6, 0, 1), take("c", 6, 0, 9)})
	checkWriteError(t, "run with a full take", nil, err, 1, store.ErrFull)
	if a, c := counted(t, s, "a", 0), counted(t, s, "c", 0); a != 1 || c != 0 {
		t.Fatalf("Counted after a refused run = a %d, c %d, want 1 and 0", a, c)
	}
	mustApply(t, s, take("a", 20, 6, 2), take("b", 20, 6, 1), take("c", 20, 0, 9))
	for _, name := range []string{"a", "b", "c"} {
		if got := counted(t, s, name, 0); got != 1 {
			t.Fatalf("Counted(%s) after a run past the first uses = %d, want 1", name, got)
		}
		bs, err := s.Buckets(ctx, name, 0)
		if err != nil || len(bs) != 1 || bs[0].Bucket != 20 {
			t.Fatalf("Buckets(%s) = %v, %v; want bucket 20 alone", name, bs, err)
		}
	}
	_, err = s.Apply(ctx, []store.Write{take("d", 1, 0, 1), take("d", 2, 0, 1)})
	checkWriteError(t, "one counter taken twice", nil, err, 1, store.ErrFull)
	mustApply(t, s, take("e", 1, 0, 2), take("e", 2, 0, 2))
	if got := counted(t, s, "e", 0); got != 2 {
		t.Fatalf("Counted(e) = %d, want 2", got)
	}
}
