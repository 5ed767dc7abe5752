package main

import (
	"strings"
	"testing"
)

// TestStaffCommands books through the running server, then confirms and
// lists the reservation with `frontdesk staff` on the same store.
func TestStaffCommands(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, out := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "double",
		"checkin": "2026-12-30", "checkout": "2027-01-02", "guest_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 303 555 0199"})
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	res, out = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, m.URL, "ada@example.com")})
	if res.IsError {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	ref := out["reservation_number"].(string)
	data := m.Config.Store.DataDir

	list, _, err := runCmdAtTestNow(t, "staff", "list", "--data", data, "--location", "riverside", "--state", "reserved", "--from", "2026-12-01", "--to", "2027-01-01")
	if err != nil || !strings.Contains(list, ref+"  riverside  double  2026-12-30  2027-01-02  3       reserved  chat") {
		t.Fatalf("staff list = %q, %v", list, err)
	}
	got, _, err := runCmdAtTestNow(t, "staff", "confirm", strings.ToLower(ref), "--data", data, "--by", "ann")
	if err != nil || got != ref+" is confirmed; the guest was mailed\n" {
		t.Fatalf("staff confirm = %q, %v", got, err)
	}
	if _, _, err := runCmdAtTestNow(t, "staff", "decline", ref, "--data", data); err == nil || !strings.Contains(err.Error(), "cannot move from confirmed to declined") {
		t.Fatalf("declining a confirmed reservation = %v", err)
	}
	res, out = callTool(t, cs, "get_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
	if res.IsError || out["status"] != "confirmed" {
		t.Fatalf("get_booking after staff confirm: %s", text(res))
	}
	for _, bad := range [][]string{
		{"staff"}, {"staff", "approve", ref}, {"staff", "confirm"}, {"staff", "list", "--state", "pending"},
		{"staff", "list", "--from", "tomorrow"}, {"staff", "list", "--location"},
	} {
		if _, _, err := runCmdAtTestNow(t, append(bad, "--data", data)...); err == nil && len(bad) > 1 {
			t.Errorf("%v accepted", bad)
		}
	}
	list, _, _ = runCmdAtTestNow(t, "staff", "list", "--data", data, "--state", "confirmed")
	if !strings.Contains(list, ref) {
		t.Fatalf("list of confirmed = %q", list)
	}
}
