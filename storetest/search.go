package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"frontdesk/store"
)

// The cases of the search index: terms written with a row and replaced
// with it, prefixes of every alternative, nearest first, and the index
// write that leaves the row and its version alone.

func withTerms(r store.Reservation, terms ...string) store.Reservation {
	r.Terms = terms
	return r
}

func search(t *testing.T, s store.Store, near, location string, alts ...[]string) []string {
	t.Helper()
	got, err := s.SearchReservations(context.Background(), store.ReservationSearch{Any: alts, Location: location, Near: near, Limit: 50})
	if err != nil {
		t.Fatalf("search %v: %v", alts, err)
	}
	return refsOf(got)
}

func testSearchReservations(t *testing.T, s store.Store) {
	ctx := context.Background()
	createRes(t, s,
		withTerms(resRow("P-OLD", "riverside", "2025-01-10", "2025-01-12", "completed", "chat", "k1"), "p-old", "ana", "moreno"),
		withTerms(resRow("P-LAST", "riverside", "2026-11-20", "2026-11-22", "completed", "form", "k1"), "p-last", "ana", "moreno", "ana@example.com"),
		withTerms(resRow("N-SOON", "riverside", "2026-12-08", "2026-12-09", "confirmed", "chat", "k1"), "n-soon", "ana", "moreno", "~4321"),
		withTerms(resRow("N-LATER", "oldtown", "2027-03-01", "2027-03-04", "reserved", "usp:acme", "k2"), "n-later", "anabel", "ruiz"),
		withTerms(resRow("N-NOW", "riverside", "2026-12-05", "2026-12-07", "confirmed", "staff", "k3"), "n-now", "bo", "moreno"),
	)
	const today = "2026-12-06"
	tests := []struct {
		name     string
		location string
		any      [][]string
		want     []string
	}{
		{"a word, nearest first, then the past latest first", "", [][]string{{"ana"}}, []string{"N-SOON", "N-LATER", "P-LAST", "P-OLD"}},
		{"a stay under way comes first", "", [][]string{{"moreno"}}, []string{"N-NOW", "N-SOON", "P-LAST", "P-OLD"}},
		{"every prefix of an alternative", "", [][]string{{"ana", "mor"}}, []string{"N-SOON", "P-LAST", "P-OLD"}},
		{"the start of a word", "", [][]string{{"anab"}}, []string{"N-LATER"}},
		{"either alternative", "", [][]string{{"ruiz"}, {"bo"}}, []string{"N-NOW", "N-LATER"}},
		{"one location", "riverside", [][]string{{"an"}}, []string{"N-SOON", "P-LAST", "P-OLD"}},
		{"a phone's last digits", "", [][]string{{"~43"}}, []string{"N-SOON"}},
		{"a whole email", "", [][]string{{"ana@example.com"}}, []string{"P-LAST"}},
		{"nothing", "", [][]string{{"zed"}}, nil},
		{"a prefix matching no whole alternative", "", [][]string{{"ana", "zed"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := search(t, s, today, tt.location, tt.any...); !slices.Equal(got, tt.want) {
				t.Fatalf("search %v = %v, want %v", tt.any, got, tt.want)
			}
		})
	}
	// A swap replaces the terms: the old ones find it no more.
	cur, err := s.GetReservation(ctx, "N-NOW")
	if err != nil {
		t.Fatal(err)
	}
	cur.Terms = []string{"n-now", "redacted"}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &cur}}); err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, today, "", []string{"bo"}); got != nil {
		t.Fatalf("an old term still finds %v", got)
	}
	if got := search(t, s, today, "", []string{"redac"}); !slices.Equal(got, []string{"N-NOW"}) {
		t.Fatalf("the new term finds %v", got)
	}
	// A swap that keeps the terms keeps finding the row.
	cur, _ = s.GetReservation(ctx, "N-NOW")
	cur.Terms = []string{"redacted", "n-now", "redacted"}
	cur.State = "completed"
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &cur}}); err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, today, "", []string{"redacted"}); !slices.Equal(got, []string{"N-NOW"}) {
		t.Fatalf("after a swap with the same terms: %v", got)
	}
	// A refused swap leaves the terms as they were.
	stale := cur
	stale.Terms = []string{"stale"}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &stale}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale swap = %v, want ErrConflict", err)
	}
	if got := search(t, s, today, "", []string{"stale"}); got != nil {
		t.Fatalf("a refused swap indexed %v", got)
	}
	for _, bad := range []store.ReservationSearch{
		{Limit: 10},
		{Any: [][]string{{""}}, Limit: 10},
		{Any: [][]string{{}}, Limit: 10},
		{Any: [][]string{{"a"}}, Limit: 0},
		{Any: [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}, Limit: 10},
	} {
		if _, err := s.SearchReservations(ctx, bad); err == nil {
			t.Errorf("search %+v accepted", bad)
		}
	}
}

// An index write replaces a row's terms only, at its current version.
func testIndexReservation(t *testing.T, s store.Store) {
	ctx := context.Background()
	createRes(t, s, resRow("I-1", "riverside", "2026-12-01", "2026-12-02", "confirmed", "chat", "k"))
	if got := search(t, s, "2026-12-01", "", []string{"ines"}); got != nil {
		t.Fatalf("unindexed row found: %v", got)
	}
	index := func(version int64, terms ...string) error {
		_, err := s.Apply(ctx, []store.Write{{Op: store.OpIndexReservation, Reservation: &store.Reservation{Reference: "I-1", Version: version, Terms: terms}}})
		return err
	}
	if err := index(2, "ines"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("index at a stale version = %v, want ErrConflict", err)
	}
	if err := index(1, "ines", "i-1"); err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, "2026-12-01", "", []string{"ines"}); !slices.Equal(got, []string{"I-1"}) {
		t.Fatalf("indexed row: %v", got)
	}
	got, err := s.GetReservation(ctx, "I-1")
	if err != nil || got.Version != 1 {
		t.Fatalf("the row after indexing: version %d, %v; want version 1", got.Version, err)
	}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpIndexReservation, Reservation: &store.Reservation{Reference: "NONE", Version: 1}}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("index of an absent row = %v, want ErrNotFound", err)
	}
}

// A window read finds a stay that began long before the window, however
// long it is, and nothing that ended before it.
func testListReservationsLongSpan(t *testing.T, s store.Store) {
	ctx := context.Background()
	createRes(t, s,
		resRow("L-YEAR", "riverside", "2025-12-01", "2026-12-10", "confirmed", "staff", "k"),
		resRow("L-GONE", "riverside", "2026-11-01", "2026-11-30", "completed", "chat", "k"),
		resRow("L-TIMED", "riverside", "2026-12-05T10:00", "2026-12-05T11:00", "confirmed", "usp:acme", "k"),
	)
	got, err := s.ListReservations(ctx, store.ReservationFilter{Location: "riverside", From: "2026-12-05", To: "2026-12-06", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"L-YEAR", "L-TIMED"}; !slices.Equal(refsOf(got), want) {
		t.Fatalf("window = %v, want %v", refsOf(got), want)
	}
	got, err = s.ListReservations(ctx, store.ReservationFilter{From: "2026-12-05T10:30", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"L-YEAR", "L-TIMED"}; !slices.Equal(refsOf(got), want) {
		t.Fatalf("window from a time = %v, want %v", refsOf(got), want)
	}
}
