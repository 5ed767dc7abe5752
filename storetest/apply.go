package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"frontdesk/store"
)

// holdWrite and releaseWrite are the index writes of an Apply.
func holdWrite(h store.Hold) store.Write { return store.Write{Op: store.OpHold, Hold: &h} }

func releaseWrite(id string) store.Write {
	return store.Write{Op: store.OpRelease, Hold: &store.Hold{ID: id, At: at()}}
}

func createWrite(kind, key, value string) store.Write {
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: kind, Key: key, Value: []byte(value), UpdatedAt: at()}}
}

// testApplyRecordsAndHold commits records and a hold in one batch: both
// are there afterwards, and the hold's result is the zero record.
func testApplyRecordsAndHold(t *testing.T, s store.Store) {
	ctx := t.Context()
	counter := mustCreate(t, s, "counter", "pending", "0")
	counter.Value = []byte("1")
	rs, err := s.Apply(ctx, []store.Write{
		createWrite("reservation", "r1", "reserved"),
		holdWrite(hold("r1", "double", 1, 2, "2026-12-01", "2026-12-02")),
		{Op: store.OpSwap, Record: counter},
	})
	if err != nil {
		t.Fatalf("Apply(records and a hold) = %v, want nil", err)
	}
	if len(rs) != 3 {
		t.Fatalf("Apply returned %d records, want 3", len(rs))
	}
	checkRecord(t, "Apply[0]", rs[0], store.Record{Kind: "reservation", Key: "r1", Value: []byte("reserved"), Version: 1, UpdatedAt: at().UTC()})
	if !rs[1].UpdatedAt.IsZero() || rs[1].Kind != "" || rs[1].Version != 0 {
		t.Fatalf("Apply[1] = %+v for a hold, want the zero record", rs[1])
	}
	checkRecord(t, "Apply[2]", rs[2], store.Record{Kind: "counter", Key: "pending", Value: []byte("1"), Version: 2, UpdatedAt: at().UTC()})
	checkValue(t, s, "reservation", "r1", "reserved", 1)
	checkValue(t, s, "counter", "pending", "1", 2)
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 1},
		{Unit: "double", Slot: "2026-12-02", Held: 1},
	})
	// The hold is an ordinary one: Release finds it.
	if err := s.Release(ctx, "r1", at()); err != nil {
		t.Fatalf("Release(held by Apply) = %v, want nil", err)
	}
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", nil)
}

// testApplyHoldRefused refuses the hold of a batch, for want of capacity
// or because its ID is taken: the records written before it roll back,
// and the refusal names the hold.
func testApplyHoldRefused(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("first", "studio", 1, 1, "2026-12-02"))
	counter := mustCreate(t, s, "counter", "pending", "0")
	tests := []struct {
		name string
		h    store.Hold
		want error
	}{
		{"full", hold("second", "studio", 1, 1, "2026-12-01", "2026-12-02"), store.ErrFull},
		{"taken id", hold("first", "double", 1, 5, "2026-12-01"), store.ErrExists},
		{"more than capacity", hold("big", "double", 3, 2, "2026-12-05"), store.ErrFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := counter
			next.Value = []byte("1")
			rs, err := s.Apply(ctx, []store.Write{
				createWrite("reservation", "r-"+tt.h.ID, "reserved"),
				{Op: store.OpSwap, Record: next},
				holdWrite(tt.h),
				createWrite("notice", "n-"+tt.h.ID, "queued"),
			})
			checkWriteError(t, "Apply with a refused hold", rs, err, 2, tt.want)
			if _, err := s.Get(ctx, "reservation", "r-"+tt.h.ID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(created before a refused hold) = %v, want %v", err, store.ErrNotFound)
			}
			if _, err := s.Get(ctx, "notice", "n-"+tt.h.ID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(created after a refused hold) = %v, want %v", err, store.ErrNotFound)
			}
			checkValue(t, s, "counter", "pending", "0", 1)
			checkCounts(t, s, "riverside", "", "~", []store.Count{
				{Unit: "studio", Slot: "2026-12-02", Held: 1},
			})
		})
	}
	// The refused holds left no trace: their IDs are still free.
	if err := s.Release(ctx, "second", at()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Release(refused hold) = %v, want %v", err, store.ErrNotFound)
	}
}

// testApplyRecordRefusedAfterHold refuses a record write that follows a
// hold in its batch: the units taken go back.
func testApplyRecordRefusedAfterHold(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "reservation", "r1", "taken")
	stale := mustCreate(t, s, "counter", "pending", "0")
	if _, err := s.Swap(ctx, store.Record{Kind: "counter", Key: "pending", Value: []byte("1"), Version: 1, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	tests := []struct {
		name   string
		writes []store.Write
		index  int
		want   error
	}{
		{"stale swap", []store.Write{
			holdWrite(hold("h1", "double", 1, 2, "2026-12-01", "2026-12-02")),
			{Op: store.OpSwap, Record: stale},
		}, 1, store.ErrConflict},
		{"taken key", []store.Write{
			holdWrite(hold("h1", "double", 2, 2, "2026-12-01")),
			createWrite("reservation", "r1", "again"),
		}, 1, store.ErrExists},
		{"second hold full", []store.Write{
			holdWrite(hold("h1", "double", 2, 2, "2026-12-01")),
			holdWrite(hold("h2", "double", 1, 2, "2026-12-01")),
		}, 1, store.ErrFull},
		{"same hold twice", []store.Write{
			holdWrite(hold("h1", "double", 1, 2, "2026-12-01")),
			holdWrite(hold("h1", "double", 1, 2, "2026-12-03")),
		}, 1, store.ErrExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.Apply(ctx, tt.writes)
			checkWriteError(t, "Apply", rs, err, tt.index, tt.want)
			checkCounts(t, s, "riverside", "", "~", nil)
			if err := s.Release(ctx, "h1", at()); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Release(hold of a refused Apply) = %v, want %v", err, store.ErrNotFound)
			}
			checkValue(t, s, "reservation", "r1", "taken", 1)
			checkValue(t, s, "counter", "pending", "1", 2)
		})
	}
}

// testApplyRelease gives back a hold inside a batch: together with a
// record write, refused when the hold is unknown, and taken again within
// the same batch.
func testApplyRelease(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustHold(t, s, hold("keep", "double", 1, 2, "2026-12-01"))
	mustHold(t, s, hold("drop", "double", 1, 2, "2026-12-01", "2026-12-02"))
	r := mustCreate(t, s, "reservation", "drop", "reserved")

	r.Value = []byte("cancelled")
	rs, err := s.Apply(ctx, []store.Write{releaseWrite("unknown"), {Op: store.OpSwap, Record: r}})
	checkWriteError(t, "Apply releasing an unknown hold", rs, err, 0, store.ErrNotFound)
	checkValue(t, s, "reservation", "drop", "reserved", 1)

	// A refused write after the release puts the units back.
	rs, err = s.Apply(ctx, []store.Write{releaseWrite("drop"), createWrite("reservation", "drop", "twice")})
	checkWriteError(t, "Apply with a refusal after a release", rs, err, 1, store.ErrExists)
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 2},
		{Unit: "double", Slot: "2026-12-02", Held: 1},
	})

	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwap, Record: r}, releaseWrite("drop")}); err != nil {
		t.Fatalf("Apply(swap and release) = %v, want nil", err)
	}
	checkValue(t, s, "reservation", "drop", "cancelled", 2)
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 1},
	})
	if err := s.Release(ctx, "drop", at()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Release(released by Apply) = %v, want %v", err, store.ErrNotFound)
	}

	// A release makes room for a hold later in the same batch.
	_, err = s.Apply(ctx, []store.Write{
		holdWrite(hold("full", "double", 1, 2, "2026-12-01")),
		releaseWrite("keep"),
		holdWrite(hold("after", "double", 1, 2, "2026-12-01")),
	})
	if err != nil {
		t.Fatalf("Apply(hold, release, hold) = %v, want nil", err)
	}
	checkCounts(t, s, "riverside", "2026-12-01", "2026-12-31", []store.Count{
		{Unit: "double", Slot: "2026-12-01", Held: 2},
	})
}

// testApplyHoldInvalid passes index writes with a caller's mistake: an
// error that is no refusal, and nothing changes.
func testApplyHoldInvalid(t *testing.T, s store.Store) {
	ctx := t.Context()
	tests := []struct {
		name string
		bad  store.Write
	}{
		{"hold without a hold", store.Write{Op: store.OpHold}},
		{"release without a hold", store.Write{Op: store.OpRelease}},
		{"hold of no slots", holdWrite(hold("h", "double", 1, 5))},
		{"hold of zero units", holdWrite(hold("h", "double", 0, 5, "2026-12-01"))},
		{"hold without time", holdWrite(store.Hold{ID: "h", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01"}, Units: 1, Capacity: 5})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.Apply(ctx, []store.Write{createWrite("intent", "new", "n"), tt.bad})
			if err == nil {
				t.Fatalf("Apply = %v, nil; want an error", rs)
			}
			if _, refused := errors.AsType[*store.WriteError](err); refused {
				t.Fatalf("Apply = %v, want an error that is no *store.WriteError", err)
			}
			if _, err := s.Get(ctx, "intent", "new"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(created by a failed Apply) = %v, want %v", err, store.ErrNotFound)
			}
		})
	}
	checkCounts(t, s, "riverside", "", "~", nil)
}

// testConcurrentApplyHoldsLastUnit races batches that each create their
// own record, move one shared counter on and hold the last unit, re-reading
// the counter after a conflict as a booking does: exactly one batch holds
// the unit each round, and only its record remains.
func testConcurrentApplyHoldsLastUnit(t *testing.T, s store.Store) {
	const rounds, writers = 10, 10
	ctx := t.Context()
	mustCreate(t, s, "counter", "pending", "")
	for round := range rounds {
		night := fmt.Sprintf("2027-05-%02d", round+1)
		errs := race(writers, func(i int) error {
			for {
				cur, err := s.Get(ctx, "counter", "pending")
				if err != nil {
					return err
				}
				cur.Value = fmt.Appendf(cur.Value, "r%02d/w%02d ", round, i)
				_, err = s.Apply(ctx, []store.Write{
					createWrite("reservation", fmt.Sprintf("r%02d/w%02d", round, i), "reserved"),
					{Op: store.OpSwap, Record: cur},
					holdWrite(hold(fmt.Sprintf("r%02d/w%02d", round, i), "studio", 1, 1, night)),
				})
				if we, ok := errors.AsType[*store.WriteError](err); ok && we.Index == 1 && we.Err == store.ErrConflict {
					continue // another batch moved the counter on: re-read
				}
				return err
			}
		})
		winner := -1
		for i, err := range errs {
			switch we, _ := errors.AsType[*store.WriteError](err); {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both hold the last unit", round, winner, i)
			case err == nil:
				winner = i
			case we == nil || we.Index != 2 || we.Err != store.ErrFull:
				t.Fatalf("round %d: writer %d Apply = %v, want nil or write 2 refused with %v", round, i, err, store.ErrFull)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer holds the unit", round)
		}
		rs, err := s.List(ctx, "reservation", fmt.Sprintf("r%02d/", round), "", maxList)
		if err != nil {
			t.Fatalf("round %d: List = %v, want nil", round, err)
		}
		if got, want := keys(rs), []string{fmt.Sprintf("r%02d/w%02d", round, winner)}; !slices.Equal(got, want) {
			t.Fatalf("round %d: reservations = %q, want %q", round, got, want)
		}
		checkCounts(t, s, "riverside", night, night+"~", []store.Count{{Unit: "studio", Slot: night, Held: 1}})
	}
}

// testApplyRefusalNamesTheWrite checks that a refusal carries the refused
// write itself, so a caller tells refusals apart by what was refused and
// not by where the write stood: each batch is applied in two orders and
// names the same write both times.
func testApplyRefusalNamesTheWrite(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "k", "taken", "x")
	stale := mustCreate(t, s, "k", "moved", "x")
	if _, err := s.Swap(ctx, store.Record{Kind: "k", Key: "moved", Value: []byte("y"), Version: 1, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	mustApply(t, s, take("full", 1, 0, 1))
	mustHold(t, s, hold("h0", "double", 2, 2, "2026-12-01"))
	tests := []struct {
		name    string
		writes  []store.Write
		refused int // the write refused, in the order listed
		want    error
	}{
		{"taken create among creates", []store.Write{createWrite("k", "a", "x"), createWrite("k", "taken", "x"), createWrite("k", "b", "x")}, 1, store.ErrExists},
		{"stale swap after a create", []store.Write{createWrite("k", "c", "x"), {Op: store.OpSwap, Record: stale}}, 1, store.ErrConflict},
		{"full take among takes", []store.Write{take("free", 1, 0, 5), take("full", 1, 0, 1), take("other", 1, 0, 5)}, 1, store.ErrFull},
		{"full take after a create", []store.Write{createWrite("k", "d", "x"), take("full", 1, 0, 1)}, 1, store.ErrFull},
		{"full hold before a take", []store.Write{holdWrite(hold("h1", "double", 1, 2, "2026-12-01")), take("free", 2, 0, 5)}, 0, store.ErrFull},
	}
	for _, tt := range tests {
		for _, order := range []string{"as listed", "reversed"} {
			t.Run(tt.name+"/"+order, func(t *testing.T) {
				writes := slices.Clone(tt.writes)
				if order == "reversed" {
					slices.Reverse(writes)
				}
				_, err := s.Apply(ctx, writes)
				we, ok := errors.AsType[*store.WriteError](err)
				if !ok || !errors.Is(err, tt.want) {
					t.Fatalf("Apply = %v, want a *store.WriteError with %v", err, tt.want)
				}
				if got, want := writeName(we.Write), writeName(tt.writes[tt.refused]); got != want {
					t.Fatalf("refused write = %s, want %s", got, want)
				}
				if got, want := writeName(writes[we.Index]), writeName(we.Write); got != want {
					t.Fatalf("write at index %d = %s, want the refused %s", we.Index, got, want)
				}
			})
		}
	}
}

// writeName names what a write writes.
func writeName(w store.Write) string {
	switch {
	case w.Tally != nil:
		return w.Op.String() + " " + w.Tally.Name
	case w.Hold != nil:
		return w.Op.String() + " " + w.Hold.ID
	case w.Reservation != nil:
		return w.Op.String() + " " + w.Reservation.Reference
	}
	return w.Op.String() + " " + w.Record.Kind + "/" + w.Record.Key
}
