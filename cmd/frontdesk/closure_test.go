package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
)

// TestCancellationWaitsOutAClosure: on a dated closure of one property,
// chat cancellation there answers with the phone, while a property that
// is open that day cancels as usual.
func TestCancellationWaitsOutAClosure(t *testing.T) {
	t.Parallel()
	m := startMain(t, "", func(c *config.Config) {
		c.Locations[0].Closures = []business.Closure{{From: testNow.In(c.Locations[0].Zone()).Format("2006-01-02"), Reason: "staff training"}}
	})
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	closed := chatBooking(t, m, "riverside", "double", "ada@example.com", "+1 303 555 0199")
	open := chatBooking(t, m, "oldtown", "double", "grace@example.com", "+1 303 555 0199")
	res, _ := callTool(t, cs, "cancel_booking", map[string]any{"reservation_number": closed, "phone_last4": "0199"})
	if want := "To cancel this reservation, call +1 303 555 0111 during office hours. Cancellation cannot be completed in chat right now."; !res.IsError || !strings.HasPrefix(text(res), want) {
		t.Fatalf("cancel during a closure answered %s", text(res))
	}
	res, out := callTool(t, cs, "cancel_booking", map[string]any{"reservation_number": open, "phone_last4": "0199"})
	if res.IsError || out["cancel_id"] == nil {
		t.Fatalf("cancel at an open property answered %s", text(res))
	}
}

// TestSearchSaysClosed: the guest search names a closure on a night of
// the stay as the reason a property's rooms are not offered, beside the
// minimum stay, and never shows the closure's staff reason.
func TestSearchSaysClosed(t *testing.T) {
	t.Parallel()
	m := startMain(t, "", func(c *config.Config) {
		c.Locations[0].Closures = []business.Closure{{From: "2026-12-31", Reason: "staff training"}}
	})
	search := m.URL + "/search?" + url.Values{"location": {"riverside"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"1"}}.Encode()
	status, _, body := get(t, search, "", nil)
	if status != http.StatusOK || !strings.Contains(body, "closed on Thu, Dec 31, 2026.") || strings.Contains(body, "staff training") || strings.Contains(body, "roomtype=") {
		t.Fatalf("search = %d: %s", status, body)
	}
}
