// Package web serves frontdesk's pages and probes: liveness, readiness,
// the privacy, policy and locations pages the config links to, and the
// signed booking form that every refusal of the booking tools points to,
// and the staff screen at /staff/ (staff*.go). Pages render through
// internal/page, in the layout every page of the server shares.
//
// It is an adapter: it imports config, the booking core, the reservation
// and staff domain packages, store contracts and internal helpers, never
// another adapter. It exposes handlers;
// cmd/frontdesk mounts them on their routes.
package web

import (
	"context"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"frontdesk/config"
	"frontdesk/internal/page"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", template.FuncMap{"tel": Tel, "money": orpMoney})

// Tel is the tel: link of a phone number as people write it, such as
// "+1 303 555 0100" → "tel:+13035550100".
func Tel(phone string) template.URL {
	var b strings.Builder
	b.WriteString("tel:")
	for i, r := range phone {
		if r >= '0' && r <= '9' || r == '+' && i == 0 {
			b.WriteRune(r)
		}
	}
	return template.URL(b.String())
}

// Readiness reports whether the store is reachable and migrated.
type Readiness interface {
	Ready(ctx context.Context) error
}

// Site serves the pages and probes.
type Site struct {
	Config config.Config
	Store  Readiness
	Logger *slog.Logger
	// Nav is the navigation every page shows.
	Nav []page.Link
	// Forms takes booking-form requests; nil serves the form without
	// taking requests.
	Forms Forms
	// ClientAddr names the client of a request for limits by address;
	// nil means the connection's address.
	ClientAddr func(*http.Request) string
}

// Healthz answers while the process runs.
func (s *Site) Healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// Readyz answers 200 while the store is reachable and migrated, else 503.
func (s *Site) Readyz(w http.ResponseWriter, r *http.Request) {
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
}

// Index is the home page.
func (s *Site) Index(w http.ResponseWriter, r *http.Request) { s.render(w, r, "index.html", s.data()) }

// Privacy is the privacy page.
func (s *Site) Privacy(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "privacy.html", s.data())
}

// Policy is the cancellation policy.
func (s *Site) Policy(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "policy.html", s.data())
}

// Locations lists the properties.
func (s *Site) Locations(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "locations.html", s.data())
}

func (s *Site) data() pageData { return pageData{Config: s.Config} }

func (s *Site) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	s.renderStatus(w, r, http.StatusOK, name, data)
}

func (s *Site) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	pages.Render(w, r, s.Logger, status, name, s.Nav, data)
}
