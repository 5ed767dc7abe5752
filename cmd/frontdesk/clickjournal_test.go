package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestOneServePerClickJournal: a second serve on the data directory of a
// running one refuses to start rather than append to the click journal
// the first still counts from; once the first stops, the next starts.
func TestOneServePerClickJournal(t *testing.T) {
	t.Parallel()
	clk := clock.NewFixed(time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC))
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	_, stop := launch(t, c, "127.0.0.1:0", clk)

	second := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clk, Out: io.Discard, ready: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := second.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "in use by another frontdesk serve") {
		t.Fatalf("second serve on the same data = %v, want the journal refused as in use", err)
	}

	stop()
	_, stop = launch(t, c, "127.0.0.1:0", clk)
	stop()
}
