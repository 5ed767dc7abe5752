package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/store"
)

// downIndex fails every availability read: the index is unreachable.
type downIndex struct{ store.Store }

func (downIndex) Counts(context.Context, string, string, string) ([]store.Count, error) {
	return nil, errors.New("connection refused")
}

// TestBookingOutageIsLoggedAndCounted: a storage outage during a booking
// answers with its catalogue sentence, is logged once by the booking door
// with its code and no guest data, and shows in /metrics by code.
func TestBookingOutageIsLoggedAndCounted(t *testing.T) {
	t.Parallel()
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	withMetricsToken(&c)
	var logs syncBuffer
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Clock: clock.NewFixed(testNow),
		Out: io.Discard, ready: make(chan struct{}), WrapStore: func(s store.Store) store.Store { return downIndex{s} }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-m.ready
	t.Cleanup(func() { cancel(); <-done })

	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, _ := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "double",
		"checkin": "2026-12-30", "checkout": "2027-01-02", "guest_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 303 555 0199"})
	if !res.IsError || !strings.HasPrefix(text(res), "This booking cannot be checked right now. Try again in a few minutes or call +1 303 555 0111.") {
		t.Fatalf("start during the outage = %q", text(res))
	}
	log := logs.String()
	if strings.Count(log, `"msg":"booking answer with an internal cause"`) != 1 || !strings.Contains(log, `"code":"cannot_check"`) || !strings.Contains(log, "connection refused") {
		t.Fatalf("log = %s", log)
	}
	for _, private := range []string{"Ada", "ada@example.com", "555 0199"} {
		if strings.Contains(log, private) {
			t.Fatalf("the log carries guest data %q", private)
		}
	}
	body := scrape(t, m.URL)
	if !strings.Contains(string(body), `frontdesk_booking_errors_total{code="cannot_check",internal="true"} 1`) {
		t.Fatal("the outage is not counted in /metrics by code")
	}
}
