package main

import (
	"fmt"
	"strings"
	"testing"

	"frontdesk/internal/golden"
	"frontdesk/internal/pgtest"
)

// TestRefusalPlacementThroughTheDoor pins, through the MCP door, where a
// refusal sends the caller (direct-booking.md §12): the unknown-field
// refusal of a known start carries the start's prefilled form; a call
// whose booking_id, cancel_id or reservation number names a location by
// its prefix gets that location's phone, not the business's; and in
// resend mode any other field, known or not, gets the resend sentence.
// Both engines give the same bytes.
func TestRefusalPlacementThroughTheDoor(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { checkRefusalPlacement(t, "") })
	t.Run("postgres", func(t *testing.T) { checkRefusalPlacement(t, pgtest.Schema(t)) })
}

func checkRefusalPlacement(t *testing.T, database string) {
	url := startServer(t, database)
	cs := connect(t, url+"/mcp", "2025-11-25")
	id := func(prefix string) string { return prefix + strings.Repeat("a", 48) }
	stay := func(extra ...any) map[string]any {
		a := map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
			"guest_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 303 555 0199"}
		for i := 0; i < len(extra); i += 2 {
			a[extra[i].(string)] = extra[i+1]
		}
		return a
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"unknown field on a known start", "start_booking", stay("room_type", "double")},
		{"unknown field on a start with no dates", "start_booking", map[string]any{"property": "oldtown", "extra": true}},
		{"resend with an unknown field", "start_booking", map[string]any{"booking_id": id("OTL_b_"), "extra": "x"}},
		{"resend with a start field", "start_booking", map[string]any{"booking_id": id("APS_b_"), "email": "ada@example.com"}},
		{"resend with a malformed booking_id", "start_booking", map[string]any{"booking_id": "RIV_b_short"}},
		{"resend with no location prefix", "start_booking", map[string]any{"booking_id": "nope"}},
		{"confirm with an unknown field", "confirm_booking", map[string]any{"booking_id": id("OTL_b_"), "code": "123456", "extra": 1}},
		{"confirm with a malformed booking_id", "confirm_booking", map[string]any{"booking_id": "APS_b_short", "code": "123456"}},
		{"lookup with an unknown field", "get_booking", map[string]any{"reservation_number": "OTL-0123456789ABCDEF", "phone_last4": "0199", "extra": 1}},
		{"lookup with a malformed reference", "get_booking", map[string]any{"reservation_number": "aps-12", "phone_last4": "0199"}},
		{"cancel with an unknown field", "cancel_booking", map[string]any{"cancel_id": id("APS_c_"), "code": "123456", "extra": 1}},
		{"cancel mixing modes", "cancel_booking", map[string]any{"cancel_id": id("OTL_c_"), "phone_last4": "0199"}},
		{"cancel with a malformed cancel_id", "cancel_booking", map[string]any{"cancel_id": "OTL_c_short", "code": "123456"}},
		{"cancel with a malformed reference", "cancel_booking", map[string]any{"reservation_number": "RIV-1", "phone_last4": "0199"}},
	}
	var b strings.Builder
	for _, tc := range cases {
		res, _ := callTool(t, cs, tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s: %s was not refused", tc.name, tc.tool)
		}
		// The port is free-chosen; the golden file names the origin.
		fmt.Fprintf(&b, "== %s\n%s\n", tc.name, strings.ReplaceAll(text(res), url, "{{ORIGIN}}"))
	}
	golden.Check(t, "booking-placement.txt", []byte(b.String()))
}
