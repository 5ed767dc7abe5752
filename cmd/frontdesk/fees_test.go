package main

import (
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
)

// withDoubleFees gives Riverside's double a taxable cleaning fee per stay
// and an untaxed linen fee per guest.
func withDoubleFees(c *config.Config) {
	l := &c.Locations[0]
	l.Units = append([]business.Unit(nil), l.Units...)
	for i := range l.Units {
		if l.Units[i].Type == "double" {
			l.Units[i].Fees = []business.Fee{
				{Name: "Cleaning fee", Amount: "35.00", Per: business.FeePerStay, Taxable: true},
				{Name: "Linen fee", Amount: "5.00", Per: business.FeePerGuest},
			}
		}
	}
}

// TestFeesAreInEveryTotal runs the server with fees on Riverside's
// double: the form and the search price them as lines of their own and
// into the total; chat's quote_stay, whose answer has no place for fees,
// and start_booking send the guest to the form and the phone instead of
// a different figure; a double without them still quotes in chat.
func TestFeesAreInEveryTotal(t *testing.T) {
	m := startMain(t, "", withDoubleFees)
	// 3 nights × 119.00 + 35.00 + 2 × 5.00 = 402.00; tax on 392.00 = 42.14
	const total = "$444.14"
	for _, path := range []string{
		"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02&guests=2",
		"/search?checkin=2026-12-30&checkout=2027-01-02&guests=2",
	} {
		status, _, body := get(t, m.URL+path, "", nil)
		if status != 200 || !strings.Contains(body, "Cleaning fee") || !strings.Contains(body, "Linen fee, 2 guests × $5.00") || !strings.Contains(body, total) {
			t.Errorf("GET %s = %d without the fee lines and %s", path, status, total)
		}
	}

	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	stay := map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02"}
	res, _ := callTool(t, cs, "quote_stay", stay)
	if got := text(res); !res.IsError || !strings.HasPrefix(got, "No quote: this room has fees\n") || !strings.Contains(got, "/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02") || strings.Contains(got, "$") {
		t.Errorf("quote_stay of a double with fees = %q", got)
	}
	start := map[string]any{"guest_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 303 555 0199"}
	for k, v := range stay {
		start[k] = v
	}
	res, _ = callTool(t, cs, "start_booking", start)
	if got := text(res); !res.IsError || !strings.Contains(got, "cannot be booked in chat") || !strings.Contains(got, "/book/riverside") {
		t.Errorf("start_booking of a double with fees = %q", got)
	}
	stay["property"] = "oldtown"
	if res, out := callTool(t, cs, "quote_stay", stay); res.IsError || out["total"] != 362.15 {
		t.Errorf("quote_stay of a double without fees = %s", text(res))
	}
}
