package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
)

// TestForgetAndSweepCoverTheWaitlist: a USP waitlist entry names its
// buyer. `frontdesk forget` refuses while the buyer is still in line and
// changes nothing, deletes the entry (and the webhook events that carry
// it) once it ended, and `frontdesk sweep` deletes an entry a week after
// it ended.
func TestForgetAndSweepCoverTheWaitlist(t *testing.T) {
	m, platform := startUSPDemo(t, "")
	platform["USP-Agent"] = strings.Replace(platform["USP-Agent"], "/demo-platform.json", "/demo-waitlist.json", 1)
	data := m.Config.Store.DataDir
	const slot = "slot_airport_shuttle_20261228T1300Z"
	if status, _, body := post(t, m.URL+"/usp/bookings", platform, `{"service_id":"svc_airport_shuttle","slot_id":"`+slot+`",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`); status != 201 {
		t.Fatalf("booking = %d %s", status, body)
	}
	join := func(first, email string) string {
		t.Helper()
		status, _, body := post(t, m.URL+"/usp/waitlist", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
			"buyer":{"first_name":%q,"last_name":"Waits","email":%q}}`, slot, first, email))
		if status != 201 {
			t.Fatalf("join = %d %s", status, body)
		}
		return decodeJSON(t, body)["entry"].(map[string]any)["id"].(string)
	}
	leave := func(id string) {
		t.Helper()
		if status, _, body := send(t, "DELETE", m.URL+"/usp/waitlist/"+id, platform, nil); status != 200 {
			t.Fatalf("leave = %d %s", status, body)
		}
	}
	dan, bea := join("Dan", "dan@example.com"), join("Bea", "bea@example.com")

	// The running server's own passes (the sweep, the outbox) change
	// records of their own meanwhile; what must not change is every
	// record naming the guest.
	naming := func(email string) map[string]string {
		rows := storeRows(t, data)
		for k, v := range rows {
			if !strings.Contains(v, email) {
				delete(rows, k)
			}
		}
		return rows
	}
	before := naming("dan@example.com")
	if len(before) == 0 {
		t.Fatal("no record names the buyer in line")
	}
	_, _, err := runCmdAtTestNow(t, "forget", "--data", data, "--email", "dan@example.com")
	if err == nil || !strings.Contains(err.Error(), "still on a USP waitlist ("+dan+")") {
		t.Fatalf("forget of a buyer in line = %v, want a refusal naming %s", err, dan)
	}
	if !equalRows(before, naming("dan@example.com")) {
		t.Fatal("a refused forget changed the records naming the guest")
	}
	leave(dan)
	out, _, err := runCmdAtTestNow(t, "forget", "--data", data, "--email", "dan@example.com")
	if err != nil || !strings.Contains(out, "usp-waitlist: 1 removed") {
		t.Fatalf("forget after leaving = %q, %v", out, err)
	}
	for k, v := range storeRows(t, data) {
		if strings.Contains(v, "dan@example.com") {
			t.Errorf("%s still names dan@example.com", k)
		}
	}

	leave(bea)
	sweep := func(after time.Duration) string {
		t.Helper()
		out, _, err := runCmdOn(t, clock.NewFixed(testNow.Add(after)), "sweep", "--data", data)
		if err != nil {
			t.Fatalf("sweep = %q, %v", out, err)
		}
		return out
	}
	if out := sweep(6 * 24 * time.Hour); !strings.Contains(out, "waitlist_purged=0") {
		t.Fatalf("sweep within the week = %q, want waitlist_purged=0", out)
	}
	if out := sweep(8 * 24 * time.Hour); !strings.Contains(out, "waitlist_purged=1") {
		t.Fatalf("sweep after the week = %q, want waitlist_purged=1", out)
	}
	for k := range naming("bea@example.com") {
		if strings.HasPrefix(k, "record usp-waitlist ") {
			t.Errorf("%s is kept after the sweep", k)
		}
	}
}
