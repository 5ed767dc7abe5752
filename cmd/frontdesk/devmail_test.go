package main

import (
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestDevMailboxSaysWhichLimitPaused: after a start is told "Chat
// booking is briefly paused", the dev mailbox names the full ceiling,
// its setting and the moment it lifts.
func TestDevMailboxSaysWhichLimitPaused(t *testing.T) {
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.Limits.LocationEmailHourly = 1
	m, _ := launch(t, c, "127.0.0.1:0", clock.NewFixed(testNow))
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	start := func(email string) string {
		res, _ := callTool(t, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
			"guest_name": "Ada Lovelace", "email": email, "phone": "+1 303 555 0199"})
		return text(res)
	}
	start("ada@example.org")
	if got := start("grace@example.org"); !strings.HasPrefix(got, "Chat booking is briefly paused.") {
		t.Fatalf("second start at riverside = %q", got)
	}
	_, _, page := get(t, m.URL+"/dev/mail", "", nil)
	want := fmt.Sprintf("riverside: 1 of 1 booking codes in the last hour (limits.location_email_hourly). Lifts at %s.",
		testNow.Add(time.Hour).UTC().Format("2006-01-02 15:04:05 UTC"))
	if got := html.UnescapeString(tagless(page)); !strings.Contains(got, want) {
		t.Fatalf("dev mailbox lacks %q:\n%s", want, got)
	}
}

// tagless drops the HTML tags of page, keeping its text.
func tagless(page string) string {
	var b strings.Builder
	in := false
	for _, r := range page {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
