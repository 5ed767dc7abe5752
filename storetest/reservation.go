package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"frontdesk/store"
)

// The cases of the reservations table: typed rows written through Apply
// with their holds, read by reference and listed by filter and cursor.

func resRow(ref, loc, first, last, state, source, contact string) store.Reservation {
	return store.Reservation{
		Reference: ref, Location: loc, Unit: "double", FirstSlot: first, LastSlot: last,
		State: state, Source: source, ContactKey: contact, Value: []byte(`{"ref":"` + ref + `"}`), UpdatedAt: at(),
	}
}

func createRes(t *testing.T, s store.Store, rs ...store.Reservation) {
	t.Helper()
	var ws []store.Write
	for i := range rs {
		ws = append(ws, store.Write{Op: store.OpCreateReservation, Reservation: &rs[i]})
	}
	if _, err := s.Apply(context.Background(), ws); err != nil {
		t.Fatalf("create reservations: %v", err)
	}
}

func refsOf(rs []store.Reservation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Reference)
	}
	return out
}

func testReservationCreateGetSwap(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := resRow("RIV-1", "riverside", "2026-12-01", "2026-12-03", "reserved", "chat", "k1")
	createRes(t, s, r)
	got, err := s.GetReservation(ctx, "RIV-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || !got.UpdatedAt.Equal(at()) || got.UpdatedAt.Location().String() != "UTC" || !bytes.Equal(got.Value, r.Value) ||
		got.Location != "riverside" || got.Unit != "double" || got.FirstSlot != "2026-12-01" || got.LastSlot != "2026-12-03" ||
		got.State != "reserved" || got.Source != "chat" || got.ContactKey != "k1" {
		t.Fatalf("GetReservation = %+v", got)
	}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpCreateReservation, Reservation: &r}}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second create = %v, want ErrExists", err)
	}
	next := got
	next.State, next.Value = "confirmed", []byte(`{"ref":"RIV-1","v":2}`)
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &next}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &next}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale swap = %v, want ErrConflict", err)
	}
	absent := resRow("RIV-9", "riverside", "2026-12-01", "2026-12-01", "reserved", "chat", "k1")
	absent.Version = 1
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &absent}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("swap absent = %v, want ErrNotFound", err)
	}
	got, err = s.GetReservation(ctx, "RIV-1")
	if err != nil || got.Version != 2 || got.State != "confirmed" || string(got.Value) != `{"ref":"RIV-1","v":2}` {
		t.Fatalf("after swap = %+v, %v", got, err)
	}
	if _, err := s.GetReservation(ctx, "RIV-9"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get absent = %v, want ErrNotFound", err)
	}
}

// A reservation commits with its hold or not at all.
func testReservationWithHold(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := resRow("RIV-1", "riverside", "2026-12-01", "2026-12-02", "reserved", "chat", "k1")
	h := store.Hold{ID: "RIV-1", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01", "2026-12-02"}, Units: 1, Capacity: 1, At: at()}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpCreateReservation, Reservation: &r}, {Op: store.OpHold, Hold: &h}}); err != nil {
		t.Fatal(err)
	}
	r2 := resRow("RIV-2", "riverside", "2026-12-02", "2026-12-02", "reserved", "chat", "k2")
	h2 := h
	h2.ID, h2.Slots = "RIV-2", []string{"2026-12-02"}
	_, err := s.Apply(ctx, []store.Write{{Op: store.OpCreateReservation, Reservation: &r2}, {Op: store.OpHold, Hold: &h2}})
	var we *store.WriteError
	if !errors.As(err, &we) || we.Index != 1 || !errors.Is(err, store.ErrFull) {
		t.Fatalf("full hold = %v, want write 1 ErrFull", err)
	}
	if _, err := s.GetReservation(ctx, "RIV-2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("reservation of a refused hold = %v, want ErrNotFound", err)
	}
	// Cancelling swaps the row and releases its hold together.
	cur, _ := s.GetReservation(ctx, "RIV-1")
	cur.State = "cancelled"
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &cur}, {Op: store.OpRelease, Hold: &store.Hold{ID: "RIV-1", At: at()}}}); err != nil {
		t.Fatal(err)
	}
	counts, err := s.Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
	if err != nil || len(counts) != 0 {
		t.Fatalf("counts after cancel = %v, %v", counts, err)
	}
}

func testListReservationsFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	createRes(t, s,
		resRow("A-1", "riverside", "2026-12-01", "2026-12-02", "reserved", "chat", "k1"),
		resRow("A-2", "riverside", "2026-12-03", "2026-12-05", "confirmed", "chat", "k2"),
		resRow("A-3", "riverside", "2026-12-06", "2026-12-06", "cancelled", "form", "k1"),
		resRow("B-1", "oldtown", "2026-12-02", "2026-12-04", "reserved", "usp:acme", "k1"),
		resRow("C-1", "airport", "2026-12-04T10:00", "2026-12-04T10:00", "reserved", "usp:acme", "k3"),
	)
	tests := []struct {
		name string
		f    store.ReservationFilter
		want []string
	}{
		{"all", store.ReservationFilter{}, []string{"A-1", "B-1", "A-2", "C-1", "A-3"}},
		{"location", store.ReservationFilter{Location: "riverside"}, []string{"A-1", "A-2", "A-3"}},
		{"dates overlap", store.ReservationFilter{From: "2026-12-02", To: "2026-12-04"}, []string{"A-1", "B-1", "A-2"}},
		{"one day of timed slots", store.ReservationFilter{From: "2026-12-04", To: "2026-12-05"}, []string{"B-1", "A-2", "C-1"}},
		{"location and dates", store.ReservationFilter{Location: "riverside", From: "2026-12-05", To: "2026-12-07"}, []string{"A-2", "A-3"}},
		{"states", store.ReservationFilter{States: []string{"reserved", "cancelled"}}, []string{"A-1", "B-1", "C-1", "A-3"}},
		{"source", store.ReservationFilter{Source: "usp:acme"}, []string{"B-1", "C-1"}},
		{"contact", store.ReservationFilter{ContactKey: "k1"}, []string{"A-1", "B-1", "A-3"}},
		{"contact and state", store.ReservationFilter{ContactKey: "k1", States: []string{"reserved"}}, []string{"A-1", "B-1"}},
		{"nothing", store.ReservationFilter{Location: "nowhere"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.Limit = 100
			got, err := s.ListReservations(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(refsOf(got), tt.want) {
				t.Fatalf("ListReservations = %v, want %v", refsOf(got), tt.want)
			}
		})
	}
	for _, limit := range []int{0, 1001} {
		if _, err := s.ListReservations(ctx, store.ReservationFilter{Limit: limit}); err == nil {
			t.Fatalf("limit %d accepted", limit)
		}
	}
}

// Pages follow the cursor without skipping or repeating a row, also when
// several rows share a first slot.
func testListReservationsPages(t *testing.T, s store.Store) {
	ctx := context.Background()
	var rows []store.Reservation
	var want []string
	for i := range 23 {
		ref := fmt.Sprintf("R-%02d", i)
		rows = append(rows, resRow(ref, "riverside", fmt.Sprintf("2026-12-%02d", 1+i/4), "2026-12-28", "reserved", "chat", "k"))
		want = append(want, ref)
	}
	createRes(t, s, rows...)
	var got []string
	f := store.ReservationFilter{Location: "riverside", Limit: 5}
	for {
		page, err := s.ListReservations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, refsOf(page)...)
		f.After = page[len(page)-1].Cursor()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages = %v, want %v", got, want)
	}
}

// Parallel swaps of one reservation at one version: exactly one wins.
func testConcurrentReservationSwaps(t *testing.T, s store.Store) {
	ctx := context.Background()
	createRes(t, s, resRow("RIV-1", "riverside", "2026-12-01", "2026-12-01", "reserved", "chat", "k"))
	cur, err := s.GetReservation(ctx, "RIV-1")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 8 {
		wg.Go(func() {
			next := cur
			next.State = fmt.Sprintf("s%d", i)
			_, err := s.Apply(ctx, []store.Write{{Op: store.OpSwapReservation, Reservation: &next}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("swap: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d swaps won, want 1", wins)
	}
}

// Holds pages through the index's holds in ID order.
func testHoldsPages(t *testing.T, s store.Store) {
	ctx := context.Background()
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("H-%02d", i)
		want = append(want, id)
		if err := s.Hold(ctx, store.Hold{ID: id, Location: "riverside", Unit: "single", Slots: []string{fmt.Sprintf("2026-12-%02d", i+1)}, Units: 1, Capacity: 3, At: at()}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	after := ""
	for {
		page, err := s.Holds(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, h := range page {
			if h.Location != "riverside" || h.Unit != "single" || h.Units != 1 || !h.At.Equal(at()) || h.At.Location().String() != "UTC" {
				t.Fatalf("hold = %+v", h)
			}
			got = append(got, h.ID)
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(got, want) {
		t.Fatalf("holds = %v, want %v", got, want)
	}
	if _, err := s.Holds(ctx, "", 0); err == nil {
		t.Fatal("limit 0 accepted")
	}
}

// An engine shared by processes lets one session hold a named lock.
func testTryLock(t *testing.T, s store.Store) {
	l := s.(store.Locker)
	ctx := context.Background()
	name := fmt.Sprintf("storetest-%p", s)
	release, got, err := l.TryLock(ctx, name)
	if err != nil || !got {
		t.Fatalf("first TryLock = %v, %v", got, err)
	}
	if _, again, err := l.TryLock(ctx, name); err != nil || again {
		t.Fatalf("second TryLock while held = %v, %v", again, err)
	}
	release()
	release2, got, err := l.TryLock(ctx, name)
	if err != nil || !got {
		t.Fatalf("TryLock after release = %v, %v", got, err)
	}
	release2()
}
