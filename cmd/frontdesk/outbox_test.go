package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
)

// TestServeRelaysTheOutbox: a running server numbers each transition in
// the reservation outbox right after its commit, with no timer due, on
// either engine.
func TestServeRelaysTheOutbox(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name     string
		database func(t *testing.T) string
	}{{"sqlite", func(*testing.T) string { return "" }}, {"postgres", func(t *testing.T) string { return pgtest.Schema(t) }}} {
		t.Run(engine.name, func(t *testing.T) {
			m := startMain(t, engine.database(t))
			ref := acceptedRequest(t, m, 1, "Grace Hopper", "grace@example.com", "double", "2026-12-30", "2027-01-02")
			want := []string{"1 " + ref + " >requested", "2 " + ref + " requested>confirmed"}
			var got []string
			// Half the relay's interval: only the kick of the commit is in time.
			for deadline := time.Now().Add(outboxRelayEvery / 2); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				events, err := m.bookings.Desk().Events(context.Background(), 0, 10)
				if err != nil {
					t.Fatal(err)
				}
				got = got[:0]
				for _, e := range events {
					got = append(got, fmt.Sprintf("%d %s %s>%s", e.Position, e.Reference, e.From, e.To))
				}
				if slices.Equal(got, want) {
					return
				}
			}
			t.Fatalf("outbox = %q, want %q", got, want)
		})
	}
}
