package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"frontdesk/store"
)

// maxList is the largest limit the contract allows a List.
const maxList = 1000

// testListPages pages through the keys of one kind under a prefix, two at a
// time, the way a queue is drained.
func testListPages(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, key := range []string{"q/3", "q/1", "q/5", "q/2", "q/4", "p/1", "r/1"} {
		mustCreate(t, s, "inbox", key, "v "+key)
	}
	mustCreate(t, s, "outbox", "q/0", "another kind")
	later := at().Add(time.Hour)
	if _, err := s.Swap(ctx, store.Record{Kind: "inbox", Key: "q/2", Value: []byte("swapped"), Version: 1, UpdatedAt: later}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}

	var pages [][]string
	after := ""
	for {
		rs, err := s.List(ctx, "inbox", "q/", after, 2)
		if err != nil {
			t.Fatalf("List(inbox, q/, %q, 2) = %v, want nil", after, err)
		}
		if len(rs) == 0 {
			break
		}
		if len(pages) == 0 {
			// The first page shows whole records at their current versions.
			checkRecord(t, "List[0]", rs[0], store.Record{Kind: "inbox", Key: "q/1", Value: []byte("v q/1"), Version: 1, UpdatedAt: at().UTC()})
			checkRecord(t, "List[1]", rs[1], store.Record{Kind: "inbox", Key: "q/2", Value: []byte("swapped"), Version: 2, UpdatedAt: later.UTC()})
		}
		pages = append(pages, keys(rs))
		after = rs[len(rs)-1].Key
		if len(pages) > 5 {
			t.Fatalf("List keeps returning pages: %v", pages)
		}
	}
	want := [][]string{{"q/1", "q/2"}, {"q/3", "q/4"}, {"q/5"}}
	if !slices.EqualFunc(pages, want, slices.Equal) {
		t.Fatalf("pages = %q, want %q", pages, want)
	}
}

// testListPrefix checks which keys a prefix and an after select, at the
// edges where a careless upper bound goes wrong: neighbouring letters,
// multi-byte characters and the greatest code point.
func testListPrefix(t *testing.T, s store.Store) {
	ctx := t.Context()
	all := []string{
		"", "a", "ab", "ab/1", "aba", "abc", "ac", "a\U0010FFFF", "a\U0010FFFFz", "b",
		"ÿ", "ÿa", "Ā", "\uD7FF", "\uD7FFx", "\uE000",
	}
	// Created out of order, so the order listed is the engine's.
	for _, i := range []int{9, 3, 0, 15, 1, 12, 7, 5, 10, 2, 14, 6, 4, 11, 8, 13} {
		mustCreate(t, s, "inbox", all[i], "v")
	}
	mustCreate(t, s, "outbox", "ab/2", "another kind")
	mustCreate(t, s, "outbox", "b", "another kind")

	tests := []struct {
		name          string
		kind          string
		prefix, after string
		want          []string
	}{
		{"everything", "inbox", "", "", all},
		{"one letter", "inbox", "a", "", []string{"a", "ab", "ab/1", "aba", "abc", "ac", "a\U0010FFFF", "a\U0010FFFFz"}},
		{"two letters", "inbox", "ab", "", []string{"ab", "ab/1", "aba", "abc"}},
		{"whole key", "inbox", "abc", "", []string{"abc"}},
		{"separator", "inbox", "ab/", "", []string{"ab/1"}},
		{"last letter", "inbox", "b", "", []string{"b"}},
		{"no match", "inbox", "abd", "", nil},
		{"past everything", "inbox", "z", "", nil},
		{"two-byte character", "inbox", "ÿ", "", []string{"ÿ", "ÿa"}},
		{"greatest code point", "inbox", "a\U0010FFFF", "", []string{"a\U0010FFFF", "a\U0010FFFFz"}},
		{"before the surrogates", "inbox", "\uD7FF", "", []string{"\uD7FF", "\uD7FFx"}},
		{"after inside the prefix", "inbox", "ab", "ab/1", []string{"aba", "abc"}},
		{"after before the prefix", "inbox", "ab", "a", []string{"ab", "ab/1", "aba", "abc"}},
		{"after between keys", "inbox", "a", "ab0", []string{"aba", "abc", "ac", "a\U0010FFFF", "a\U0010FFFFz"}},
		{"after the last match", "inbox", "ab", "abc", nil},
		{"after past the prefix", "inbox", "ab", "ac", nil},
		{"after without a prefix", "inbox", "", "Ā", []string{"\uD7FF", "\uD7FFx", "\uE000"}},
		{"other kind", "outbox", "ab", "", []string{"ab/2"}},
		{"other kind, everything", "outbox", "", "", []string{"ab/2", "b"}},
		{"kind without records", "queue", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.List(ctx, tt.kind, tt.prefix, tt.after, maxList)
			if err != nil {
				t.Fatalf("List(%s, %q, %q) = %v, want nil", tt.kind, tt.prefix, tt.after, err)
			}
			for _, r := range rs {
				if r.Kind != tt.kind {
					t.Fatalf("List(%s, %q, %q) returned kind %s", tt.kind, tt.prefix, tt.after, r.Kind)
				}
			}
			if got := keys(rs); !slices.Equal(got, tt.want) {
				t.Fatalf("List(%s, %q, %q) = %q, want %q", tt.kind, tt.prefix, tt.after, got, tt.want)
			}
		})
	}
}

func testListLimit(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, key := range []string{"c", "a", "b"} {
		mustCreate(t, s, "inbox", key, "v")
	}
	tests := []struct {
		limit int
		want  []string
	}{
		{1, []string{"a"}},
		{2, []string{"a", "b"}},
		{3, []string{"a", "b", "c"}},
		{maxList, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		rs, err := s.List(ctx, "inbox", "", "", tt.limit)
		if err != nil {
			t.Fatalf("List(limit %d) = %v, want nil", tt.limit, err)
		}
		if got := keys(rs); !slices.Equal(got, tt.want) {
			t.Fatalf("List(limit %d) = %q, want %q", tt.limit, got, tt.want)
		}
	}
	for _, limit := range []int{0, -1, maxList + 1} {
		if rs, err := s.List(ctx, "inbox", "", "", limit); err == nil {
			t.Fatalf("List(limit %d) = %q, nil; want an error", limit, keys(rs))
		}
	}
}

// testApplyAllOrNothing refuses the last write of a batch and checks that
// the writes before it were rolled back.
func testApplyAllOrNothing(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "intent", "swap-me", "v1")
	stale := mustCreate(t, s, "intent", "delete-me", "v1")
	if _, err := s.Swap(ctx, store.Record{Kind: "intent", Key: "delete-me", Value: []byte("v2"), Version: 1, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	writes := []store.Write{
		{Op: store.OpCreate, Record: store.Record{Kind: "intent", Key: "new", Value: []byte("n1"), UpdatedAt: at()}},
		{Op: store.OpSwap, Record: store.Record{Kind: "intent", Key: "swap-me", Value: []byte("v2"), Version: 1, UpdatedAt: at()}},
		{Op: store.OpDelete, Record: stale}, // version 1; the record is at 2
	}
	rs, err := s.Apply(ctx, writes)
	checkWriteError(t, "Apply with a stale delete", rs, err, 2, store.ErrConflict)
	if _, err := s.Get(ctx, "intent", "new"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(created by a refused Apply) = %v, want %v", err, store.ErrNotFound)
	}
	checkValue(t, s, "intent", "swap-me", "v1", 1)
	checkValue(t, s, "intent", "delete-me", "v2", 2)

	// With the current version the same batch goes through.
	writes[2].Record.Version = 2
	if _, err := s.Apply(ctx, writes); err != nil {
		t.Fatalf("Apply with current versions = %v, want nil", err)
	}
	checkValue(t, s, "intent", "new", "n1", 1)
	checkValue(t, s, "intent", "swap-me", "v2", 2)
	if _, err := s.Get(ctx, "intent", "delete-me"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(deleted by Apply) = %v, want %v", err, store.ErrNotFound)
	}
}

// testApplyReturnsVersions checks what a successful Apply returns, with a
// batch whose later writes build on its earlier ones.
func testApplyReturnsVersions(t *testing.T, s store.Store) {
	ctx := t.Context()
	later := at().Add(time.Hour)
	mustCreate(t, s, "intent", "a", "a1")
	b := mustCreate(t, s, "intent", "b", "b1")
	rs, err := s.Apply(ctx, []store.Write{
		{Op: store.OpCreate, Record: store.Record{Kind: "intent", Key: "c", Value: []byte("c1"), UpdatedAt: later}},
		{Op: store.OpSwap, Record: store.Record{Kind: "intent", Key: "a", Value: []byte("a2"), Version: 1, UpdatedAt: later}},
		{Op: store.OpSwap, Record: store.Record{Kind: "intent", Key: "c", Value: []byte("c2"), Version: 1, UpdatedAt: later}},
		{Op: store.OpDelete, Record: b},
		{Op: store.OpCreate, Record: store.Record{Kind: "reservation", Key: "c", UpdatedAt: later}},
	})
	if err != nil {
		t.Fatalf("Apply = %v, want nil", err)
	}
	want := []store.Record{
		{Kind: "intent", Key: "c", Value: []byte("c1"), Version: 1, UpdatedAt: later.UTC()},
		{Kind: "intent", Key: "a", Value: []byte("a2"), Version: 2, UpdatedAt: later.UTC()},
		{Kind: "intent", Key: "c", Value: []byte("c2"), Version: 2, UpdatedAt: later.UTC()},
		b, // a deleted record comes back as given
		{Kind: "reservation", Key: "c", Value: []byte{}, Version: 1, UpdatedAt: later.UTC()},
	}
	if len(rs) != len(want) {
		t.Fatalf("Apply returned %d records, want %d", len(rs), len(want))
	}
	for i := range want {
		checkRecord(t, fmt.Sprintf("Apply[%d]", i), rs[i], want[i])
	}
	checkValue(t, s, "intent", "a", "a2", 2)
	checkValue(t, s, "intent", "c", "c2", 2)
	checkValue(t, s, "reservation", "c", "", 1)
	if _, err := s.Get(ctx, "intent", "b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(deleted by Apply) = %v, want %v", err, store.ErrNotFound)
	}
}

// testApplyRefused runs batches that each have one refused write, and
// checks after every one that the store is exactly as before.
func testApplyRefused(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "intent", "k1", "v1")
	if _, err := s.Swap(ctx, store.Record{Kind: "intent", Key: "k1", Value: []byte("v2"), Version: 1, UpdatedAt: at()}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	mustCreate(t, s, "intent", "k2", "v1")
	before, err := s.List(ctx, "intent", "", "", maxList)
	if err != nil {
		t.Fatalf("List = %v, want nil", err)
	}

	create := func(key string) store.Write {
		return store.Write{Op: store.OpCreate, Record: store.Record{Kind: "intent", Key: key, Value: []byte("new"), UpdatedAt: at()}}
	}
	swap := func(key string, version int64) store.Write {
		return store.Write{Op: store.OpSwap, Record: store.Record{Kind: "intent", Key: key, Value: []byte("swapped"), Version: version, UpdatedAt: at()}}
	}
	del := func(key string, version int64) store.Write {
		return store.Write{Op: store.OpDelete, Record: store.Record{Kind: "intent", Key: key, Version: version}}
	}
	tests := []struct {
		name   string
		writes []store.Write
		index  int
		want   error
	}{
		{"create a taken key", []store.Write{create("new"), create("k1")}, 1, store.ErrExists},
		{"create one key twice", []store.Write{create("new"), create("new")}, 1, store.ErrExists},
		{"swap stale", []store.Write{swap("k2", 1), swap("k1", 1)}, 1, store.ErrConflict},
		{"swap absent", []store.Write{swap("absent", 1), swap("k2", 1)}, 0, store.ErrNotFound},
		{"swap one version twice", []store.Write{swap("k1", 2), swap("k1", 2)}, 1, store.ErrConflict},
		{"swap after delete", []store.Write{del("k2", 1), swap("k2", 1)}, 1, store.ErrNotFound},
		{"delete stale", []store.Write{del("k1", 1)}, 0, store.ErrConflict},
		{"delete absent", []store.Write{create("new"), del("absent", 1)}, 1, store.ErrNotFound},
		{"delete twice", []store.Write{del("k1", 2), del("k1", 2)}, 1, store.ErrNotFound},
		// Engines may send writes of distinct keys together; the first
		// refused one is still the one reported.
		{"first of two refusals", []store.Write{create("new"), swap("k1", 1), create("k2")}, 1, store.ErrConflict},
		{"refused between writes", []store.Write{create("new"), del("absent", 1), swap("k2", 1)}, 1, store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.Apply(ctx, tt.writes)
			checkWriteError(t, "Apply", rs, err, tt.index, tt.want)
			after, err := s.List(ctx, "intent", "", "", maxList)
			if err != nil {
				t.Fatalf("List = %v, want nil", err)
			}
			if len(after) != len(before) {
				t.Fatalf("after a refused Apply, keys = %q, want %q", keys(after), keys(before))
			}
			for i := range before {
				checkRecord(t, "after a refused Apply, List", after[i], before[i])
			}
		})
	}
}

func testApplyEmpty(t *testing.T, s store.Store) {
	for _, writes := range [][]store.Write{nil, {}} {
		rs, err := s.Apply(t.Context(), writes)
		if rs != nil || err != nil {
			t.Fatalf("Apply(%#v) = %v, %v; want nil, nil", writes, rs, err)
		}
	}
}

// testApplyInvalid passes batches with a caller's mistake: an error that is
// no refusal, and nothing changes.
func testApplyInvalid(t *testing.T, s store.Store) {
	ctx := t.Context()
	r := mustCreate(t, s, "intent", "k1", "v1")
	ok := store.Write{Op: store.OpCreate, Record: store.Record{Kind: "intent", Key: "new", Value: []byte("n"), UpdatedAt: at()}}
	tests := []struct {
		name string
		bad  store.Write
	}{
		{"create without time", store.Write{Op: store.OpCreate, Record: store.Record{Kind: "intent", Key: "other", Value: []byte("v")}}},
		{"swap without time", store.Write{Op: store.OpSwap, Record: store.Record{Kind: "intent", Key: "k1", Value: []byte("v2"), Version: r.Version}}},
		{"no op", store.Write{Record: r}},
		{"unknown op", store.Write{Op: store.OpDelete + 1, Record: r}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := s.Apply(ctx, []store.Write{ok, tt.bad})
			if err == nil {
				t.Fatalf("Apply = %v, nil; want an error", rs)
			}
			if _, refused := errors.AsType[*store.WriteError](err); refused {
				t.Fatalf("Apply = %v, want an error that is no *store.WriteError", err)
			}
			if _, err := s.Get(ctx, "intent", "new"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(created by a failed Apply) = %v, want %v", err, store.ErrNotFound)
			}
			checkValue(t, s, "intent", "k1", "v1", 1)
		})
	}
}

// testConcurrentApplySwaps races batches that each create a record of
// their own and then swap one shared record from the same version: exactly
// one batch may win each round, and only the winner's create remains.
func testConcurrentApplySwaps(t *testing.T, s store.Store) {
	const rounds, writers = 20, 20
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
			_, err := s.Apply(ctx, []store.Write{
				{Op: store.OpCreate, Record: store.Record{Kind: "side", Key: fmt.Sprintf("r%02d/w%02d", round, i), UpdatedAt: at()}},
				{Op: store.OpSwap, Record: r},
			})
			return err
		})
		winner := -1
		for i, err := range errs {
			switch we, _ := errors.AsType[*store.WriteError](err); {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both won", round, winner, i)
			case err == nil:
				winner = i
			case we == nil || we.Index != 1 || we.Err != store.ErrConflict:
				t.Fatalf("round %d: writer %d Apply = %v, want nil or write 1 refused with %v", round, i, err, store.ErrConflict)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer won", round)
		}
		checkValue(t, s, "counter", "c", fmt.Sprintf("round %d writer %d", round, winner), cur.Version+1)
		rs, err := s.List(ctx, "side", fmt.Sprintf("r%02d/", round), "", maxList)
		if err != nil {
			t.Fatalf("round %d: List = %v, want nil", round, err)
		}
		if got, want := keys(rs), []string{fmt.Sprintf("r%02d/w%02d", round, winner)}; !slices.Equal(got, want) {
			t.Fatalf("round %d: side records = %q, want %q", round, got, want)
		}
	}
}

// checkWriteError checks that an Apply was refused at write index with
// want, and returned no records.
func checkWriteError(t *testing.T, op string, rs []store.Record, err error, index int, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s = %v, want %v", op, err, want)
	}
	we, ok := errors.AsType[*store.WriteError](err)
	if !ok {
		t.Fatalf("%s = %T %v, want a *store.WriteError", op, err, err)
	}
	if we.Index != index || we.Err != want {
		t.Fatalf("%s refused write %d with %v, want write %d with %v", op, we.Index, we.Err, index, want)
	}
	if rs != nil {
		t.Fatalf("%s returned %d records with its error, want none", op, len(rs))
	}
}

// keys returns the keys of rs in order.
func keys(rs []store.Record) []string {
	var ks []string
	for _, r := range rs {
		ks = append(ks, r.Key)
	}
	return ks
}

// testGetMany reads present, absent and repeated keys at once: one
// record per key in the order asked, an absent one with version 0, and
// kinds kept apart.
func testGetMany(t *testing.T, s store.Store) {
	ctx := t.Context()
	mustCreate(t, s, "settings", "live", "v1")
	mustCreate(t, s, "mailbox", "live", "other kind")
	later := at().Add(time.Minute)
	if _, err := s.Swap(ctx, store.Record{Kind: "settings", Key: "live", Value: []byte("v2"), Version: 1, UpdatedAt: later}); err != nil {
		t.Fatalf("Swap = %v, want nil", err)
	}
	mustCreate(t, s, "intent", "a", "")
	keys := []store.Key{{Kind: "intent", Key: "absent"}, {Kind: "settings", Key: "live"}, {Kind: "mailbox", Key: "live"}, {Kind: "intent", Key: "a"}, {Kind: "settings", Key: "live"}}
	got, err := s.GetMany(ctx, keys)
	if err != nil {
		t.Fatalf("GetMany = %v, want nil", err)
	}
	if len(got) != len(keys) {
		t.Fatalf("GetMany returned %d records for %d keys", len(got), len(keys))
	}
	if r := got[0]; r.Kind != "intent" || r.Key != "absent" || r.Version != 0 || r.Value != nil {
		t.Fatalf("GetMany[0] = %+v, want the absent key with version 0", r)
	}
	checkRecord(t, "GetMany[1]", got[1], store.Record{Kind: "settings", Key: "live", Value: []byte("v2"), Version: 2, UpdatedAt: later.UTC()})
	checkRecord(t, "GetMany[2]", got[2], store.Record{Kind: "mailbox", Key: "live", Value: []byte("other kind"), Version: 1, UpdatedAt: at().UTC()})
	checkRecord(t, "GetMany[3]", got[3], store.Record{Kind: "intent", Key: "a", Value: []byte{}, Version: 1, UpdatedAt: at().UTC()})
	checkRecord(t, "GetMany[4]", got[4], got[1])

	if got, err := s.GetMany(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("GetMany(nil) = %v, %v, want no records", got, err)
	}
	tooMany := make([]store.Key, store.MaxGetMany+1)
	for i := range tooMany {
		tooMany[i] = store.Key{Kind: "intent", Key: fmt.Sprint(i)}
	}
	if _, err := s.GetMany(ctx, tooMany); err == nil {
		t.Fatalf("GetMany of %d keys = nil error, want an error", len(tooMany))
	}
	if _, err := s.GetMany(ctx, tooMany[:store.MaxGetMany]); err != nil {
		t.Fatalf("GetMany of %d keys = %v, want nil", store.MaxGetMany, err)
	}
}
