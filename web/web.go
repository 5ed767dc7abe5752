// Package web serves frontdesk's pages and probes: liveness, readiness,
// the privacy, policy and locations pages the config links to, and the
// booking-form route. Templates come from an embedded file system and are
// rendered into a buffer first, so a template fault is a clean 500.
//
// It is an adapter: it imports config and store contracts, never another
// adapter.
package web

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"frontdesk/config"
)

//go:embed templates/*.html
var templateFS embed.FS

var templates = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// Readiness reports whether the store is reachable and migrated.
type Readiness interface {
	Ready(ctx context.Context) error
}

// Site serves the pages and probes.
type Site struct {
	Config config.Config
	Store  Readiness
	Logger *slog.Logger
	// FormURL returns a location's booking form with the request filled in.
	FormURL func(l config.Location, roomType, checkin, checkout string) string
}

// Handler returns the routes of the site on a fresh mux.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /privacy", s.page("privacy.html", nil))
	mux.HandleFunc("GET /policy", s.page("policy.html", nil))
	mux.HandleFunc("GET /locations", s.page("locations.html", nil))
	mux.HandleFunc("GET /book/{slug}", s.book)
	mux.HandleFunc("GET /{$}", s.page("index.html", nil))
	return mux
}

func (s *Site) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

func (s *Site) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.Store.Ready(ctx); err != nil {
		s.Logger.WarnContext(ctx, "not ready", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("store not ready\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

type pageData struct {
	Config config.Config
	Extra  any
}

func (s *Site) page(name string, extra any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.render(w, name, extra) }
}

func (s *Site) render(w http.ResponseWriter, name string, extra any) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, pageData{Config: s.Config, Extra: extra}); err != nil {
		s.Logger.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// bookRequest is what a prefilled booking link asks for.
type bookRequest struct {
	Location                    config.Location
	RoomType, Checkin, Checkout string
}

// book shows the location's booking route with the requested room type and
// dates filled in from the query.
func (s *Site) book(w http.ResponseWriter, r *http.Request) {
	for _, l := range s.Config.Locations {
		if l.Slug == r.PathValue("slug") {
			q := r.URL.Query()
			s.render(w, "book.html", bookRequest{Location: l, RoomType: q.Get("roomtype"), Checkin: q.Get("checkin"), Checkout: q.Get("checkout")})
			return
		}
	}
	http.NotFound(w, r)
}
