// Package httpfront is what every HTTP answer of serve shares: the host
// check, read and write deadlines, security headers, request ids, one log
// line and one metric per request.
package httpfront

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"frontdesk/internal/clientip"
	"frontdesk/internal/hostguard"
	"frontdesk/internal/metrics"
	"frontdesk/internal/page"
	"frontdesk/internal/requestid"
	"frontdesk/internal/tlsfront"
)

// GuardHost refuses requests for hosts the config does not name, with a
// sentence that names the host received and the setting. sameOrigin also
// refuses requests that a page of a foreign origin sends.
func GuardHost(hosts hostguard.Guard, sameOrigin bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check := r
		if !sameOrigin && r.Header.Get("Origin") != "" {
			check = r.Clone(r.Context())
			check.Header.Del("Origin")
		}
		if refusal := hosts.Check(check); refusal != "" {
			http.Error(w, refusal, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Deadlines bounds how long a request may take to send its body and how
// long its answer may take to write. The body deadline is lifted once the
// body is read: an expired read deadline would otherwise cancel the call
// that follows it. A GET
// with a stream limit is a stream: its context ends it instead.
func Deadlines(read, write, stream time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		now := time.Now()
		answer := write
		if r.Method == http.MethodGet && stream > 0 {
			// A stream that writes nothing would never meet its write
			// deadline; its context ends it instead.
			answer = stream
			ctx, cancel := context.WithTimeout(r.Context(), answer)
			defer cancel()
			r = r.WithContext(ctx)
		}
		// A writer without deadlines (a test recorder) runs without one.
		_ = rc.SetWriteDeadline(now.Add(answer))
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(now.Add(read))
			r.Body = &liftAtEOF{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

type liftAtEOF struct {
	io.ReadCloser
	lift func()
	done bool
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.lift()
	}
	return n, err
}

// SecurityHeaders go on every answer: no sniffing, no framing, no
// referrer to other sites, and pages that run no script but the drawing
// pad. Referrer-Policy is same-origin, not no-referrer: under no-referrer
// a browser posts this server's own forms with "Origin: null", which the
// host check must refuse. net/http only reads these
// slices, so one copy serves every response.
// The policy allows the plain style sheet and the one dressed in the
// business's brand (web.Brand).
func SecurityHeaders(brand page.Brand) http.Header {
	return http.Header{
		"X-Content-Type-Options":  {"nosniff"},
		"X-Frame-Options":         {"DENY"},
		"Referrer-Policy":         {"same-origin"},
		"Content-Security-Policy": {page.Policy(brand)},
	}
}

// Options are what Front needs.
type Options struct {
	Logger  *slog.Logger
	Metrics *metrics.Metrics
	Proxies clientip.Proxies
	IDs     *requestid.Source
	HSTS    string      // the Strict-Transport-Security value, "" for none
	Headers http.Header // on every answer (SecurityHeaders)
}

// Front adds what every answer shares: the security headers, a request
// id (identify), one log line and one metric per request, labelled by the
// route pattern; it refuses credentials sent in the clear.
func Front(o Options, next http.Handler) http.Handler {
	logger := o.Logger.With("component", "http")
	lines := logger.Handler()
	proxies, hsts, headers, ids := o.Proxies, o.HSTS, o.Headers, o.IDs
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h := w.Header()
		for k, v := range headers {
			h[k] = v
		}
		r = identify(w, r, proxies, ids)
		if r.TLS != nil && hsts != "" {
			h.Set("Strict-Transport-Security", hsts)
		}
		if tlsfront.PlainCredentials(r, proxies) {
			http.Error(w, tlsfront.PlainCredentialsRefusal, http.StatusForbidden)
			o.Metrics.Response("plain credentials", http.StatusForbidden)
			logger.WarnContext(r.Context(), "request", "method", loggableMethod(r.Method), "route", "plain credentials", "status", http.StatusForbidden)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		// Every limit by address (the form's, staff sign-in's, ORP's, MCP
		// sessions') reads r.RemoteAddr, which is the client behind a
		// trusted proxy from here on: one rule for all of them. The checks
		// above, which ask about the peer itself, come first.
		r = proxies.WithClient(r)
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		o.Metrics.Response(route, sw.status)
		level := slog.LevelInfo
		switch {
		case sw.status >= 500:
			level = slog.LevelError
		case sw.status >= 400:
			level = slog.LevelWarn
		case quiet(route):
			level = slog.LevelDebug
		}
		// The route pattern, never the path or query: both can carry
		// tokens and guest data. A tool call the request carried adds how
		// it ended (requestid.NoteCall).
		ctx := r.Context()
		call := requestid.TakeCall(ctx)
		if lines.Enabled(ctx, level) {
			// The record goes to the handler itself: the logger would also
			// look up the caller's program counter, which no line prints.
			rec := slog.NewRecord(time.Now(), level, "request", 0)
			rec.AddAttrs(slog.String("method", loggableMethod(r.Method)), slog.String("route", route),
				slog.Int("status", sw.status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			rec.AddAttrs(call...)
			_ = lines.Handle(ctx, rec)
		}
	})
}

// quiet routes log their successes at debug: probes and scrapes repeat
// all day, and tracked-link redirects are the one high-volume route (each
// click is stored and counted in metrics already).
func quiet(route string) bool {
	switch route {
	case "GET /healthz", "GET /readyz", "GET /metrics", "GET /go/{token}", "HEAD /go/{token}":
		return true
	}
	return false
}

// loggableMethod keeps the standard methods and names anything else
// "other": the method is text a client chooses.
func loggableMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
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

// Flush passes a flush on; a writer that cannot flush has nothing buffered.
func (s *statusWriter) Flush() { _ = http.NewResponseController(s.ResponseWriter).Flush() }

// identify gives r its request id: the one a trusted proxy sent in
// X-Request-Id when it is well-formed, else a fresh one. The id is echoed
// in the answer and carried by r's context, so every line logged for the
// request names it.
func identify(w http.ResponseWriter, r *http.Request, proxies clientip.Proxies, ids *requestid.Source) *http.Request {
	id := r.Header.Get(requestid.Header)
	if !requestid.Valid(id) || !proxies.FromProxy(r) {
		id = ids.Next()
	}
	w.Header()[requestid.Header] = []string{id} // the canonical form already: no key rewriting per request
	return r.WithContext(requestid.With(r.Context(), id))
}

// Server sets the limits every listener shares: a request's headers must
// arrive within 5 s and an idle keep-alive connection closes after a
// minute; each route sets its own body and answer deadlines. The
// server's own complaints go to log at debug level.
func Server(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// Shutdown stops servers, letting the calls in flight run for grace;
// the calls that outlive it end there.
func Shutdown(servers []*http.Server, grace time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for _, srv := range servers {
		if srv.Shutdown(ctx) != nil {
			if err := srv.Close(); err != nil {
				log.Warn("close server", "err", err)
			}
		}
	}
}
