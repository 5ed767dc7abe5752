package hub

import (
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clientip"
)

// Proxy forwards the requests of a split deployment's hub whose path
// names a property to the location process that owns it. Where a request
// goes comes from the config's origins alone: the path only picks one of
// them by slug, and a slug without an origin is not found. A location
// that cannot be reached gets a 502 page naming the property and its
// phone, never an address, port or error of the hub's.
type Proxy struct {
	targets map[string]*url.URL
	locs    map[string]business.Location
	order   []string // the proxied slugs, in config order
	rp      *httputil.ReverseProxy
	log     *slog.Logger
}

// Proxy timings: a location that does not take the connection or does
// not start its answer in time is unreachable; the route's own deadline
// bounds the rest.
const (
	proxyDial   = 3 * time.Second
	proxyHeader = 25 * time.Second
)

// hopHeaders are the hop-by-hop headers of RFC 9110 §7.6.1, and the
// proxy headers a client could write to pass for the hub. None is
// forwarded in either direction; the reverse proxy also removes the
// headers a Connection header names and sets X-Forwarded-* itself.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"}

// NewProxy builds the proxy of the locations of p that origins names,
// by slug. An origin must be an absolute http or https URL.
func NewProxy(p business.Portfolio, origins map[string]string, log *slog.Logger) (*Proxy, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	px := &Proxy{targets: map[string]*url.URL{}, locs: map[string]business.Location{}, log: log.With("component", "hubproxy")}
	for _, l := range p.Locations {
		origin, ok := origins[l.Slug]
		if !ok {
			continue
		}
		u, err := url.Parse(strings.TrimSuffix(origin, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("hub proxy: the origin of %q is not an http or https URL", l.Slug)
		}
		px.targets[l.Slug], px.locs[l.Slug] = u, l
		px.order = append(px.order, l.Slug)
	}
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: proxyDial}).DialContext,
		ResponseHeaderTimeout: proxyHeader,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
	}
	px.rp = &httputil.ReverseProxy{
		Transport: transport,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(px.targets[r.In.PathValue(slugValue)])
			// The location answers at the hub's public address, its own
			// public URL: the Host stays the one the client called, which a
			// USP platform's signature covers (@authority).
			r.Out.Host = r.In.Host
			r.SetXForwarded()
			if clientip.HTTPS(r.In) {
				// A TLS terminator the hub trusts took the client's HTTPS.
				r.Out.Header.Set("X-Forwarded-Proto", "https")
			}
			// The hub's route has checked the page's origin against its
			// own hosts; the location checks the Host it is reached at.
			r.Out.Header.Del("Origin")
		},
		ModifyResponse: func(resp *http.Response) error {
			dropHop(resp.Header)
			return nil
		},
		ErrorHandler: px.unreachable,
	}
	return px, nil
}

// slugValue is the path value that names the property: routes mounting
// the proxy spell it {slug}.
const slugValue = "slug"

// Or is px, or h when px is nil: the route's own handler outside a
// split hub.
func (px *Proxy) Or(h http.Handler) http.Handler {
	if px == nil {
		return h
	}
	return px
}

// ServeHTTP forwards r to the location its {slug} path value names.
func (px *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := px.targets[r.PathValue(slugValue)]; !ok {
		http.NotFound(w, r)
		return
	}
	// The reverse proxy would carry an Upgrade through to the location;
	// nothing the hub proxies is a stream, so no hop-by-hop header
	// leaves the hub, whatever the client sent.
	r = r.Clone(r.Context())
	dropHop(r.Header)
	px.rp.ServeHTTP(&replacing{ResponseWriter: w, h: http.Header{}}, r)
}

// replacing is the hub's answer writer under the reverse proxy: a header
// the location's answer (or the unreachable page) sets replaces the
// hub's own of that name, which the hub's front set before (the security
// headers, a request id), instead of being added beside it. A location's
// Referrer-Policy, Content-Security-Policy or Cache-Control is its page's
// own, and two values of one would mean the strictest of both.
type replacing struct {
	http.ResponseWriter
	h       http.Header
	written bool
}

func (w *replacing) Header() http.Header { return w.h }

func (w *replacing) WriteHeader(code int) {
	if !w.written {
		w.written = true
		for k, v := range w.h {
			w.ResponseWriter.Header()[k] = v
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *replacing) Write(b []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets the reverse proxy flush a streamed answer as it comes.
func (w *replacing) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// dropHop removes the headers a Connection header names, then the
// hop-by-hop and forwarding headers themselves.
func dropHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// unreachableText is the 502 page: the property's name and phone, and
// nothing of how the hub reaches it.
var unreachableText = template.Must(template.New("unreachable").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Name}} cannot be reached just now</title></head>
<body>
<main>
<h1>{{.Name}} cannot be reached just now</h1>
<p>This page is served by {{.Name}}, which did not answer. Try again in a few minutes or call {{.Phone}}.</p>
</main>
</body>
</html>
`))

// unreachable answers a request the location did not answer. The cause
// is logged once, by slug; the page names no address.
func (px *Proxy) unreachable(w http.ResponseWriter, r *http.Request, err error) {
	l := px.locs[r.PathValue(slugValue)]
	level := slog.LevelWarn
	if errors.Is(err, r.Context().Err()) && r.Context().Err() != nil {
		level = slog.LevelInfo // the client left; nothing is wrong at the location
	}
	px.log.Log(r.Context(), level, "location unreachable", "location", l.Slug, "err", err)
	if mark, ok := r.Context().Value(uspCall{}).(*reach); ok {
		mark.failed = true // the hub's own call: it says so in its own way
	}
	if r.Context().Value(uspCall{}) != nil {
		uspUnreachable(w, r, l)
		return
	}
	var b strings.Builder
	if err := unreachableText.Execute(&b, l); err != nil {
		http.Error(w, http.StatusText(http.StatusBadGateway), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadGateway)
	w.Write([]byte(b.String())) // the answer is decided; a client gone away is no fault here
}

// ByToken forwards a request whose path value named value holds a
// located token (business.SplitToken), less suffix, to the proxied
// location whose reference prefix the token names: a guest's page and
// its forms, a channel's feed. Any other request, a token of the earlier
// form or one naming no proxied location, gets notFound, the hub's own
// page: the hub never tries the token at one location after another. A
// nil proxy gives own, the route's handler outside a split hub.
func (px *Proxy) ByToken(value, suffix string, own, notFound http.Handler) http.Handler {
	if px == nil {
		return own
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutSuffix(r.PathValue(value), suffix)
		prefix, _, located := business.SplitToken(tok)
		slug, owned := px.ownerOf(prefix)
		if !ok || !located || !owned {
			notFound.ServeHTTP(w, r)
			return
		}
		r = r.Clone(r.Context())
		r.SetPathValue(slugValue, slug)
		px.ServeHTTP(w, r)
	})
}

// To forwards every request to the proxied location slug, whatever its
// path: the doors a split deployment keeps at one location (its ORP
// host). A nil proxy or an empty slug gives own, the route's handler at
// the hub.
func (px *Proxy) To(slug string, own http.Handler) http.Handler {
	if px == nil || slug == "" {
		return own
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.SetPathValue(slugValue, slug)
		px.ServeHTTP(w, r)
	})
}
