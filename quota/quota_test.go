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
		if err != nil || n != 2 {
			t.Fatalf("Purge = %d, %v; want the 2 ended windows", n, err)
		}
		if err := b.Claim(ctx, st, "addr/192.0.2.1", later); err != nil {
			t.Fatalf("the current window was purged: %v", err)
		}
	})
}
