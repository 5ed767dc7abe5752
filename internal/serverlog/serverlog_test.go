package serverlog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

func TestNewWritesJSONLines(t *testing.T) {
	var dst bytes.Buffer
	New(&dst, nil, slog.LevelInfo).Info("started", "listen", "127.0.0.1:8080")
	var line map[string]any
	if err := json.Unmarshal(dst.Bytes(), &line); err != nil || line["msg"] != "started" || line["listen"] != "127.0.0.1:8080" {
		t.Fatalf("without a batch: %q (%v), want the JSON line at once", dst.String(), err)
	}
}

func TestNewBatchesInfoAndFlushesOnWarnings(t *testing.T) {
	var dst writes
	var s scheduled
	batch := NewBatch(&dst, time.Second, s.after)
	log := New(&dst, batch, slog.LevelInfo)
	log.Debug("below the level")
	log.Info("request", "status", 200)
	if dst.n != 0 {
		t.Fatalf("an info line was written at once: %q", dst.String())
	}
	log.Warn("request", "status", 404)
	if dst.n != 1 || bytes.Count(dst.Bytes(), []byte("\n")) != 2 || bytes.Contains(dst.Bytes(), []byte("below the level")) {
		t.Fatalf("after a warning: %d writes of %q, want one of the info and the warning lines", dst.n, dst.String())
	}
}
