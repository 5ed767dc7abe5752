package orphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/orp"
	"frontdesk/orp/orphttp"
	"frontdesk/sqlite"
)

func newServer(t *testing.T) *orphttp.Server {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "orp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var seed [32]byte
	copy(seed[:], "frontdesk orphttp tests seed 001")
	h, err := orp.New(orp.Options{Store: db, Clock: clock.NewFixed(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)),
		Rand: random.Seeded(seed), Origin: "https://hub.example", Name: "Hub Example",
		TermsURL: "https://hub.example/terms", PrivacyURL: "https://hub.example/privacy"})
	if err != nil {
		t.Fatal(err)
	}
	return &orphttp.Server{Host: h}
}

// TestEveryAnswerIsNoStore checks §4.2's Cache-Control on answers the
// binding's handlers write and on those the router writes for them, with
// the routes mounted one by one on a server's own mux, as cmd/frontdesk
// mounts them (the mux's own 404 lacked no-store).
func TestEveryAnswerIsNoStore(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", http.NotFound)
	for _, r := range newServer(t).Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/.well-known/orp.json", 200},
		{"GET", "/orp", 405},
		{"GET", "/orp/nothing-here", 404},
		{"GET", "/orp/nonexistent", 404},
		{"PUT", "/.well-known/orp.json", 405},
		{"GET", "/approve/", 404},
		{"GET", "/orp/inbox", 401},
		{"GET", "/go/unknownTOKEN1", 302},
		{"POST", "/go/unknownTOKEN1", 405},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s = %d, Cache-Control %q; want %d, no-store", c.method, c.path, resp.StatusCode, resp.Header.Get("Cache-Control"), c.status)
		}
	}
}

// TestRedirectsAlone checks the redirect handler mounted on its own, as
// the server mounts it: T4's headers, no cookie, and an unknown token
// sent to the host's home page for GET and HEAD (T8).
func TestRedirectsAlone(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /go/{token}", newServer(t).Redirects())
	for _, method := range []string{"GET", "HEAD"} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(method, "/go/unknownTOKEN1?orp_test=1", nil))
		h := w.Result().Header
		if w.Code != http.StatusFound || h.Get("Location") != "https://hub.example/" {
			t.Errorf("%s = %d %s, want 302 to the home page", method, w.Code, h.Get("Location"))
		}
		for name, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex", "Set-Cookie": ""} {
			if got := h.Get(name); got != want {
				t.Errorf("%s: %s = %q, want %q", method, name, got, want)
			}
		}
	}
}
