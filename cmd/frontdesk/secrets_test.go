package main

import (
	"testing"
	"time"

	"frontdesk/internal/clock"
)

// TestSecretsCommands: `frontdesk secrets status` shows the one version
// a store starts with, `rotate` adds the next, which writes while the
// first still checks, and a sweep once the delay passed runs the re-key
// pass to its end and retires the first.
func TestSecretsCommands(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	clk := clock.NewFixed(testNow)
	at := testNow.UTC().Format(time.RFC3339)
	check := func(want string, args ...string) {
		t.Helper()
		out, _, err := runCmdOn(t, clk, append(args, "--data", data)...)
		if err != nil || out != want {
			t.Fatalf("%v = %q, %v; want %q", args, out, err, want)
		}
	}
	check("version 1  added "+at+"  writes and checks\nre-key pass: none under way; one version is live\n", "secrets", "status")
	check("version 1  added "+at+"  checks only\nversion 2  added "+at+"  writes and checks\n"+
		"re-key pass: starts with the first sweep from "+testNow.Add(3*time.Minute).UTC().Format(time.RFC3339)+"; older versions retire when it finishes\n",
		"secrets", "rotate")
	clk.Advance(3 * time.Minute)
	if _, _, err := runCmdOn(t, clk, "sweep", "--data", data); err != nil {
		t.Fatal(err)
	}
	check("version 2  added "+at+"  writes and checks\nre-key pass: none under way; one version is live\n", "secrets", "status")
	for _, bad := range [][]string{{"secrets", "purge"}, {"secrets"}, {"secrets", "rotate", "twice"}} {
		if _, _, err := runCmdOn(t, clk, append(bad, "--data", data)...); err == nil || err.Error() != `secrets: give "rotate" or "status"` {
			t.Fatalf("%v = %v", bad, err)
		}
	}
	check("version 2  added "+at+"  writes and checks\nre-key pass: none under way; one version is live\n", "secrets", "status")
}
