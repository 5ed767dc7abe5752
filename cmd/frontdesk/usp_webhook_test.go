package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/uspspec"
	"frontdesk/usp"
	"frontdesk/usp/keyset"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

const hookProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// hookReceiver is the platform's webhook endpoint: it verifies each POST
// against the keys of the served business profile, as §10.1.1 tells a
// platform to, records it, and answers 500 to the first one.
type hookReceiver struct {
	mu     sync.Mutex
	keys   keyset.ProfileKeys
	now    func() time.Time
	got    []map[string]any
	bodies [][]byte
	status []int
	bad    []string
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := httpsig.Verify(r.Context(), httpsig.Request(r), h.now(), h.keys, webhookPolicy)
	if err == nil {
		err = httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body)
	}
	if err != nil {
		h.bad = append(h.bad, err.Error())
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev map[string]any
	json.Unmarshal(body, &ev)
	status := http.StatusOK
	if len(h.got) == 0 {
		status = http.StatusInternalServerError
	}
	h.got, h.bodies, h.status = append(h.got, ev), append(h.bodies, body), append(h.status, status)
	w.WriteHeader(status)
}

// TestPlatformHearsOfStaffConfirmation: a platform books over REST with
// its API key; staff confirm with `frontdesk staff confirm`; the platform's
// webhook_url receives a booking.confirmed it verifies against the served
// business profile, whose body the official schema accepts. The first
// delivery fails, and the retry 30 seconds later carries the same
// event_id.
func TestPlatformHearsOfStaffConfirmation(t *testing.T) {
	t.Parallel()
	schemas := uspspec.Load(t)
	plat := usptest.NewPlatforms(t, map[string]string{"/hook.json": hookProfile})
	clk := clock.NewFixed(testNow)
	rc := &hookReceiver{now: clk.Now}
	hook := httptest.NewServer(rc)
	defer hook.Close()

	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.Outbound.AllowPrivate = true // the development switch alone: profiles, webhooks and callbacks reach loopback
	c.USP.Platforms = append(c.USP.Platforms, config.USPPlatform{Name: "hookplatform", APIKeyHashes: []string{usp.HashAPIKey("hook-key")}, WebhookURL: hook.URL + "/webhooks/usp"})
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clk, Out: io.Discard, ready: make(chan struct{}),
		USPRootCAs: plat.Roots()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-m.ready

	resp, err := http.Get(m.URL + "/.well-known/usp")
	if err != nil {
		t.Fatal(err)
	}
	var profile struct{ Keys []json.RawMessage }
	json.NewDecoder(resp.Body).Decode(&profile)
	resp.Body.Close()
	rc.keys.Keys = profile.Keys

	auth := map[string]string{"USP-Agent": `profile="` + plat.URL + `/hook.json"`, "Authorization": "Bearer hook-key"}
	_, _, q := post(t, m.URL+"/usp/availability/query", auth, `{"service_id":"svc_riverside_double","start_date":"2026-12-02","end_date":"2026-12-02"}`)
	var slots struct{ Slots []struct{ ID string } }
	json.Unmarshal([]byte(q), &slots)
	if len(slots.Slots) == 0 {
		t.Fatalf("no room slots: %s", q)
	}
	// A room: its bookings wait for staff (the shuttle confirms itself).
	status, _, created := post(t, m.URL+"/usp/bookings", auth, `{"service_id":"svc_riverside_double","slot_id":"`+slots.Slots[0].ID+`","buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	var made struct{ Booking struct{ ID string } }
	json.Unmarshal([]byte(created), &made)
	if status != http.StatusCreated || made.Booking.ID == "" {
		t.Fatalf("create: %d %s", status, created)
	}
	if out, _, err := runCmdAtTestNow(t, "staff", "confirm", made.Booking.ID, "--data", c.Store.DataDir); err != nil {
		t.Fatalf("staff confirm: %s %v", out, err)
	}
	deliveries := func() int {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if len(rc.bad) > 0 {
			t.Fatalf("webhooks that do not verify: %v", rc.bad)
		}
		return len(rc.got)
	}
	box := m.outbox()
	if _, err := box.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := deliveries(); n != 1 {
		t.Fatalf("%d deliveries after the first pass, want 1", n)
	}
	clk.Advance(30 * time.Second)
	if _, err := box.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := deliveries(); n != 2 {
		t.Fatalf("%d deliveries after the retry, want 2", n)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	first, second := rc.got[0], rc.got[1]
	want := webhook.EventID(made.Booking.ID, 2) // version 1 created it, 2 is the confirmation
	if first["event"] != "booking.confirmed" || first["booking_id"] != made.Booking.ID || first["event_id"] != want || second["event_id"] != want ||
		rc.status[0] != 500 || rc.status[1] != 200 {
		t.Fatalf("webhooks = %v (statuses %v), want booking.confirmed %s twice", rc.got, rc.status, want)
	}
	if data, _ := first["data"].(map[string]any); data["status"] != "confirmed" || data["id"] != made.Booking.ID {
		t.Fatalf("webhook data = %v", first["data"])
	}
	schemas.Check(t, "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/BookingEvent", rc.bodies[1])
	if !strings.Contains(string(rc.bodies[0]), `"event_id":"`+want+`"`) {
		t.Fatalf("first body: %s", rc.bodies[0])
	}
}
