package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/internal/httpsig"
	"frontdesk/reservation"
	"frontdesk/usp/keyset"
)

// TestStaffConfirmationReachesPlatformSigned: a platform's booking that
// staff confirm with `frontdesk staff confirm` reaches the platform's
// webhook_url as a POST it verifies against the keys of the served
// business profile; an outbox pass run again sends nothing more.
func TestStaffConfirmationReachesPlatformSigned(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	var keys keyset.ProfileKeys
	var now time.Time
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		_, err := httpsig.Verify(r.Context(), httpsig.Request(r), now, keys, webhookPolicy)
		if err == nil {
			err = httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body)
		}
		if err != nil {
			t.Errorf("webhook does not verify: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var ev map[string]any
		json.Unmarshal(body, &ev)
		got = append(got, ev)
	}))
	defer hook.Close()
	m := startMain(t, "", func(c *config.Config) {
		c.USP.AllowPrivateProfiles = true
		c.USP.Platforms = append(c.USP.Platforms, config.USPPlatform{
			Name: "hookplatform", APIKeyHashes: []string{"sha256:" + strings.Repeat("5a", 32)}, WebhookURL: hook.URL + "/webhooks/usp",
		})
	})
	now = m.Clock.Now()
	resp, err := http.Get(m.URL + "/.well-known/usp")
	if err != nil {
		t.Fatal(err)
	}
	var profile struct{ Keys []json.RawMessage }
	json.NewDecoder(resp.Body).Decode(&profile)
	resp.Body.Close()
	keys.Keys = profile.Keys

	r, err := m.bookings.Book(context.Background(), booking.BookRequest{
		Location: "airport", Unit: "shuttle", Slots: []string{"2026-12-02T10:00"}, Guests: 1,
		Source: reservation.USP("hookplatform"), Hold: true, By: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, "staff", "confirm", r.Reference, "--data", m.Config.Store.DataDir); err != nil {
		t.Fatalf("staff confirm: %s %v", out, err)
	}
	for range 2 {
		if _, err := m.outbox().Deliver(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0]["event"] != "booking.confirmed" || got[0]["booking_id"] != r.Reference || got[0]["event_id"] != reservation.EventID(r.Reference, 2) {
		t.Fatalf("webhooks = %v", got)
	}
}
