package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/metrics"
)

// TestSweepCommandRunsTheBookingSweep: `frontdesk sweep` runs one booking
// pass on the store and reports it.
func TestSweepCommandRunsTheBookingSweep(t *testing.T) {
	out, _, err := runCmd(t, "sweep", "--data", t.TempDir())
	if err != nil || !strings.Contains(out, "sweep: booking notices=0 exhausted=0 purged=0 released=0 repaired=0 flagged=0 failed=0\n") {
		t.Fatalf("sweep = %q, %v", out, err)
	}
}

// TestBookingSweepRunsAtStart: serve's booking sweep makes a pass as soon
// as the jobs start, not a whole interval later, so a server restarted
// more often than every 15 minutes still retries notices; a job without
// atStart waits for its interval.
func TestBookingSweepRunsAtStart(t *testing.T) {
	if !(&Main{}).bookingSweepJob().atStart {
		t.Fatal("the booking sweep does not run at start")
	}
	m := &Main{Logger: slog.New(slog.DiscardHandler), Clock: clock.System{}, metrics: metrics.New()}
	ran := make(chan string, 2)
	stop := m.startJobs(context.Background(),
		job{name: "first", every: time.Hour, atStart: true, run: func(context.Context) error { ran <- "first"; return nil }},
		job{name: "later", every: time.Hour, run: func(context.Context) error { ran <- "later"; return nil }})
	defer stop()
	select {
	case got := <-ran:
		if got != "first" {
			t.Fatalf("%s ran at start", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no pass at start")
	}
	select {
	case got := <-ran:
		t.Fatalf("%s ran before its interval", got)
	case <-time.After(100 * time.Millisecond):
	}
}
