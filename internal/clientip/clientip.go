// Package clientip finds the network address of the client behind a
// request, trusting X-Forwarded-For only from the reverse proxies the
// owner named, so limits by address work behind a proxy and cannot be
// dodged by a client writing the header itself.
//
// It imports the standard library only.
package clientip

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the trusted reverse proxies.
type Proxies []netip.Prefix

// Parse reads addresses ("192.0.2.7") and CIDR ranges ("10.0.0.0/8").
func Parse(list []string) (Proxies, error) {
	var out Proxies
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not an address or a CIDR range", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

func (p Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, pr := range p {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// Of returns the client's address for r: the connection's peer, or, when
// the peer is a trusted proxy, the rightmost X-Forwarded-For entry that
// is not itself a trusted proxy. Entries further left were written by
// whoever the untrusted hop was, so they are never believed.
func (p Proxies) Of(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(p) == 0 || !p.trusted(peer) {
		return host
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := host
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		client = a.Unmap().String()
		if !p.trusted(a) {
			break
		}
	}
	return client
}

// Host is the address part of r.RemoteAddr: the client's, below Handler.
// Every limit by address counts by it.
func Host(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return strings.TrimSpace(r.RemoteAddr)
	}
	return host
}

// WithClient returns r with RemoteAddr set to the client's address, so
// every handler given it reads the client, not the proxy; r itself is
// left as it was. Without trusted proxies it is r.
func (p Proxies) WithClient(r *http.Request) *http.Request {
	if len(p) == 0 {
		return r
	}
	client := p.Of(r)
	ctx := r.Context()
	if p.FromProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		ctx = context.WithValue(ctx, forwardedHTTPS{}, true)
	}
	r = r.WithContext(ctx) // a shallow copy
	r.RemoteAddr = net.JoinHostPort(client, "0")
	return r
}

// forwardedHTTPS marks, in the context of a request WithClient
// rewrote, that a trusted proxy said the client used HTTPS.
type forwardedHTTPS struct{}

// HTTPS reports whether the client reached us over HTTPS: the
// connection itself, or, for a request WithClient passed, a trusted
// proxy's X-Forwarded-Proto. A client writing the header itself is not
// believed.
func HTTPS(r *http.Request) bool {
	return r.TLS != nil || r.Context().Value(forwardedHTTPS{}) == true
}

// FromProxy reports whether r's connection comes from a trusted proxy,
// whose headers (X-Forwarded-For, X-Request-Id) may be believed.
func (p Proxies) FromProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	return err == nil && p.trusted(peer)
}
