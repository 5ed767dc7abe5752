// Package storetest is the contract suite that every store engine runs:
// conditional create, compare-and-swap, listing, all-or-nothing batches
// of record writes and of holds, and their behaviour under concurrent
// writers. The cases for List and Apply live in record.go, those for
// batches that also hold and release units in apply.go, those of the
// reservations table in reservation.go, those of the counters in
// counter.go, those of store.Update in update.go. An engine's own test
// calls Run with a function that opens a fresh, empty store, and Upgrade
// (upgrade.go) with its migrations, to check what a start does with
// another release's schema.
//
// It imports store and internal/sqlmigrate from this module.
package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"frontdesk/store"
)

// at is the one instant the suite writes with, so results are exact. Its
// zone is not UTC on purpose: engines must store the instant and hand it
// back in UTC.
func at() time.Time {
	return time.Date(2026, 11, 30, 9, 15, 30, 123456789, time.FixedZone("MST", -7*60*60))
}

// Run runs the contract suite. open must return a new, empty store each
// time it is called, arrange for it to be closed when t ends, and be safe
// to call from parallel subtests.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateThenGet", testCreateThenGet},
		{"CreateNeverOverwrites", testCreateNeverOverwrites},
		{"KindsAreSeparate", testKindsAreSeparate},
		{"EmptyValue", testEmptyValue},
		{"GetAbsent", testGetAbsent},
		{"Swap", testSwap},
		{"SwapStale", testSwapStale},
		{"SwapAbsent", testSwapAbsent},
		{"Delete", testDelete},
		{"DeleteStale", testDeleteStale},
		{"ConcurrentSwaps", testConcurrentSwaps},
		{"GetMany", testGetMany},
		{"ListPages", testListPages},
		{"ListPrefix", testListPrefix},
		{"ListLimit", testListLimit},
		{"ApplyAllOrNothing", testApplyAllOrNothing},
		{"ApplyReturnsVersions", testApplyReturnsVersions},
		{"ApplyRefused", testApplyRefused},
		{"ApplyEmpty", testApplyEmpty},
		{"ApplyInvalid", testApplyInvalid},
		{"ConcurrentApplySwaps", testConcurrentApplySwaps},
		{"ApplyRecordsAndHold", testApplyRecordsAndHold},
		{"ApplyHoldRefused", testApplyHoldRefused},
		{"ApplyRecordRefusedAfterHold", testApplyRecordRefusedAfterHold},
		{"ApplyRelease", testApplyRelease},
		{"ApplyRefusalNamesTheWrite", testApplyRefusalNamesTheWrite},
		{"ApplyHoldInvalid", testApplyHoldInvalid},
		{"ConcurrentApplyHoldsLastUnit", testConcurrentApplyHoldsLastUnit},
		{"HoldAllOrNothing", testHoldAllOrNothing},
		{"HoldUpToCapacity", testHoldUpToCapacity},
		{"HoldMoreThanCapacity", testHoldMoreThanCapacity},
		{"HoldDuplicateID", testHoldDuplicateID},
		{"HoldInvalid", testHoldInvalid},
		{"Release", testRelease},
		{"ReleaseUnknown", testReleaseUnknown},
		{"ConcurrentHoldsLastUnit", testConcurrentHoldsLastUnit},
		{"ConcurrentHoldsFillCapacity", testConcurrentHoldsFillCapacity},
		{"ConcurrentHoldAndRelease", testConcurrentHoldAndRelease},
		{"CountsRange", testCountsRange},
		{"CounterTakeUpToLimit", testCounterTakeUpToLimit},
		{"CounterGiveBack", testCounterGiveBack},
		{"CounterTakeWithRecords", testCounterTakeWithRecords},
		{"ConcurrentCounterTakes", testConcurrentCounterTakes},
		{"CounterForget", testCounterForget},
		{"CounterInStepByStepApply", testCounterInStepByStepApply},
		{"CounterRunOfTakes", testCounterRunOfTakes},
		{"Ready", testReady},
		{"ReservationCreateGetSwap", testReservationCreateGetSwap},
		{"ReservationWithHold", testReservationWithHold},
		{"ListReservationsFilters", testListReservationsFilters},
		{"ListReservationsPages", testListReservationsPages},
		{"ConcurrentReservationSwaps", testConcurrentReservationSwaps},
		{"SearchReservations", testSearchReservations},
		{"IndexReservation", testIndexReservation},
		{"ListReservationsLongSpan", testListReservationsLongSpan},
		{"HoldsPages", testHoldsPages},
		{"UpdateCreatesThenSwaps", testUpdateCreatesThenSwaps},
		{"UpdateWritesNothingWhenChangeRefuses", testUpdateWritesNothingWhenChangeRefuses},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"UpdateWithOtherWrites", testUpdateWithOtherWrites},
		{"UpdateGivesUp", testUpdateGivesUp},
		{"Ensure", testEnsure},
		{"Remove", testRemove},
	}
	// An engine shared by processes (PostgreSQL) also locks by name; one
	// a single process uses (SQLite) has no locks to check.
	if _, shared := open(t).(store.Locker); shared {
		tests = append(tests, struct {
			name string
			fn   func(t *testing.T, s store.Store)
		}{"TryLock", testTryLock})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

func testCreateThenGet(t *testing.T, s store.Store) {
	ctx := t.Context()
	created, err := s.Create(ctx, store.Record{Kind: "intent", Key: "k1", Value: []byte("v1"), UpdatedAt: at()})
	if err != nil {
		t.Fatalf("Create = %v, want nil", err)
	}
	want := store.Record{Kind: "intent", Key: "k1", Value: []byte("v1"), Version: 1, UpdatedAt: at().UTC()}
	checkRecord(t, "Create", created, want)

	got, err := s.Get(ctx, "intent", "k1")
	if err != nil {
		t.Fatalf("Get = %v, want nil", err)
	}
	checkRecord(t, "Get", got, want)
}

func testCreateNeverOverwrites(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "intent", "k1", "first")
	_, err := s.Create(ctx, store.Record{Kind: "intent", Key: "k1", Value: []byte("second"), UpdatedAt: at()})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("second Create = %v, want %v", err, store.ErrExists)
	}
	checkValue(t, s, "intent", "k1", "first", 1)
}

func testKindsAreSeparate(t *testing.T, s store.Store) {
	mustCreate(t, s, "intent", "k1", "an intent")
	mustCreate(t, s, "reservation", "k1", "a reservation")
	checkValue(t, s, "intent", "k1", "an intent", 1)
	checkValue(t, s, "reservation", "k1", "a reservation", 1)
}

func testEmptyValue(t *testing.T, s store.Store) {
	ctx := t.Context()
	r, err := s.Create(ctx, store.Record{Kind: "marker", Key: "nil", UpdatedAt: at()})
	if err != nil {
		t.Fatalf("Create(nil value) = %v, want nil", err)
	}
	if _, err := s.Swap(ctx, store.Record{Kind: "marker", Key: "nil", Value: []byte{}, Version: r.Version, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap(empty value) = %v, want nil", err)
	}
	checkValue(t, s, "marker", "nil", "", 2)
}

func testGetAbsent(t *testing.T, s store.Store) {
	_, err := s.Get(t.Context(), "intent", "absent")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(absent) = %v, want %v", err, store.ErrNotFound)
	}
}

func testSwap(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "intent", "k1", "v1")
	later := at().Add(time.Minute)
	got, err := s.Swap(ctx, store.Record{Kind: "intent", Key: "k1", Value: []byte("v2"), Version: r.Version, UpdatedAt: later})
	if err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	want := store.Record{Kind: "intent", Key: "k1", Value: []byte("v2"), Version: 2, UpdatedAt: later.UTC()}
	checkRecord(t, "Swap", got, want)
	stored, err := s.Get(ctx, "intent", "k1")
	if err != nil {
		t.Fatalf("Get = %v, want nil", err)
	}
	checkRecord(t, "Get after Swap", stored, want)
}

func testSwapStale(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "intent", "k1", "v1")
	r.Value = []byte("v2")
	if _, err := s.Swap(ctx, r); err != nil {
		t.Fatalf("first Swap = %v, want nil", err)
	}
	r.Value = []byte("stale")
	_, err := s.Swap(ctx, r) // r.Version is still 1
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale Swap = %v, want %v", err, store.ErrConflict)
	}
	checkValue(t, s, "intent", "k1", "v2", 2)
}

func testSwapAbsent(t *testing.T, s store.Store) {
	_, err := s.Swap(t.Context(), store.Record{Kind: "intent", Key: "absent", Value: []byte("v"), Version: 1, UpdatedAt: at()})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Swap(absent) = %v, want %v", err, store.ErrNotFound)
	}
	if _, err := s.Get(t.Context(), "intent", "absent"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Swap(absent) = %v, want %v", err, store.ErrNotFound)
	}
}

func testDelete(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "intent", "k1", "v1")
	if err := s.Delete(ctx, "intent", "k1", r.Version); err != nil {
		t.Fatalf("Delete = %v, want nil", err)
	}
	if _, err := s.Get(ctx, "intent", "k1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete = %v, want %v", err, store.ErrNotFound)
	}
	if err := s.Delete(ctx, "intent", "k1", r.Version); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second Delete = %v, want %v", err, store.ErrNotFound)
	}
	// A deleted key may be created again, from version 1.
	mustCreate(t, s, "intent", "k1", "again")
	checkValue(t, s, "intent", "k1", "again", 1)
}

func testDeleteStale(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "intent", "k1", "v1")
	r.Value = []byte("v2")
	if _, err := s.Swap(ctx, r); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	if err := s.Delete(ctx, "intent", "k1", r.Version); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale Delete = %v, want %v", err, store.ErrConflict)
	}
	checkValue(t, s, "intent", "k1", "v2", 2)
}

// testConcurrentSwaps races writers that all read the same version: exactly
// one may win each round, and the stored value is the winner's.
func testConcurrentSwaps(t *testing.T, s store.Store) {
	const rounds, writers = 50, 20
	ctx := t.Context()
	mustCreate(t, s, "counter", "c", "start")
	for round := range rounds {
		cur, err := s.Get(ctx, "counter", "c")
		if err != nil {
			t.Fatalf("round %d: Get = %v, want nil", round, err)
		}
		errs := race(writers, func(i int) error {
			r := cur
			r.Value = fmt.Appendf(nil, "round %d writer %d", round, i)
			_, err := s.Swap(ctx, r)
			return err
		})
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both won", round, winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, store.ErrConflict):
				t.Fatalf("round %d: writer %d Swap = %v, want nil or %v", round, i, err, store.ErrConflict)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer won", round)
		}
		checkValue(t, s, "counter", "c", fmt.Sprintf("round %d writer %d", round, winner), cur.Version+1)
	}
}

func testHoldAllOrNothing(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("first", "double", 1, 2, "2026-12-02"))
	mustHold(t, s, hold("second", "double", 1, 2, "2026-12-02"))
	// 2026-12-02 is full, so none of the three nights may be taken.
	err := s.Hold(ctx, hold("third", "double", 1, 2, "2026-12-01", "2026-12-02", "2026-12-03"))
	if !errors.Is(err, store.ErrFull) {
		t.Fatalf("Hold over a full night = %v, want %v", err, store.ErrFull)
	}
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-02", Held: 2},
	})
	// The refused hold left no trace: its ID is still free.
	if err := s.Release(ctx, "third", at()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Release(refused hold) = %v, want %v", err, store.ErrNotFound)
	}
	mustHold(t, s, hold("third", "double", 1, 2, "2026-12-01", "2026-12-03"))
}

func testHoldUpToCapacity(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("a", "single", 2, 3, "2026-12-01", "2026-12-02"))
	mustHold(t, s, hold("b", "single", 1, 3, "2026-12-02"))
	err := s.Hold(ctx, hold("c", "single", 1, 3, "2026-12-02"))
	if !errors.Is(err, store.ErrFull) {
		t.Fatalf("Hold past capacity = %v, want %v", err, store.ErrFull)
	}
	// Two units would pass capacity on 2026-12-01; one still fits.
	if err := s.Hold(ctx, hold("d", "single", 2, 3, "2026-12-01")); !errors.Is(err, store.ErrFull) {
		t.Fatalf("Hold of 2 with 1 left = %v, want %v", err, store.ErrFull)
	}
	mustHold(t, s, hold("e", "single", 1, 3, "2026-12-01"))
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-03", []store.Count{
		{Unit: "single", Slot: "2026-12-01", Held: 3},
		{Unit: "single", Slot: "2026-12-02", Held: 3},
	})
}

func testHoldMoreThanCapacity(t *testing.T, s store.Store) {
	ctx := t.Context()
	if err := s.Hold(ctx, hold("big", "studio", 2, 1, "2026-12-01")); !errors.Is(err, store.ErrFull) {
		t.Fatalf("Hold of 2 with capacity 1 = %v, want %v", err, store.ErrFull)
	}
	if err := s.Hold(ctx, hold("none", "studio", 1, 0, "2026-12-01")); !errors.Is(err, store.ErrFull) {
		t.Fatalf("Hold with capacity 0 = %v, want %v", err, store.ErrFull)
	}
	checkCounts(t, s, "riverside", "", "~", nil)
}

func testHoldDuplicateID(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("h1", "double", 1, 5, "2026-12-01"))
	err := s.Hold(ctx, hold("h1", "double", 1, 5, "2026-12-01", "2026-12-02"))
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("Hold with a taken ID = %v, want %v", err, store.ErrExists)
	}
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 1},
	})
}

func testHoldInvalid(t *testing.T, s store.Store) {
	tests := []struct {
		name string
		h    store.Hold
	}{
		{"zero units", hold("h", "double", 0, 5, "2026-12-01")},
		{"negative units", hold("h", "double", -1, 5, "2026-12-01")},
		{"no slots", hold("h", "double", 1, 5)},
		{"slot twice", hold("h", "double", 1, 5, "2026-12-01", "2026-12-01")},
		{"no id", hold("", "double", 1, 5, "2026-12-01")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Hold(t.Context(), tt.h); err == nil {
				t.Fatalf("Hold(%+v) = nil, want an error", tt.h)
			}
		})
	}
	checkCounts(t, s, "riverside", "", "~", nil)
}

func testRelease(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("keep", "double", 1, 5, "2026-12-01"))
	mustHold(t, s, hold("drop", "double", 2, 5, "2026-12-01", "2026-12-02"))
	if err := s.Release(ctx, "drop", at()); err != nil {
		t.Fatalf("Release = %v, want nil", err)
	}
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 1},
	})
	if err := s.Release(ctx, "drop", at()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second Release = %v, want %v", err, store.ErrNotFound)
	}
	// Released units can be held again, and the released ID reused.
	mustHold(t, s, hold("drop", "double", 4, 5, "2026-12-01", "2026-12-02"))
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 5},
		{Unit: "double", Slot: "2026-12-02", Held: 4},
	})
}

func testReleaseUnknown(t *testing.T, s store.Store) {
	if err := s.Release(t.Context(), "unknown", at()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Release(unknown) = %v, want %v", err, store.ErrNotFound)
	}
}

// testConcurrentHoldsLastUnit races holds for the last unit: exactly one
// may win each round. Even rounds race to create the slots, odd rounds to
// update slots that already exist.
func testConcurrentHoldsLastUnit(t *testing.T, s store.Store) {
	const rounds, holders = 20, 20
	ctx := t.Context()
	for round := range rounds {
		nights := []string{fmt.Sprintf("2027-01-%02d", round+1), fmt.Sprintf("2027-02-%02d", round+1)}
		capacity := 1
		if round%2 == 1 {
			capacity = 3
			mustHold(t, s, hold(fmt.Sprintf("r%d-pre", round), "double", 2, capacity, nights...))
		}
		errs := race(holders, func(i int) error {
			return s.Hold(ctx, hold(fmt.Sprintf("r%d-h%d", round, i), "double", 1, capacity, nights...))
		})
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrFull):
				t.Fatalf("round %d: holder %d Hold = %v, want nil or %v", round, i, err, store.ErrFull)
			}
		}
		if got, want := won, 1; got != want {
			t.Fatalf("round %d: %d holds won, want %d", round, got, want)
		}
		for _, night := range nights {
			checkCounts(t, s, "riverside", night, night+"~", []store.Count{
				{Unit: "double", Slot: night, Held: capacity},
			})
		}
	}
}

// testConcurrentHoldsFillCapacity races more holders than there is room
// for: exactly capacity of them win, however the writes interleave.
func testConcurrentHoldsFillCapacity(t *testing.T, s store.Store) {
	const capacity, holders = 7, 20
	nights := []string{"2027-03-01", "2027-03-02", "2027-03-03"}
	errs := race(holders, func(i int) error {
		return s.Hold(t.Context(), hold(fmt.Sprintf("h%d", i), "single", 1, capacity, nights...))
	})
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrFull):
			t.Fatalf("holder %d Hold = %v, want nil or %v", i, err, store.ErrFull)
		}
	}
	if got, want := won, capacity; got != want {
		t.Fatalf("%d holds won, want %d", got, want)
	}
	checkCounts(t, s, "riverside", "2027-03-01", "2027-04-01", []store.Count{
		{Unit: "single", Slot: "2027-03-01", Held: capacity},
		{Unit: "single", Slot: "2027-03-02", Held: capacity},
		{Unit: "single", Slot: "2027-03-03", Held: capacity},
	})
}

// testConcurrentHoldAndRelease races releases of existing holds against
// new holds on the same slots: the counts must end exactly where the
// successful operations put them.
func testConcurrentHoldAndRelease(t *testing.T, s store.Store) {
	const n = 10
	nights := []string{"2027-04-01", "2027-04-02"}
	for i := range n {
		mustHold(t, s, hold(fmt.Sprintf("old%d", i), "double", 1, 2*n, nights...))
	}
	errs := race(2*n, func(i int) error {
		if i%2 == 0 {
			return s.Release(t.Context(), fmt.Sprintf("old%d", i/2), at())
		}
		return s.Hold(t.Context(), hold(fmt.Sprintf("new%d", i/2), "double", 1, 2*n, nights...))
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("operation %d = %v, want nil", i, err)
		}
	}
	checkCounts(t, s, "riverside", "2027-04-01", "2027-05-01", []store.Count{
		{Unit: "double", Slot: "2027-04-01", Held: n},
		{Unit: "double", Slot: "2027-04-02", Held: n},
	})
}

func testCountsRange(t *testing.T, s store.Store) {
	for _, h := range []store.Hold{
		hold("n1", "single", 1, 9, "2026-11-30", "2026-12-01", "2026-12-02"),
		hold("n2", "double", 2, 9, "2026-12-01"),
		hold("n3", "single", 1, 9, "2026-12-03"),
		hold("t1", "sauna", 1, 9, "2026-12-01T10:00", "2026-12-01T23:00", "2026-12-02T08:00"),
		hold("t2", "sauna", 3, 9, "2026-12-01T09:00"),
		{ID: "o1", Location: "oldtown", Unit: "single", Units: 1, Capacity: 9, Slots: []string{"2026-12-01"}, At: at()},
	} {
		mustHold(t, s, h)
	}
	// Release a hold so a slot is left at zero: zero counts are not listed.
	mustHold(t, s, hold("gone", "studio", 1, 9, "2026-12-01"))
	if err := s.Release(t.Context(), "gone", at()); err != nil {
		t.Fatalf("Release = %v, want nil", err)
	}

	tests := []struct {
		name     string
		from, to string
		want     []store.Count
	}{
		{"one day, timed slots inside it", "2026-12-01", "2026-12-02", []store.Count{
			{Unit: "double", Slot: "2026-12-01", Held: 2},
			{Unit: "sauna", Slot: "2026-12-01T09:00", Held: 3},
			{Unit: "sauna", Slot: "2026-12-01T10:00", Held: 1},
			{Unit: "sauna", Slot: "2026-12-01T23:00", Held: 1},
			{Unit: "single", Slot: "2026-12-01", Held: 1},
		}},
		{"from inclusive, to exclusive", "2026-12-02", "2026-12-03", []store.Count{
			{Unit: "sauna", Slot: "2026-12-02T08:00", Held: 1},
			{Unit: "single", Slot: "2026-12-02", Held: 1},
		}},
		{"timed range", "2026-12-01T10:00", "2026-12-01T23:00", []store.Count{
			{Unit: "sauna", Slot: "2026-12-01T10:00", Held: 1},
		}},
		{"whole month", "2026-12-01", "2027-01-01", []store.Count{
			{Unit: "double", Slot: "2026-12-01", Held: 2},
			{Unit: "sauna", Slot: "2026-12-01T09:00", Held: 3},
			{Unit: "sauna", Slot: "2026-12-01T10:00", Held: 1},
			{Unit: "sauna", Slot: "2026-12-01T23:00", Held: 1},
			{Unit: "sauna", Slot: "2026-12-02T08:00", Held: 1},
			{Unit: "single", Slot: "2026-12-01", Held: 1},
			{Unit: "single", Slot: "2026-12-02", Held: 1},
			{Unit: "single", Slot: "2026-12-03", Held: 1},
		}},
		{"empty range", "2026-12-02", "2026-12-02", nil},
		{"before anything", "2026-01-01", "2026-11-30", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCounts(t, s, "riverside", tt.from, tt.to, tt.want)
		})
	}
	checkCounts(t, s, "airport", "", "~", nil)
}

func testReady(t *testing.T, s store.Store) {
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready = %v, want nil", err)
	}
}

// hold builds a hold at riverside, the location most cases use.
func hold(id, unit string, units, capacity int, slots ...string) store.Hold {
	return store.Hold{ID: id, Location: "riverside", Unit: unit, Slots: slots, Units: units, Capacity: capacity, At: at()}
}

func mustHold(t *testing.T, s store.Store, h store.Hold) {
	t.Helper()
	if err := s.Hold(t.Context(), h); err != nil {
		t.Fatalf("Hold(%s) = %v, want nil", h.ID, err)
	}
}

func mustCreate(t *testing.T, s store.Store, kind, key, value string) store.Record {
	t.Helper()
	r, err := s.Create(t.Context(), store.Record{Kind: kind, Key: key, Value: []byte(value), UpdatedAt: at()})
	if err != nil {
		t.Fatalf("Create(%s/%s) = %v, want nil", kind, key, err)
	}
	return r
}

// checkValue checks the stored value and version of one record.
func checkValue(t *testing.T, s store.Store, kind, key, value string, version int64) {
	t.Helper()
	got, err := s.Get(t.Context(), kind, key)
	if err != nil {
		t.Fatalf("Get(%s/%s) = %v, want nil", kind, key, err)
	}
	if !bytes.Equal(got.Value, []byte(value)) {
		t.Fatalf("Get(%s/%s).Value = %q, want %q", kind, key, got.Value, value)
	}
	if got.Version != version {
		t.Fatalf("Get(%s/%s).Version = %d, want %d", kind, key, got.Version, version)
	}
}

// checkRecord compares records field by field; the time must be the same
// instant and in UTC.
func checkRecord(t *testing.T, op string, got, want store.Record) {
	t.Helper()
	if got.Kind != want.Kind || got.Key != want.Key || !bytes.Equal(got.Value, want.Value) || got.Version != want.Version {
		t.Fatalf("%s = %s/%s %q v%d, want %s/%s %q v%d", op,
			got.Kind, got.Key, got.Value, got.Version, want.Kind, want.Key, want.Value, want.Version)
	}
	if !got.UpdatedAt.Equal(want.UpdatedAt) || got.UpdatedAt.Location() != time.UTC {
		t.Fatalf("%s.UpdatedAt = %v, want %v", op, got.UpdatedAt, want.UpdatedAt)
	}
}

func checkCounts(t *testing.T, s store.Store, location, from, to string, want []store.Count) {
	t.Helper()
	got, err := s.Counts(t.Context(), location, from, to)
	if err != nil {
		t.Fatalf("Counts(%s, %s, %s) = %v, want nil", location, from, to, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Counts(%s, %s, %s) = %v, want %v", location, from, to, got, want)
	}
}

// race runs fn(0) … fn(n-1) at once, released together so the calls
// contend as much as possible, and returns their errors by index.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}
