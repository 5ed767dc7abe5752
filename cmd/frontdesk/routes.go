package main

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"frontdesk/direct/directmcp"
	"frontdesk/internal/clientip"
	"frontdesk/internal/hostguard"
	"frontdesk/internal/httpfront"
	"frontdesk/internal/jsonlimit"
	"frontdesk/internal/page"
	"frontdesk/internal/requestid"
	"frontdesk/mail"
	"frontdesk/mcpfront"
	"frontdesk/orp"
	"frontdesk/orp/orphttp"
	"frontdesk/orp/orpmcp"
	"frontdesk/usp"
	"frontdesk/usp/usphttp"
	"frontdesk/usp/uspmcp"
	"frontdesk/web"
)

// Route classes: each has its own body-read and answer-write deadlines.
type routeClass int

const (
	probe  routeClass = iota // liveness, readiness, metrics
	pages                    // pages, the dev mailbox, ORP and tracked links
	mcpAPI                   // MCP endpoints: calls, and streams of answers
)

// limits are the read limit for a request body and the write limit for an
// answer, by class. An MCP answer may stream a booking call (the hub
// deadline is 44 s); a GET stream of server messages ends after its stream
// limit and the client reconnects.
func (c routeClass) limits() (read, write, stream time.Duration) {
	switch c {
	case probe:
		return 5 * time.Second, 10 * time.Second, 0
	case mcpAPI:
		return 15 * time.Second, 90 * time.Second, 15 * time.Minute
	}
	return 15 * time.Second, 30 * time.Second, 0
}

// routes lists every entry point of the main listener. Nothing outside
// this file mounts a handler (probes and metricsRoutes below are the
// plain-HTTP and metrics listeners): adapters expose handlers and this
// file gives each its pattern, its host check and its deadlines.
func (m *Main) routes() http.Handler {
	mux := http.NewServeMux()
	hosts := hostguard.New(m.Config.Deployment.Hostnames)
	// handle mounts a handler that is refused on hosts the config does not
	// name; sameOrigin also refuses foreign browser origins.
	handle := func(pattern string, class routeClass, sameOrigin bool, h http.Handler) {
		mux.Handle(pattern, m.deadlines(class, httpfront.GuardHost(hosts, sameOrigin, h)))
	}
	// handleMCP mounts an MCP endpoint: its front checks Host and Origin
	// itself and answers with JSON-RPC errors. Its sessions are bounded
	// in number and closed when idle, so unauthenticated initialize calls
	// cannot pile up memory; one pool bounds the sessions of every
	// endpoint together.
	sessions := mcpfront.NewSessionPool(mcpfront.SessionLimits{Idle: m.MCPSessionIdle})
	handleMCP := func(pattern string, h http.Handler) {
		mux.Handle(pattern, m.deadlines(mcpAPI, m.endsOnShutdown(sessions.Limit(h))))
	}

	// MCP: the hub, and every location's read-only server on one pattern.
	opts := m.mcpOptions()
	httpOpts := mcpfront.HTTPOptions{Hostnames: m.Config.Deployment.Hostnames, Guard: bookingGuard(), Logger: m.Logger}
	handleMCP("/mcp", mcpfront.Handler(directmcp.NewHub(m.hub, m.bookings, m.door, opts), httpOpts))
	handleMCP("/locations/{slug}/mcp", directmcp.Locations(m.hub, m.bookings, opts, httpOpts))

	// Pages and probes. Probes answer on any Host: orchestrators call them
	// by address, and they reveal nothing.
	site := &web.Site{Config: webConfig(m.Config), Store: m.store, Logger: m.Logger.With("component", "web"), Nav: m.nav(), Forms: countedForms{m.core, m.metrics}, Stays: m.bookings, Clock: m.Clock, Payments: m.payments, Rooms: m.hub.Searcher(m.core)}
	mux.Handle("GET /healthz", m.deadlines(probe, http.HandlerFunc(site.Healthz)))
	mux.Handle("GET /readyz", m.deadlines(probe, http.HandlerFunc(site.Readyz)))
	handle("GET /{$}", pages, true, http.HandlerFunc(site.Index))
	handle("GET /privacy", pages, true, http.HandlerFunc(site.Privacy))
	handle("GET /policy", pages, true, http.HandlerFunc(site.Policy))
	handle("GET /locations", pages, true, http.HandlerFunc(site.Locations))
	handle("GET /search", pages, true, http.HandlerFunc(site.Search))
	handle("GET /book/{slug}", pages, true, m.proxy.Or(http.HandlerFunc(site.Book)))
	handle("POST /book/{slug}", pages, true, m.proxy.Or(http.HandlerFunc(site.BookSubmit)))
	if m.split != nil && m.split.Server != nil { // a location of a split: the hub's calls, authenticated
		for _, r := range m.split.Server.Routes() {
			mux.Handle(r.Pattern, m.deadlines(mcpAPI, r.Handler))
		}
	}
	// A guest's page and a channel's feed are found by a token that names
	// its location: a split hub forwards them there, and answers its own
	// 404 for any other token.
	notFound := http.HandlerFunc(site.NotFound)
	stay := func(h http.HandlerFunc) http.Handler { return m.proxy.ByToken("token", "", h, notFound) }
	handle("GET /stay/{token}", pages, true, stay(site.Stay))
	handle("POST /stay/{token}/cancel", pages, true, stay(site.StayCancel))
	handle("POST /stay/{token}/pay", pages, true, stay(site.StayPay))
	// The payment provider's signed events: servers post them, with no
	// browser origin.
	handle("POST /payments/stripe", pages, true, m.proxy.PaymentEvents(http.HandlerFunc(site.PaymentEvent)))
	// Channel exports: each physical unit's calendar, fetched by the
	// listing sites' servers, at an address only its token names.
	handle("GET /channels/{file}", pages, false, m.proxy.ByToken("file", ".ics", m.channels.Handler(), notFound))
	handle("POST /stay/{token}/withdraw", pages, true, stay(site.StayWithdraw))
	handle("GET /stay/{token}/stay.ics", pages, true, stay(site.StayCalendar))
	handle("GET /photos/{name}", pages, true, http.HandlerFunc(site.Photo))
	handle("GET /properties/{slug}", pages, true, m.proxy.Or(http.HandlerFunc(site.Property)))
	handle("GET /robots.txt", pages, true, http.HandlerFunc(site.Robots))
	// Every other path of the site answers its own 404 page, with a way
	// back; the more specific patterns above and below win over it.
	handle("/", pages, true, http.HandlerFunc(site.NotFound))
	// The staff screen: same-origin pages behind a session.
	for _, r := range m.staffScreen().Routes() {
		handle(r.Pattern, pages, true, m.proxy.Staff(r.Handler))
	}
	if m.Config.Server.MetricsAddr == "" {
		handle("GET /metrics", probe, true, m.metricsHandler())
	}
	if m.devMail != nil {
		m.devMail.Nav, m.devMail.Limits, m.devMail.Paused = m.nav(), &m.Config.Limits, m.pauses
		handle("GET /dev/mail", pages, true, http.HandlerFunc(m.devMail.ServeHTML))
		handle("GET /dev/mail.json", pages, true, http.HandlerFunc(m.devMail.ServeJSON))
	}

	// The ORP host: its HTTP binding, with discovery, suggest and join open
	// to pages of any origin (§4.2), and its MCP binding.
	if m.orp != nil {
		srv := &orphttp.Server{Host: m.orp.host, Logger: m.Logger.With("component", "orphttp"), TermsOperator: m.Config.Business.Name, Nav: m.nav(),
			Mail: m.mailer, MailFrom: m.Config.Mail.From}
		crossOrigin := map[string]bool{
			"GET /.well-known/orp.json": true, "OPTIONS /.well-known/orp.json": true,
			"POST /orp/suggest": true, "OPTIONS /orp/suggest": true, "POST /orp/join": true, "OPTIONS /orp/join": true,
		}
		for _, r := range srv.Routes() {
			handle(r.Pattern, pages, !crossOrigin[r.Pattern], m.proxy.To(m.Config.Split.ORPLocation, r.Handler))
		}
		// No tool of the MCP binding (§4.3) is batch-limited. Its JSON
		// bodies get the size and depth caps of POST /orp before the SDK
		// decodes them.
		// A session that joined keeps acting as its party across a
		// restart: the host keeps the join in its store (§4.3).
		orpMCP := mcpfront.Handler(orpmcp.New(m.orp.host, opts), mcpfront.HTTPOptions{
			Hostnames: m.Config.Deployment.Hostnames, Logger: m.Logger, Resume: m.orp.host.SessionJoined,
		})
		handleMCP("/orp/mcp", m.proxy.To(m.Config.Split.ORPLocation, orphttp.NoStore(jsonlimit.Guard(orpMCP, orpMCPBody, orp.MaxDepth, mcpfront.RefuseBody))))
	}

	// USP: the business profile and the REST binding, which platforms'
	// servers call without a browser origin, and the MCP binding.
	if m.usp != nil {
		for _, r := range (&usphttp.Handler{Business: m.usp, Logger: m.Logger, Locations: m.proxy}).Routes() {
			handle(r.Pattern, pages, false, m.proxy.USP(r.Handler))
		}
		handleMCP(usp.MCPPath, uspmcp.EchoCorrelation(uspmcp.TellPlatform(m.proxy == nil, mcpfront.Handler(uspmcp.NewAtHub(m.usp, opts, m.proxy), mcpfront.HTTPOptions{Hostnames: m.Config.Deployment.Hostnames, Logger: m.Logger, Streams: m.uspWebhooks}))))
	}
	return m.front(mux)
}

// probes are liveness and readiness, for the plain-HTTP listener:
// orchestrators call them there by address.
func (m *Main) probes() http.Handler {
	site := &web.Site{Config: webConfig(m.Config), Store: m.store, Logger: m.Logger.With("component", "web")}
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", m.deadlines(probe, http.HandlerFunc(site.Healthz)))
	mux.Handle("GET /readyz", m.deadlines(probe, http.HandlerFunc(site.Readyz)))
	return mux
}

// metricsRoutes is the metrics listener of server.metrics_addr: /metrics
// alone.
func (m *Main) metricsRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.deadlines(probe, m.metricsHandler()))
	return mux
}

// nav is the navigation every page shows.
func (m *Main) nav() []page.Link {
	links := []page.Link{{Href: "/", Text: m.Config.Business.Name}, {Href: "/locations", Text: "Properties"},
		{Href: "/policy", Text: "Cancellation policy"}, {Href: "/privacy", Text: "Privacy"}}
	if m.orp != nil {
		links = append(links, page.Link{Href: "/terms", Text: "Partner terms"})
	}
	return links
}

// metricsHandler serves Prometheus, behind the bearer token when the
// config names one. Without a token it is open only on its own listener
// (the owner chose that address); on the main listener it then answers
// nobody, this machine included (observe.go).
func (m *Main) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(m.metrics.Registry, promhttp.HandlerOpts{})
	token := m.Config.Server.MetricsToken
	if token == "" && m.Config.Server.MetricsAddr != "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, metricsTokenRequired, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (m *Main) mcpOptions() mcpfront.Options {
	return mcpfront.Options{Logger: m.Logger, Metrics: m.metrics, Version: moduleVersion()}
}

// bookingGuard is the batch rule for the hub: at most one booking-tool
// call, get_booking included, per JSON-RPC batch.
func bookingGuard() mcpfront.BatchGuard {
	limited := map[string]bool{}
	for _, name := range directmcp.BookingTools {
		limited[name] = true
	}
	return mcpfront.BatchGuard{Limited: limited}
}

// endsOnShutdown ends an MCP stream of server messages (GET) when the
// server begins to shut down; calls in flight (POST) run to their end.
func (m *Main) endsOnShutdown(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(m.shuttingDown, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

// deadlines bounds how long a request may take to send its body and how
// long its answer may take to write, by its class of route.
func (m *Main) deadlines(class routeClass, next http.Handler) http.Handler {
	read, write, stream := class.limits()
	if m.deadlineScale > 0 {
		read, write, stream = read/m.deadlineScale, write/m.deadlineScale, stream/m.deadlineScale
	}
	return httpfront.Deadlines(read, write, stream, next)
}

// front adds what every answer shares (httpfront.Front).
func (m *Main) front(next http.Handler) http.Handler {
	proxies, err := clientip.Parse(m.Config.Deployment.TrustedProxies)
	if err != nil {
		panic(err) // validated with the config
	}
	ids, err := requestid.NewSource(m.Rand)
	if err != nil {
		panic(err) // the random source failed: nothing could be served safely
	}
	return httpfront.Front(httpfront.Options{Logger: m.Logger, Metrics: m.metrics, Proxies: proxies, IDs: ids, HSTS: m.hsts(),
		Headers: httpfront.SecurityHeaders(web.Brand(m.Config.Business))}, next)
}

// pauses are the chat-booking ceilings that are full now, as the dev
// mailbox shows them.
func (m *Main) pauses(ctx context.Context) ([]mail.Pause, error) {
	ps, err := m.office.Pauses(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]mail.Pause, 0, len(ps))
	for _, p := range ps {
		out = append(out, mail.Pause{Setting: p.Setting, Location: p.Location, Used: p.Used, Limit: p.Limit, Lifts: p.Lifts})
	}
	return out, nil
}
