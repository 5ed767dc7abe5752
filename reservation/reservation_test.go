package reservation

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"frontdesk/sqlite"
	"frontdesk/store"
)

var now = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// TestTransitions checks every pair of states: the allowed moves succeed
// and the rest are refused with a *TransitionError that changes nothing.
func TestTransitions(t *testing.T) {
	allowed := map[[2]State]bool{
		{Requested, Reserved}: true, {Requested, Confirmed}: true, {Requested, Declined}: true, {Requested, Cancelled}: true,
		{Reserved, Confirmed}: true, {Reserved, Declined}: true, {Reserved, Cancelled}: true, {Reserved, Completed}: true, {Reserved, Moved}: true,
		{Confirmed, Cancelled}: true, {Confirmed, Completed}: true, {Confirmed, Moved}: true, {Confirmed, NoShow}: true,
	}
	for _, from := range States() {
		for _, to := range States() {
			t.Run(string(from)+"→"+string(to), func(t *testing.T) {
				r := Reservation{Reference: "RIV-1", State: from, Held: from.HoldsUnits(), Version: 3, Slots: []string{"2026-12-01"}}
				if from.Pending() {
					r.Claims = []string{"chat/riverside/0000"}
				}
				got, writes, err := Move(r, to, "staff:ann", "", now, map[string]int64{"chat/riverside/0000": 1})
				if !allowed[[2]State{from, to}] {
					var te *TransitionError
					if !errors.As(err, &te) || !errors.Is(err, ErrIllegal) || te.From != from || te.To != to {
						t.Fatalf("Move = %v, want a TransitionError", err)
					}
					if writes != nil || got.State != from || len(got.Audit) != 0 {
						t.Fatalf("refused move changed %+v, writes %v", got, writes)
					}
					return
				}
				if err != nil {
					t.Fatalf("Move = %v", err)
				}
				if got.State != to || len(got.Audit) != 1 || got.Audit[0].By != "staff:ann" || got.Audit[0].What != string(from)+"→"+string(to) {
					t.Fatalf("moved = %+v", got)
				}
				if writes[0].Op != store.OpSwapReservation || writes[0].Reservation.Version != 3 || writes[0].Reservation.State != string(to) {
					t.Fatalf("first write = %+v, want the swap at version 3", writes[0])
				}
				release := slices.ContainsFunc(writes, func(w store.Write) bool { return w.Op == store.OpRelease })
				if want := from.HoldsUnits() && !to.HoldsUnits(); release != want || got.Held != to.HoldsUnits() && from.HoldsUnits() {
					t.Fatalf("release = %v, held = %v; want release %v", release, got.Held, want)
				}
				unclaim := slices.ContainsFunc(writes, func(w store.Write) bool { return w.Op == store.OpDelete })
				if want := from.Pending() && !to.Pending(); unclaim != want {
					t.Fatalf("claims released = %v, want %v", unclaim, want)
				}
			})
		}
	}
	for _, s := range []State{Declined, Cancelled, Completed, Moved, NoShow} {
		if !s.Terminal() || s.HoldsUnits() {
			t.Errorf("%s: terminal %v, holds units %v", s, s.Terminal(), s.HoldsUnits())
		}
	}
	if State("pending").Valid() || !Reserved.Valid() {
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

// TestMoveReleasesInOneApply cancels a held, pending reservation: its
// row, its units and its claim change in the one Apply.
func TestMoveReleasesInOneApply(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r := Reservation{Reference: "RIV-1", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01", "2026-12-02"},
		Source: SourceChat, State: Reserved, Held: true, CreatedAt: now}
	key, claimWrite := Claim("chat/riverside", 3, now.Add(72*time.Hour), now)
	r.Claims = []string{key}
	hold := store.Hold{ID: r.Reference, Location: "riverside", Unit: "double", Slots: r.Slots, Units: 1, Capacity: 1, At: now}
	if _, err := st.Apply(ctx, []store.Write{Create(r, now), {Op: store.OpHold, Hold: &hold}, claimWrite}); err != nil {
		t.Fatal(err)
	}
	if n, _ := Live(ctx, st, "chat/riverside", now); n != 1 {
		t.Fatalf("live claims = %d, want 1", n)
	}
	cur, err := Get(ctx, st, "RIV-1")
	if err != nil {
		t.Fatal(err)
	}
	versions, err := ClaimVersions(ctx, st, cur)
	if err != nil {
		t.Fatal(err)
	}
	_, writes, err := Move(cur, Cancelled, "guest", "", now, versions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, writes); err != nil {
		t.Fatal(err)
	}
	got, _ := Get(ctx, st, "RIV-1")
	counts, _ := st.Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
	live, _ := Live(ctx, st, "chat/riverside", now)
	if got.State != Cancelled || got.Held || len(got.Claims) != 0 || len(counts) != 0 || live != 0 || got.Version != 2 {
		t.Fatalf("after cancel: %+v, counts %v, live claims %d", got, counts, live)
	}
	// The same move again, from the version read before, is refused whole.
	if _, err := st.Apply(ctx, writes); err == nil {
		t.Fatal("a stale move applied twice")
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
// ceilings were counters, is deleted by the move that ends its
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
	versions, err := ClaimVersions(ctx, st, cur)
	if err != nil || versions["chat/riverside/0000"] != 1 {
		t.Fatalf("ClaimVersions = %v, %v; want the record's version 1", versions, err)
	}
	_, writes, err := Move(cur, Cancelled, "guest", "", now, versions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, writes); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, kindClaim, "chat/riverside/0000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("record claim after the move: %v, want ErrNotFound", err)
	}
}
