package usp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"frontdesk/internal/civil"
	"frontdesk/inventory"
)

// The rendered slots are kept per service and day, but free places are
// read every time: a hold taken after a query shows in the next one, for
// an appointment (the slot goes) and for rooms (one place fewer), and an
// answer in another zone is not the cached one.
func TestCachedSlotsFollowTheInventory(t *testing.T) {
	f := demo(t)
	ctx := context.Background()
	airport := location(f.cfg, "airport")
	riverside := location(f.cfg, "riverside")
	shuttle, _ := airport.Unit("shuttle")
	single, _ := riverside.Unit("single")
	day, _ := civil.Parse("2026-03-10")
	shuttleDay := QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-10", EndDate: "2026-03-10"}
	roomDay := QueryRequest{ServiceID: "svc_riverside_single", StartDate: "2026-03-10", EndDate: "2026-03-10"}

	before := query(t, f.b, shuttleDay)
	rooms := query(t, f.b, roomDay)
	if len(before.Slots) != 16 || len(rooms.Slots) != 1 || rooms.Slots[0].Capacity.Remaining != 3 {
		t.Fatalf("before any hold: %d shuttle slots, rooms %+v", len(before.Slots), rooms.Slots)
	}
	if err := f.holder.Hold(ctx, "h1", airport, shuttle, []string{"2026-03-10T09:00"}, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := f.holder.Hold(ctx, "h2", riverside, single, inventory.Nights(day, 1), f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	after := query(t, f.b, shuttleDay)
	want := slices.DeleteFunc(slices.Clone(before.Slots), func(s Slot) bool { return s.Start == "2026-03-10T09:00:00-06:00" })
	if len(want) != 15 || !slices.EqualFunc(after.Slots, want, func(a, b Slot) bool { return a.ID == b.ID && a.Start == b.Start && a.End == b.End }) {
		t.Fatalf("after a hold at 09:00: %d slots, want the 15 others", len(after.Slots))
	}
	rooms = query(t, f.b, roomDay)
	if len(rooms.Slots) != 1 || rooms.Slots[0].Capacity.Remaining != 2 {
		t.Fatalf("after one room held: %+v, want 2 remaining", rooms.Slots)
	}
	shuttleDay.Timezone = "America/New_York"
	east := query(t, f.b, shuttleDay)
	if len(east.Slots) != 15 || east.Slots[0].Start != "2026-03-10T08:00:00-04:00" {
		t.Fatalf("in New York: %d slots from %s", len(east.Slots), east.Slots[0].Start)
	}
}

// Queries share the cache from many goroutines (run with -race): every
// answer is the one a lone query gives.
func TestCachedSlotsUnderConcurrentQueries(t *testing.T) {
	f := demo(t)
	in := QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-15", Limit: limit(500)}
	answer, _ := json.Marshal(query(t, f.b, in))
	fresh := demo(t) // an empty cache, filled by the goroutines below
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			res, err := fresh.b.QueryAvailability(context.Background(), Call{}, in)
			if err == nil {
				b, _ := json.Marshal(res)
				got[i] = string(b)
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != string(answer) {
			t.Fatalf("answer %d differs from a lone query's", i)
		}
	}
}
