package inventory_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/inventory/inventorytest"
	"frontdesk/sqlite"
	"frontdesk/store"
)

var now = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// testInv is the inventory with a holder on its index, for the holds the
// tests take by hand.
type testInv struct {
	*inventory.Inventory
	inventorytest.Holder
}

func setup(t *testing.T) (testInv, business.Location) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "inv.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, l := range config.Demo().Locations {
		if l.Slug == "riverside" {
			return testInv{inventory.New(db), inventorytest.Holder{Index: db}}, l
		}
	}
	t.Fatal("no riverside")
	return testInv{}, business.Location{}
}

func free(t *testing.T, inv testInv, l business.Location, in civil.Date, nights int) string {
	t.Helper()
	got, err := inv.FreeNights(context.Background(), l, in, nights)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, f := range got {
		parts = append(parts, f.Unit.Type+"="+string(rune('0'+f.Free)))
	}
	return strings.Join(parts, " ")
}

func TestHoldCountsAgainstEveryNightOfTheStay(t *testing.T) {
	inv, l := setup(t)
	ctx := context.Background()
	in, _ := civil.Parse("2026-12-10")
	double, _ := l.Unit("double")
	if got := free(t, inv, l, in, 3); got != "single=3 double=2 studio=1" {
		t.Fatalf("empty = %s", got)
	}
	if err := inv.Hold(ctx, "h1", l, double, inventory.Nights(in.AddDays(2), 2), now); err != nil {
		t.Fatal(err)
	}
	// The hold covers the 12th and 13th: a stay of the 10th to 13th meets
	// it on its last night; a stay of the 10th to 12th does not.
	if got := free(t, inv, l, in, 3); got != "single=3 double=1 studio=1" {
		t.Fatalf("overlapping = %s", got)
	}
	if got := free(t, inv, l, in, 2); got != "single=3 double=2 studio=1" {
		t.Fatalf("before = %s", got)
	}
	if err := inv.Hold(ctx, "h2", l, double, inventory.Nights(in, 4), now); err != nil {
		t.Fatal(err)
	}
	// Both doubles are now held on the 12th: a third hold over it is
	// refused whole, even for nights that had room.
	err := inv.Hold(ctx, "h3", l, double, inventory.Nights(in.AddDays(1), 2), now)
	if !errors.Is(err, inventory.ErrTaken) {
		t.Fatalf("third hold = %v, want ErrTaken", err)
	}
	if got := free(t, inv, l, in.AddDays(1), 1); got != "single=3 double=1 studio=1" {
		t.Fatalf("refused hold changed the 11th: %s", got)
	}
	if err := inv.Release(ctx, "h2", now); err != nil {
		t.Fatal(err)
	}
	if got := free(t, inv, l, in, 3); got != "single=3 double=1 studio=1" {
		t.Fatalf("after release = %s", got)
	}
	if err := inv.Hold(ctx, "h1", l, double, inventory.Nights(in, 1), now); !errors.Is(err, store.ErrExists) {
		t.Fatalf("repeated hold id = %v, want ErrExists", err)
	}
}

// TestLastRoomGoesToOneCaller races callers for the single studio: one
// wins, the rest are told it is taken.
func TestLastRoomGoesToOneCaller(t *testing.T) {
	inv, l := setup(t)
	studio, _ := l.Unit("studio")
	in, _ := civil.Parse("2026-12-10")
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, taken := 0, 0
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := inv.Hold(context.Background(), "race-"+string(rune('a'+i)), l, studio, inventory.Nights(in, 7), now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, inventory.ErrTaken):
				taken++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || taken != 9 {
		t.Fatalf("won %d, taken %d; want 1 and 9", won, taken)
	}
}

func TestTimedSlots(t *testing.T) {
	shuttle := business.Unit{Type: "shuttle", Kind: business.KindTimed, Count: 2, DurationMinutes: 90, Opens: "06:00", Closes: "11:00"}
	day, _ := civil.Parse("2026-12-10")
	got := strings.Join(inventory.TimedSlots(shuttle, day), " ")
	if want := "2026-12-10T06:00 2026-12-10T07:30 2026-12-10T09:00"; got != want {
		t.Fatalf("slots = %s, want %s", got, want)
	}
	inv, l := setup(t)
	ctx := context.Background()
	if err := inv.Hold(ctx, "s1", l, shuttle, []string{"2026-12-10T07:30"}, now); err != nil {
		t.Fatal(err)
	}
	slots, err := inv.FreeSlots(ctx, l, shuttle, day)
	if err != nil {
		t.Fatal(err)
	}
	var perSlot []int
	for _, s := range slots {
		perSlot = append(perSlot, s.Free)
	}
	if len(perSlot) != 3 || perSlot[0] != 2 || perSlot[1] != 1 || perSlot[2] != 2 {
		t.Fatalf("free per slot = %v, want [2 1 2]", perSlot)
	}
	// A timed slot never reads as a night of a room stay.
	if got := free(t, inv, l, day, 1); got != "single=3 double=2 studio=1" {
		t.Fatalf("nights after a timed hold = %s", got)
	}
}

// TestStartAt: a start is on the unit's grid, inside its hours, and at a
// local time that exists; a time that occurs twice is its first instant.
func TestStartAt(t *testing.T) {
	denver, err := time.LoadLocation("America/Denver")
	if err != nil {
		t.Fatal(err)
	}
	u := business.Unit{Type: "van", Kind: business.KindTimed, Count: 1, DurationMinutes: 60, Opens: "00:00", Closes: "23:00"}
	tests := []struct {
		name, slot string
		want       time.Time // zero: refused
	}{
		{"on the grid", "2026-12-02T06:00", time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)},
		{"off the grid", "2026-12-02T06:30", time.Time{}},
		{"the last start", "2026-12-02T22:00", time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC)},
		{"after closing", "2026-12-02T23:00", time.Time{}},
		{"not a date", "2026-02-30T06:00", time.Time{}},
		{"no clock", "2026-12-02", time.Time{}},
		{"skipped by the spring change", "2027-03-14T02:00", time.Time{}},
		{"after the spring change", "2027-03-14T03:00", time.Date(2027, 3, 14, 9, 0, 0, 0, time.UTC)},
		{"twice in the autumn change", "2026-11-01T01:00", time.Date(2026, 11, 1, 7, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := inventory.StartAt(u, tt.slot, denver)
			if ok != !tt.want.IsZero() || ok && (!st.At.Equal(tt.want) || st.Slot != tt.slot) {
				t.Fatalf("StartAt(%q) = %v %v, want %v", tt.slot, st, ok, tt.want)
			}
		})
	}
}

// TestWindow: a slot can be booked once it is ahead of now and no
// further ahead than the advance window.
func TestWindow(t *testing.T) {
	tests := []struct {
		name  string
		start time.Time
		want  error
	}{
		{"ahead", now.Add(time.Minute), nil},
		{"now", now, inventory.ErrStarted},
		{"past", now.Add(-time.Hour), inventory.ErrStarted},
		{"the window's last day", now.AddDate(0, 0, 10), nil},
		{"beyond the window", now.AddDate(0, 0, 11), inventory.ErrTooFarAhead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inventory.Window(tt.start, civil.Of(tt.start, time.UTC), now, time.UTC, 10); got != tt.want {
				t.Fatalf("Window = %v, want %v", got, tt.want)
			}
		})
	}
}
