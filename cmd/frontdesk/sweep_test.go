package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
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

// draftConfig writes the demo config with deployment.context "draft".
func draftConfig(t *testing.T) string {
	t.Helper()
	toml := strings.Replace(string(config.DemoTOML), `context = "production"`, `context = "draft"`, 1)
	path := filepath.Join(t.TempDir(), "draft.toml")
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSweepRefusesADraftBeforeAnyWrite: `frontdesk sweep` with a draft
// config exits with an error and never opens the store: the data
// directory stays empty (§14). The production demo sweeps.
func TestSweepRefusesADraftBeforeAnyWrite(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, _, err := runCmd(t, "sweep", "--config", draftConfig(t), "--data", data)
	if err == nil || !strings.Contains(err.Error(), "the scheduled sweep refuses a non-production runtime context") || out != "" {
		t.Fatalf("sweep on a draft = %q, %v", out, err)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the draft sweep touched its data directory: %v", err)
	}
	unpublished := strings.Replace(string(config.DemoTOML), "published = true", "published = false", 1)
	path := filepath.Join(t.TempDir(), "unpublished.toml")
	if err := os.WriteFile(path, []byte(unpublished), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "sweep", "--config", path, "--data", data); err == nil || !strings.Contains(err.Error(), "without published evidence") {
		t.Fatalf("sweep on an unpublished production = %v", err)
	}
}

// TestServeOnADraftRunsNoSweep: serve on a draft config serves, starts
// no scheduled sweep and logs why.
func TestServeOnADraftRunsNoSweep(t *testing.T) {
	c, err := loadConfig(draftConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	c.Store.DataDir = t.TempDir()
	var logs syncBuffer
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(&logs, nil)), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{})}
	runMain(t, m)
	if status, _, _ := send(t, http.MethodGet, m.URL+"/healthz", nil, nil); status != http.StatusOK {
		t.Fatalf("a draft does not serve: %d", status)
	}
	if got := logs.String(); !strings.Contains(got, `msg="scheduled sweep not started" reason="the scheduled sweep refuses a non-production runtime context (deployment.context)"`) {
		t.Fatalf("logs = %s", got)
	}
	if strings.Contains(logs.String(), "booking sweep") {
		t.Fatalf("a sweep ran on a draft: %s", logs.String())
	}
}
