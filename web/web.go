// Package web serves frontdesk's pages and probes: liveness, readiness,
// the privacy, policy and locations pages the config links to, and the
// booking-form route. Pages render through internal/page, in the layout
// every page of the server shares.
//
// It is an adapter: it imports config, store contracts and internal
// helpers, never another adapter. It exposes handlers; cmd/frontdesk
// mounts them on their routes.
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
	"frontdesk/internal/civil"
	"frontdesk/internal/page"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", template.FuncMap{"tel": Tel})

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
	pages.Render(w, r, s.Logger, http.StatusOK, name, s.Nav, data)
}

// bookRequest is what a prefilled booking link asks for, after checking:
// only a room type the location sells and real dates reach the page.
type bookRequest struct {
	Location                    config.Location
	RoomType, Checkin, Checkout string
}

// Book shows the location's booking route with the requested room type
// and dates filled in from the query. A value that is not a known room
// type or a real date is left out, so the page never repeats free text.
func (s *Site) Book(w http.ResponseWriter, r *http.Request) {
	for _, l := range s.Config.Locations {
		if l.Slug != r.PathValue("slug") {
			continue
		}
		q := r.URL.Query()
		req := bookRequest{Location: l}
		if u, ok := l.Unit(q.Get("roomtype")); ok {
			req.RoomType = u.DisplayName()
		}
		in, inErr := civil.Parse(q.Get("checkin"))
		out, outErr := civil.Parse(q.Get("checkout"))
		if inErr == nil {
			req.Checkin = in.String()
			if outErr == nil && in.Before(out) {
				req.Checkout = out.String()
			}
		}
		s.render(w, r, "book.html", req)
		return
	}
	http.NotFound(w, r)
}
