package main

import (
	"strings"
	"testing"
)

// TestSweepCommandRunsTheBookingSweep: `frontdesk sweep` runs one booking
// pass on the store and reports it.
func TestSweepCommandRunsTheBookingSweep(t *testing.T) {
	out, _, err := runCmd(t, "sweep", "--data", t.TempDir())
	if err != nil || !strings.Contains(out, "sweep: booking notices=0 exhausted=0 purged=0 released=0 repaired=0 flagged=0 failed=0\n") {
		t.Fatalf("sweep = %q, %v", out, err)
	}
}
