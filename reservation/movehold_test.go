package reservation

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestMoveHold moves a hold to other nights in one transaction, keeping
// it a hold with its new expiry and announcing the move; a move onto a
// full night changes nothing; only a hold moves this way.
func TestMoveHold(t *testing.T) {
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, open(t))
			h := f.must(KindHold)
			later := []string{"2026-12-02", "2026-12-03"}
			expires := now.Add(72 * time.Hour)
			moved, err := f.desk.MoveHold(ctx, Reschedule{Change: Change{Read: h, By: "channel", At: now, Unit: double}, Slots: later}, expires)
			if err != nil {
				t.Fatal(err)
			}
			stored := f.get(h.Reference)
			if stored.State != OnHold || !stored.Held || !slices.Equal(stored.Slots, later) || !stored.HoldExpires.Equal(expires) || moved.Version != h.Version+1 {
				t.Fatalf("moved hold = %+v", stored)
			}
			if got := f.held(); got != 0 {
				t.Fatalf("the first night still holds %d", got)
			}
			if last := f.events[len(f.events)-1]; last.Change != ChangeRescheduled || last.Reservation.Reference != h.Reference {
				t.Fatalf("last event = %+v", last)
			}
			// Both doubles taken on the 4th: a move over it is refused whole.
			for range 2 {
				if _, err := f.createOn(KindBooking, "2026-12-04"); err != nil {
					t.Fatal(err)
				}
			}
			_, err = f.desk.MoveHold(ctx, Reschedule{Change: Change{Read: stored, By: "channel", At: now, Unit: double}, Slots: []string{"2026-12-03", "2026-12-04"}}, expires)
			if ErrorCode(err) != CodeUnitTaken {
				t.Fatalf("move onto a full night = %v", err)
			}
			if again := f.get(h.Reference); !slices.Equal(again.Slots, later) || again.Version != stored.Version {
				t.Fatalf("a refused move changed the hold: %+v", again)
			}
			booking := f.must(KindBooking)
			if _, err := f.desk.MoveHold(ctx, Reschedule{Change: Change{Read: booking, At: now, Unit: double}, Slots: later}, expires); ErrorCode(err) != CodeIllegalTransition {
				t.Fatalf("MoveHold of a booking = %v, want illegal", err)
			}
		})
	}
}
