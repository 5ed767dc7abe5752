package relay

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/random"
)

// TestUSPNotifyReachesTheHub: a location's webhook body reaches its own
// sessions and, over the relay, the hub's notifier as sent; a notice
// naming no platform is refused and notifies nothing; with the hub down
// the location's own sessions are still told, at once, and the failure
// is logged without the body.
func TestUSPNotifyReachesTheHub(t *testing.T) {
	type notice struct{ platform, body string }
	var mu sync.Mutex
	var atHub, atLocation []notice
	record := func(into *[]notice) Notifier {
		return func(_ context.Context, platform string, body []byte) int {
			mu.Lock()
			defer mu.Unlock()
			*into = append(*into, notice{platform, string(body)})
			return 1
		}
	}
	c := clock.NewFixed(bookNow)
	hub := &Split{Server: NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: production()}), Backend: &Backend{}}
	hub.ServeUSPNotify(record(&atHub))
	ts := httptest.NewServer(hub.Server)
	t.Cleanup(ts.Close)
	location := func(origin string, log *slog.Logger) *Split {
		client, err := NewClient(ClientOptions{Origins: map[string]string{hubSlug: origin}, Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(3)})
		if err != nil {
			t.Fatal(err)
		}
		return &Split{hub: client, log: log}
	}
	ctx := context.Background()
	body := `{"event":"booking.canceled","booking_id":"APS-00112233AABBCCDD","data":{"buyer":{"email":"ada@example.com"}}}`

	location(ts.URL, slog.New(slog.DiscardHandler)).USPNotify(record(&atLocation))(ctx, "key-p1", []byte(body))
	if want := []notice{{"key-p1", body}}; !slices.Equal(atHub, want) || !slices.Equal(atLocation, want) {
		t.Fatalf("at the hub %v, at the location %v; want %v at both", atHub, atLocation, want)
	}

	if err := location(ts.URL, nil).hub.Call(ctx, hubSlug, OpUSPNotify, Lookup, map[string]any{"body": map[string]any{}}, nil); err == nil || len(atHub) != 1 {
		t.Fatalf("a notice naming no platform: %v, the hub notified %d times", err, len(atHub))
	}

	down := httptest.NewServer(nil)
	down.Close()
	var logged bytes.Buffer
	start := time.Now()
	location(down.URL, slog.New(slog.NewTextHandler(&logged, nil))).USPNotify(record(&atLocation))(ctx, "key-p1", []byte(body))
	if len(atLocation) != 2 || time.Since(start) > uspNotifyLimit {
		t.Fatalf("with the hub down: the location notified %d times, in %v", len(atLocation), time.Since(start))
	}
	if !strings.Contains(logged.String(), "usp notification not offered to the hub") || strings.Contains(logged.String(), "ada@example.com") || strings.Contains(logged.String(), "APS-") {
		t.Fatalf("logged:\n%s", logged.String())
	}
}
