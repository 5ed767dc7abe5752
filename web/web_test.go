package web

import (
	"context"
	"errors"
	"html"
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

// demoConfig is what cmd/frontdesk hands the site for the demo business.
func demoConfig() Config {
	c := config.Demo()
	return Config{Portfolio: c.Portfolio, PublicURL: c.Deployment.PublicURL, ORPEnabled: c.ORP.Enabled, RemembersReferrals: c.RemembersReferrals()}
}

// site mounts the handlers as cmd/frontdesk does.
func site(err error) *testSite {
	s := &Site{Config: demoConfig(), Store: readiness{err}, Logger: slog.New(slog.DiscardHandler)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.Healthz)
	mux.HandleFunc("GET /readyz", s.Readyz)
	mux.HandleFunc("GET /privacy", s.Privacy)
	mux.HandleFunc("GET /policy", s.Policy)
	mux.HandleFunc("GET /locations", s.Locations)
	mux.HandleFunc("GET /book/{slug}", s.Book)
	mux.HandleFunc("GET /{$}", s.Index)
	return &testSite{mux}
}

type testSite struct{ mux *http.ServeMux }

func (t *testSite) Handler() http.Handler { return t.mux }

func TestPagesRender(t *testing.T) {
	h := site(nil).Handler()
	tests := []struct{ path, want string }{
		{"/", "Sample Stays"},
		{"/locations", "Old Town Lodge"},
		{"/policy", "more than 48 hours before the local check-in time"},
		{"/privacy", "only a salted digest"},
		{"/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02", `name="checkout" value="2027-01-02"`},
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

// TestBookPageEscapesTheRequest: the prefilled values come from the query;
// markup in them never reaches the page, escaped or not.
func TestBookPageEscapesTheRequest(t *testing.T) {
	_, body := get(t, site(nil).Handler(), "/book/riverside?roomtype=%3Cscript%3Ealert(1)%3C/script%3E")
	if strings.Contains(body, "alert(1)") || strings.Contains(body, "&lt;script") {
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

// TestPhonesAreTelLinks: every phone on the pages can be dialled.
func TestPhonesAreTelLinks(t *testing.T) {
	for _, path := range []string{"/", "/locations", "/policy", "/privacy", "/book/riverside"} {
		_, body := get(t, site(nil).Handler(), path)
		if !strings.Contains(html.UnescapeString(body), `href="tel:+1303555`) {
			t.Errorf("GET %s has no tel: link: %s", path, body)
		}
	}
	if got := Tel("+1 (303) 555-0100"); got != "tel:+13035550100" {
		t.Errorf("Tel = %q", got)
	}
}

// TestBookPageShowsOnlyCheckedValues: free text, unknown room types and
// impossible dates from the query never reach the page; a known room
// type and real dates prefill the form.
func TestBookPageShowsOnlyCheckedValues(t *testing.T) {
	tests := []struct {
		query     string
		want      []string
		forbidden []string
	}{
		{"roomtype=DOUBLE&checkin=2026-12-30&checkout=2027-01-02",
			[]string{`<option value="double" selected>`, `name="checkin" value="2026-12-30"`, `name="checkout" value="2027-01-02"`}, nil},
		{"roomtype=Call+0800+SCAM+now&checkin=2026-02-30&checkout=tomorrow",
			[]string{`name="checkin" value=""`, `name="checkout" value=""`}, []string{"SCAM", "selected", "2026-02-30", "tomorrow"}},
		{"roomtype=penthouse&checkin=2026-12-30&checkout=2026-12-01",
			[]string{`name="checkin" value="2026-12-30"`, `name="checkout" value=""`}, []string{"penthouse", "2026-12-01", "selected"}},
		{"roomtype=shuttle", nil, []string{`value="shuttle"`}}, // timed services are not booked by the night
	}
	for _, tt := range tests {
		_, body := get(t, site(nil).Handler(), "/book/airport?"+tt.query)
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("book?%s lacks %q", tt.query, w)
			}
		}
		for _, f := range tt.forbidden {
			if strings.Contains(body, f) {
				t.Errorf("book?%s repeats %q", tt.query, f)
			}
		}
	}
}
