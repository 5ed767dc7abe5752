package quota

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

func engines(t *testing.T, test func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st)
	})
}

// TestParallelClaimsHoldTheBudget: forty claims at once get exactly the
// budget, the rest are told when the window ends, the next window starts
// afresh, and Purge removes only ended windows.
func TestParallelClaimsHoldTheBudget(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		b := Budget{Kind: "test.quota", Limit: 7, Window: time.Hour}
		now := time.Date(2026, 11, 30, 17, 20, 0, 0, time.UTC)
		var granted, spent atomic.Int32
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				err := b.Claim(ctx, st, "addr/192.0.2.1", now)
				var e *ErrSpent
				switch {
				case err == nil:
					granted.Add(1)
				case errors.As(err, &e) && e.Until.Equal(time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)):
					spent.Add(1)
				default:
					t.Errorf("Claim = %v", err)
				}
			})
		}
		wg.Wait()
		if granted.Load() != 7 || spent.Load() != 33 {
			t.Fatalf("granted %d and refused %d, want 7 and 33", granted.Load(), spent.Load())
		}
		if err := b.Claim(ctx, st, "addr/192.0.2.2", now); err != nil {
			t.Fatalf("another key shares the budget: %v", err)
		}
		later := now.Add(time.Hour)
		if err := b.Claim(ctx, st, "addr/192.0.2.1", later); err != nil {
			t.Fatalf("the next window: %v", err)
		}
		n, err := b.Purge(ctx, st, later.Add(time.Minute))
		if err != nil || n != 1 {
			t.Fatalf("Purge = %d, %v; want the 1 counter idle in this window", n, err)
		}
		if err := b.Claim(ctx, st, "addr/192.0.2.1", later); err != nil {
			t.Fatalf("the current window was purged: %v", err)
		}
	})
}

// TestWindowSlides: a sliding window counts the uses of the last Span,
// exactly to the nanosecond, gives back a known unused one, and lists
// the instants of the uses that count.
func TestWindowSlides(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w := Window{Limit: 3, Span: time.Hour}
		t0 := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
		for _, at := range []time.Time{t0, t0.Add(10 * time.Minute), t0.Add(20 * time.Minute)} {
			if _, err := st.Apply(ctx, []store.Write{w.Take("w", at)}); err != nil {
				t.Fatalf("take at %v: %v", at, err)
			}
		}
		full := t0.Add(30 * time.Minute)
		if _, err := st.Apply(ctx, []store.Write{w.Take("w", full)}); !errors.Is(err, store.ErrFull) {
			t.Fatalf("fourth take in the hour = %v, want ErrFull", err)
		}
		times, err := w.Times(ctx, st, "w", full)
		if err != nil || len(times) != 3 || !times[0].Equal(t0) || !times[2].Equal(t0.Add(20*time.Minute)) {
			t.Fatalf("Times = %v, %v; want the three uses from %v", times, err, t0)
		}
		// At exactly an hour after the first use it no longer counts.
		if _, err := st.Apply(ctx, []store.Write{w.Take("w", t0.Add(time.Hour-time.Nanosecond))}); !errors.Is(err, store.ErrFull) {
			t.Fatalf("take a nanosecond before the hour = %v, want ErrFull", err)
		}
		if _, err := st.Apply(ctx, []store.Write{w.Take("w", t0.Add(time.Hour))}); err != nil {
			t.Fatalf("take at the hour: %v", err)
		}
		now := t0.Add(time.Hour + time.Minute)
		if _, err := st.Apply(ctx, []store.Write{w.GiveBack("w", t0.Add(time.Hour), now)}); err != nil {
			t.Fatalf("give back: %v", err)
		}
		if n, err := w.Used(ctx, st, "w", now); err != nil || n != 2 {
			t.Fatalf("Used after a give-back = %d, %v; want 2", n, err)
		}
	})
}

// TestParallelWindowTakes: thirty takes at once of a window of eight
// admit exactly eight.
func TestParallelWindowTakes(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w := Window{Limit: 8, Span: time.Hour}
		now := time.Date(2026, 11, 30, 17, 20, 0, 0, time.UTC)
		var granted atomic.Int32
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				_, err := st.Apply(ctx, []store.Write{w.Take("group", now.Add(time.Duration(i)*time.Second))})
				switch {
				case err == nil:
					granted.Add(1)
				case !errors.Is(err, store.ErrFull):
					t.Errorf("take: %v", err)
				}
			})
		}
		wg.Wait()
		if granted.Load() != 8 {
			t.Fatalf("granted %d, want 8", granted.Load())
		}
	})
}

// TestLeaseCountsUntilItsEnd: a use counts until its own end or until it
// is given back, and a give-back after its end changes nothing.
func TestLeaseCountsUntilItsEnd(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := Lease{Limit: 2}
		now := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
		soon, later := now.Add(24*time.Hour), now.Add(72*time.Hour)
		for _, until := range []time.Time{soon, later} {
			if _, err := st.Apply(ctx, []store.Write{l.Take("p", until, now)}); err != nil {
				t.Fatalf("take: %v", err)
			}
		}
		if _, err := st.Apply(ctx, []store.Write{l.Take("p", later, now)}); !errors.Is(err, store.ErrFull) {
			t.Fatalf("third take = %v, want ErrFull", err)
		}
		if n, err := Used(ctx, st, "p", soon); err != nil || n != 1 {
			t.Fatalf("Used at the first end = %d, %v; want 1", n, err)
		}
		if _, err := st.Apply(ctx, []store.Write{l.GiveBack("p", soon, soon), l.GiveBack("p", later, soon)}); err != nil {
			t.Fatalf("give back: %v", err)
		}
		if n, err := Used(ctx, st, "p", soon); err != nil || n != 0 {
			t.Fatalf("Used after the give-backs = %d, %v; want 0", n, err)
		}
	})
}
