package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/failpoint"
)

// failpointBinary is frontdesk built with the failpoint tag, which
// honours FRONTDESK_FAILPOINT, or "" (this test binary) when the tests
// were built with it.
func failpointBinary(t *testing.T) string {
	t.Helper()
	if failpoint.Compiled {
		return ""
	}
	bin := filepath.Join(t.TempDir(), "frontdesk")
	if out, err := exec.Command("go", "build", "-tags", "failpoint", "-o", bin, "frontdesk/cmd/frontdesk").CombinedOutput(); err != nil {
		t.Fatalf("build with the failpoint tag: %v\n%s", err, out)
	}
	return bin
}

// TestSplitSlowHubStoreAcrossProcesses: the hub and three locations as
// processes, on both engines, the hub's store answering every request
// after 700 ms, past the hub's 650 ms limit. As §10 says: the mail
// counter cannot acknowledge, so a start gets the pause sentence within
// the admission's 2 seconds and no code is sent; a confirmation of a
// code sent before reserves under the location's own limits within the
// location's deadline, and its staff page names the locations whose
// stays were not read and the group's pending count that was not
// checked.
func TestSplitSlowHubStoreAcrossProcesses(t *testing.T) {
	bin := failpointBinary(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			slow := filepath.Join(t.TempDir(), "slow")
			d := startSplitWith(t, engine, splitOptions{edit: workedCeilings, bin: bin,
				env: map[string][]string{"hub": {failpoint.Env + "=slow:700ms:" + slow}}})
			g := &splitGuest{t: t, d: d, cs: connect(t, d.hub+"/mcp", "2025-11-25")}
			id, email, refusal := g.start("oldtown")
			if refusal != "" {
				t.Fatal(refusal)
			}
			code := latestCode(t, d.origins["oldtown"], email)
			if err := os.WriteFile(slow, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			sent := len(devMessages(t, d.origins["oldtown"]))
			began := time.Now()
			_, _, refusal = g.start("oldtown")
			if took := time.Since(began); !strings.HasPrefix(refusal, sentence(t, "paused")) || took > 4*time.Second {
				t.Fatalf("a start against a 700 ms hub store: %q after %v", refusal, took)
			}
			if n := len(devMessages(t, d.origins["oldtown"])); n != sent {
				t.Fatalf("%d codes were sent without an acknowledged admission", n-sent)
			}
			began = time.Now()
			res, out := callTool(t, g.cs, "confirm_booking", map[string]any{"booking_id": id, "code": code})
			if took := time.Since(began); res.IsError || took > 25*time.Second {
				t.Fatalf("a confirmation against a 700 ms hub store: %q after %v", text(res), took)
			}
			ref := out["reservation_number"].(string)
			d.addOwner(t, "oldtown", "olga")
			_, _, body := d.signInAt(t, "oldtown", "olga").do("GET", "/staff/reservations/"+ref, nil)
			if !regexp.MustCompile(`id="unread">The guest's reservations at (riverside, airport|airport, riverside) could not be read`).MatchString(body) ||
				!strings.Contains(body, "count of chat reservations awaiting staff could not be read") {
				t.Fatalf("the staff page of %s does not name the checks that could not run:\n%s", ref, body)
			}
		})
	}
}
