package reservation

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/sqlite"
	"frontdesk/store"
)

var now = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// TestTransitions checks every pair of states against the state machine;
// the desk's table test checks what each operation writes.
func TestTransitions(t *testing.T) {
	allowed := map[[2]State]bool{
		{Requested, Reserved}: true, {Requested, Confirmed}: true, {Requested, Declined}: true, {Requested, Cancelled}: true,
		{OnHold, Reserved}: true, {OnHold, Confirmed}: true, {OnHold, Cancelled}: true,
		{Reserved, Confirmed}: true, {Reserved, Declined}: true, {Reserved, Cancelled}: true, {Reserved, Completed}: true, {Reserved, Moved}: true,
		{Confirmed, Cancelled}: true, {Confirmed, Completed}: true, {Confirmed, Moved}: true, {Confirmed, NoShow}: true,
	}
	for _, from := range States() {
		for _, to := range States() {
			if got := from.CanMove(to); got != allowed[[2]State{from, to}] {
				t.Errorf("%s→%s allowed = %v", from, to, got)
			}
		}
	}
	for _, s := range []State{Declined, Cancelled, Completed, Moved, NoShow} {
		if !s.Terminal() || s.HoldsUnits() {
			t.Errorf("%s: terminal %v, holds units %v", s, s.Terminal(), s.HoldsUnits())
		}
	}
	if !OnHold.HoldsUnits() || OnHold.Pending() || OnHold.Terminal() {
		t.Error("a hold holds units, awaits no one and ends")
	}
	if State("pending").Valid() || !Reserved.Valid() || !OnHold.Valid() {
		t.Error("Valid is wrong")
	}
}

func openStore(t *testing.T) store.Store {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestCancelReleasesInOneTransaction cancels a held, pending
// reservation through the desk: its row, its units and its claim change
// together, and the same cancel from the version read before is refused
// whole.
func TestCancelReleasesInOneTransaction(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	desk := NewDesk(st)
	key, claimWrite, err := Claim(ctx, st, "chat/riverside", 3, "RIV-1", now.Add(72*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	r, err := desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-1", Unit: Unit{Location: "riverside", Type: "double", Capacity: 1},
		Slots: []string{"2026-12-01", "2026-12-02"}, Source: SourceChat, Claims: []string{key}, ClaimWrites: []store.Write{claimWrite}, At: now})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := Live(ctx, st, "chat/riverside", now); n != 1 {
		t.Fatalf("live claims = %d, want 1", n)
	}
	if _, err := desk.Cancel(ctx, Change{Read: r, By: "guest", At: now}); err != nil {
		t.Fatal(err)
	}
	got, _ := Get(ctx, st, "RIV-1")
	counts, _ := st.Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
	live, _ := Live(ctx, st, "chat/riverside", now)
	if got.State != Cancelled || got.Held || len(got.Claims) != 0 || len(counts) != 0 || live != 0 || got.Version != 2 {
		t.Fatalf("after cancel: %+v, counts %v, live claims %d", got, counts, live)
	}
	if _, err := desk.Cancel(ctx, Change{Read: r, By: "guest", At: now}); ErrorCode(err) != CodeConflict {
		t.Fatalf("a stale cancel applied twice: %v", err)
	}
}

// TestClaimCeiling fills the places, refuses one more, and takes over a
// place whose stay has ended.
func TestClaimCeiling(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for i, ref := range []string{"A", "B", "C"} {
		until := now.Add(time.Hour)
		if i == 0 {
			until = now.Add(time.Minute)
		}
		_, w, err := Claim(ctx, st, "s", 3, ref, until, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Apply(ctx, []store.Write{w}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := Claim(ctx, st, "s", 3, "D", now.Add(time.Hour), now); !errors.Is(err, ErrCeiling) {
		t.Fatalf("fourth claim = %v, want ErrCeiling", err)
	}
	later := now.Add(2 * time.Minute)
	_, w, err := Claim(ctx, st, "s", 3, "D", later.Add(time.Hour), later)
	if err != nil || w.Op != store.OpSwap {
		t.Fatalf("claim after a stay ended = %+v, %v; want a swap of the stale place", w, err)
	}
	if _, err := st.Apply(ctx, []store.Write{w}); err != nil {
		t.Fatal(err)
	}
	if n, _ := Live(ctx, st, "s", later); n != 3 {
		t.Fatalf("live = %d, want 3", n)
	}
}
