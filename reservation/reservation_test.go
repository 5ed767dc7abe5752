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
		{Reserved, Confirmed}: true, {Reserved, Declined}: true, {Reserved, Cancelled}: true, {Reserved, Completed}: true, {Reserved, Moved}: true, {Reserved, Requested}: true,
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
	key, claimWrite := Claim("chat/riverside", 3, now.Add(72*time.Hour), now)
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

// TestClaimCeiling fills the ceiling, refuses one more, and admits one
// once a claimed stay has ended.
func TestClaimCeiling(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for i := range 3 {
		until := now.Add(time.Hour)
		if i == 0 {
			until = now.Add(time.Minute)
		}
		_, w := Claim("s", 3, until, now)
		if _, err := st.Apply(ctx, []store.Write{w}); err != nil {
			t.Fatal(err)
		}
	}
	_, w := Claim("s", 3, now.Add(time.Hour), now)
	if _, err := st.Apply(ctx, []store.Write{w}); !errors.Is(err, store.ErrFull) {
		t.Fatalf("fourth claim = %v, want ErrFull", err)
	}
	later := now.Add(2 * time.Minute)
	_, w = Claim("s", 3, later.Add(time.Hour), later)
	if _, err := st.Apply(ctx, []store.Write{w}); err != nil {
		t.Fatalf("claim after a stay ended: %v", err)
	}
	if n, _ := Live(ctx, st, "s", later); n != 3 {
		t.Fatalf("live = %d, want 3", n)
	}
}

// TestRecordClaimStillReleased: a claim made as a record, before the
// ceilings were counters, is deleted by the desk's change that ends its
// reservation's pending state.
func TestRecordClaimStillReleased(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r := Reservation{Reference: "RIV-2", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01"},
		Source: SourceChat, State: Reserved, CreatedAt: now, Claims: []string{"chat/riverside/0000"}}
	claimed := store.Record{Kind: kindClaim, Key: "chat/riverside/0000", Value: []byte(`{"ref":"RIV-2","until":"2026-12-02T00:00:00Z"}`), UpdatedAt: now}
	if _, err := st.Apply(ctx, []store.Write{Create(r, now), {Op: store.OpCreate, Record: claimed}}); err != nil {
		t.Fatal(err)
	}
	cur, err := Get(ctx, st, "RIV-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDesk(st).Cancel(ctx, Change{Read: cur, By: "guest", At: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, kindClaim, "chat/riverside/0000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("record claim after the move: %v, want ErrNotFound", err)
	}
}
