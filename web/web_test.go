package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

type readiness struct{ err error }

func (r readiness) Ready(context.Context) error { return r.err }

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func site(err error) *Site {
	return &Site{Config: config.Demo(), Store: readiness{err}, Logger: slog.New(slog.DiscardHandler)}
}

func TestPagesRender(t *testing.T) {
	h := site(nil).Handler()
	tests := []struct{ path, want string }{
		{"/", "Sample Stays"},
		{"/locations", "Old Town Lodge"},
		{"/policy", "more than 48 hours before the local check-in time"},
		{"/privacy", "only a salted digest"},
		{"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02", "double, 2026-12-30 to 2027-01-02"},
	}
	for _, tt := range tests {
		status, body := get(t, h, tt.path)
		if status != http.StatusOK || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, body lacks %q", tt.path, status, tt.want)
		}
	}
	if status, _ := get(t, h, "/book/nowhere"); status != http.StatusNotFound {
		t.Errorf("unknown location = %d, want 404", status)
	}
}

// TestBookPageEscapesTheRequest: the prefilled values come from the query
// and are data, never markup.
func TestBookPageEscapesTheRequest(t *testing.T) {
	_, body := get(t, site(nil).Handler(), "/book/riverside?roomtype=%3Cscript%3Ealert(1)%3C/script%3E")
	if strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;") {
		t.Fatalf("book page did not escape the room type: %s", body)
	}
}

func TestReadiness(t *testing.T) {
	if status, body := get(t, site(nil).Handler(), "/readyz"); status != 200 || body != "ready\n" {
		t.Fatalf("ready store = %d %q", status, body)
	}
	if status, _ := get(t, site(errors.New("migration 2 missing")).Handler(), "/readyz"); status != http.StatusServiceUnavailable {
		t.Fatalf("unready store = %d, want 503", status)
	}
}
