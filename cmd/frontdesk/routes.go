package main

import (
	"context"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"frontdesk/mcptools"
	"frontdesk/web"
)

// routes lists every entry point of the server. Nothing else mounts a
// handler.
func (m *Main) routes() http.Handler {
	opts := m.mcpOptions()
	httpOpts := mcptools.HTTPOptions{Hostnames: m.Config.Deployment.Hostnames, Guard: bookingGuard(), Logger: m.Logger}
	mux := http.NewServeMux()

	mux.Handle("/mcp", mcptools.Handler(mcptools.NewHub(m.hub, m.bookings, opts), httpOpts))
	for _, l := range m.Config.Locations {
		s, err := mcptools.NewLocation(m.hub, l.Slug, opts)
		if err != nil {
			panic(err) // the config was validated; every slug resolves
		}
		mux.Handle("/locations/"+l.Slug+"/mcp", mcptools.Handler(s, httpOpts))
	}

	if m.devMail != nil {
		mux.Handle("/dev/mail", m.devMail.Handler())
		mux.Handle("/dev/mail.json", m.devMail.Handler())
	}
	m.mountORP(mux)
	m.mountUSP(mux)
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.metrics.Registry, promhttp.HandlerOpts{}))
	site := &web.Site{Config: m.Config, Store: m.store, Logger: m.Logger.With("component", "web"), FormURL: m.hub.Pricer().FormURL}
	mux.Handle("/", site.Handler())
	return m.countStatus(mux)
}

func (m *Main) mcpOptions() mcptools.Options {
	return mcptools.Options{Logger: m.Logger, Metrics: m.metrics, Version: version}
}

// bookingGuard is the batch rule for the hub: at most one booking-tool
// call, get_booking included, per JSON-RPC batch.
func bookingGuard() mcptools.BatchGuard {
	limited := map[string]bool{}
	for _, name := range mcptools.BookingTools {
		limited[name] = true
	}
	return mcptools.BatchGuard{Limited: limited}
}

// countStatus counts responses by route pattern and status code.
func (m *Main) countStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		m.metrics.Response(route, sw.status)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) Flush() { http.NewResponseController(s.ResponseWriter).Flush() }

func serveHubStdio(ctx context.Context, m *Main, in io.Reader, out io.Writer) error {
	return mcptools.ServeStdio(ctx, mcptools.NewHub(m.hub, m.bookings, m.mcpOptions()), in, out, bookingGuard())
}
