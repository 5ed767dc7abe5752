package hub

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

// TestUSPForwardTellsALocationDownFromItsAnswer: a REST call the hub
// sends a location on its own account comes back as the location
// answered, a 503 problem of its own included; only a location that does
// not answer is *Unreachable.
func TestUSPForwardTellsALocationDownFromItsAnswer(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"type":"https://usp-protocol.dev/errors/service-unavailable","detail":"`+r.Host+` `+string(must(io.ReadAll(r.Body)))+`"}`)
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL, "oldtown": "http://127.0.0.1:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "http://book.example.com/usp/waitlist/list", nil)
	a, err := px.USPForward(context.Background(), "riverside", r, []byte(`{"status":"waiting"}`))
	if err != nil || a.Status != http.StatusServiceUnavailable || !strings.Contains(string(a.Body), `book.example.com {"status":"waiting"}`) {
		t.Fatalf("the location's own 503 = %d %s, %v", a.Status, a.Body, err)
	}
	var down *Unreachable
	if _, err := px.USPForward(context.Background(), "oldtown", r, nil); !errors.As(err, &down) || down.Location.Slug != "oldtown" {
		t.Fatalf("a location down = %v", err)
	}
}
