package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSplitRotationKeepsSameEmailRules: the hub and three locations as
// processes, on both engines. A guest holds a stay at one location and
// has started an overlapping one at another when the shared secret
// gains a version and every process restarts as docs/operating.md
// says (the locations, then the hub). The same-email overlap rule still
// sees the first stay, which the hub keeps under the older version's
// key: the code mailed before the rotation is refused with the rule's
// sentence, and so is an overlapping stay started after it, while
// another guest books the same nights.
func TestSplitRotationKeepsSameEmailRules(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitRotationKeepsSameEmailRules(t, engine) })
	}
}

func testSplitRotationKeepsSameEmailRules(t *testing.T, engine string) {
	d := startSplit(t, engine)
	const email = "grace@example.com"
	in := time.Now().AddDate(0, 0, 40)
	night := func(days int) string { return in.AddDate(0, 0, days).Format(time.DateOnly) }
	try := func(url, slug, email, checkin, checkout string) (id, refusal string) {
		t.Helper()
		cs := connect(t, url, "2025-11-25")
		res, out := callTool(t, cs, "start_booking", map[string]any{"property": slug, "roomtype": "double",
			"checkin": checkin, "checkout": checkout, "guest_name": "Grace Hopper", "email": email, "phone": "+1 303 555 0142"})
		if res.IsError {
			return "", text(res)
		}
		return out["booking_id"].(string), ""
	}
	start := func(url, slug, email, checkin, checkout string) string {
		t.Helper()
		id, refusal := try(url, slug, email, checkin, checkout)
		if refusal != "" {
			t.Fatalf("start at %s: %s", slug, refusal)
		}
		return id
	}
	confirm := func(url, id, code string) (ref, refusal string) {
		t.Helper()
		res, out := callTool(t, connect(t, url, "2025-11-25"), "confirm_booking", map[string]any{"booking_id": id, "code": code})
		if res.IsError {
			return "", text(res)
		}
		return out["reservation_number"].(string), ""
	}
	mcpURL := d.hub + "/mcp"

	first := start(mcpURL, "riverside", email, night(0), night(2))
	if _, refusal := confirm(mcpURL, first, latestCode(t, d.origins["riverside"], email)); refusal != "" {
		t.Fatalf("the first stay: %s", refusal)
	}
	// Started before the rotation, confirmed after it.
	during := start(mcpURL, "oldtown", email, night(1), night(3))
	duringCode := latestCode(t, d.origins["oldtown"], email)

	// The rotation: a second version beside the first, then every
	// location restarted, then the hub.
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.dir, "relay.secret")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.TrimSpace(string(before))+"\n2:"+hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"riverside", "oldtown", "airport"} {
		d.stop(slug)
		d.restart(t, slug)
	}
	d.stop("hub")
	d.start(t, "hub", append([]string{"hub", "--config", filepath.Join(d.dir, "hub.toml")}, d.stores["hub"]...), nil)
	waitReady(t, "hub", d.hub)

	overlap := "This stay cannot be booked in chat."
	if _, refusal := confirm(mcpURL, during, duringCode); !strings.HasPrefix(refusal, overlap) {
		t.Fatalf("an overlapping stay started before the rotation, confirmed after it: %q, want the same-email refusal", refusal)
	}
	// Started after it: refused when it starts, or at the latest when
	// it is confirmed.
	after, refusal := try(mcpURL, "airport", email, night(1), night(2))
	if refusal == "" {
		_, refusal = confirm(mcpURL, after, latestCode(t, d.origins["airport"], email))
	}
	if !strings.HasPrefix(refusal, overlap) {
		t.Fatalf("an overlapping stay started after the rotation: %q, want the same-email refusal", refusal)
	}
	const other = "ada@example.com"
	another := start(mcpURL, "airport", other, night(1), night(2))
	if _, refusal := confirm(mcpURL, another, latestCode(t, d.origins["airport"], other)); refusal != "" {
		t.Fatalf("another guest's stay on the same nights after the rotation: %s", refusal)
	}
}
