package usp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/usp/usptest"
)

// TestPurgeWaitlist: the USP sweep deletes an entry that ended more than
// a week ago, with its buyer, and keeps one that ended within the week
// and one still waiting however old, on both engines.
func TestPurgeWaitlist(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			clk := clock.NewFixed(usptest.Now)
			w := waitBenchOn(t, engine, clk)
			ctx := context.Background()
			slot := w.slot(t, "svc_airport_shuttle", "2026-03-02")
			w.restDo(t, "POST", "/bookings", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot.ID), 201)
			join := func(first string) string {
				return w.tool(t, "usp_waitlist_join", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot.ID, "buyer": buyerArgs(first)})["entry"].(map[string]any)["id"].(string)
			}
			left, waiting := join("Dan"), join("Erin")
			w.restDo(t, "DELETE", "/waitlist/"+left, "", "", 200)

			purge := func() int {
				t.Helper()
				n, err := w.PurgeWaitlist(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			clk.Advance(7*24*time.Hour - time.Minute)
			if n := purge(); n != 0 {
				t.Fatalf("purged %d within the week, want 0", n)
			}
			w.restDo(t, "GET", "/waitlist/"+left, "", "", 200)
			clk.Advance(2 * time.Minute)
			if n := purge(); n != 1 {
				t.Fatalf("purged %d after the week, want 1", n)
			}
			w.restDo(t, "GET", "/waitlist/"+left, "", "", 404)
			if got := w.restDo(t, "GET", "/waitlist/"+waiting, "", "", 200)["entry"].(map[string]any); got["status"] != "waiting" || got["position"] != 1.0 {
				t.Fatalf("the waiting entry after the purge = %v, want waiting first in line", got)
			}
			if n := purge(); n != 0 {
				t.Fatalf("a second purge took %d, want 0", n)
			}
		})
	}
}
