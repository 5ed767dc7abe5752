package webhook_test

import (
	"encoding/json"
	"testing"
	"time"

	"frontdesk/reservation"
	"frontdesk/usp/webhook"
)

// TestEventIDsSortCausally: the outbox lists a reservation's events in
// the order of their versions.
func TestEventIDsSortCausally(t *testing.T) {
	if a, b := webhook.EventID("AIR-1", 9), webhook.EventID("AIR-1", 10); a >= b {
		t.Fatalf("%s sorts after %s", a, b)
	}
}

// TestQueueEventOnlyForPlatforms: an event of a platform's reservation
// is queued under its id with the reservation as it was; another door's
// reservation queues nothing.
func TestQueueEventOnlyForPlatforms(t *testing.T) {
	at := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	r := reservation.Reservation{Reference: "AIR-X1", State: reservation.Confirmed, Source: reservation.USP("acme")}
	w, ok := webhook.QueueEvent(r, "booking.confirmed", 5, at)
	if !ok || w.Record.Kind != webhook.Kind || w.Record.Key != "evt_AIR-X1_0000000005" {
		t.Fatalf("queued %+v, %v", w.Record, ok)
	}
	var e webhook.Event
	if err := json.Unmarshal(w.Record.Value, &e); err != nil || e.Type != "booking.confirmed" || e.Platform != "acme" || e.Version != 5 || !e.At.Equal(at) {
		t.Fatalf("event %+v, %v", e, err)
	}
	r.Source = reservation.SourceChat
	if _, ok := webhook.QueueEvent(r, "booking.confirmed", 5, at); ok {
		t.Fatal("a chat reservation queued a USP event")
	}
}
