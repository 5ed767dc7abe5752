// Package hostguard decides which requests a server answers by their Host
// and Origin headers, which keeps a server on a laptop safe from DNS
// rebinding and keeps pages and codes off hosts the owner never named.
// Its refusal names the host it received and the setting that admits it.
//
// It imports only the standard library.
package hostguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Guard admits the configured host names.
type Guard struct{ hosts map[string]bool }

// New admits names, compared without case, port or brackets.
func New(names []string) Guard {
	g := Guard{hosts: map[string]bool{}}
	for _, n := range names {
		g.hosts[strings.ToLower(strings.Trim(n, "[]"))] = true
	}
	return g
}

// Check returns "" when r may be served, else the sentence to answer with.
// A request without Origin is judged by its Host alone.
func (g Guard) Check(r *http.Request) string {
	if host := HostOnly(r.Host); !g.hosts[host] {
		return fmt.Sprintf("Forbidden: this server does not answer to the host %s. The hosts it answers to are listed in deployment.hostnames in its config file.", quote(host))
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if u, err := url.Parse(origin); err == nil && g.hosts[strings.ToLower(u.Hostname())] {
		return ""
	}
	return fmt.Sprintf("Forbidden: this server does not answer pages from the origin %s. The hosts it answers to are listed in deployment.hostnames in its config file.", quote(origin))
}

// HostOnly is the host of a Host header, lowercased, without port or
// brackets.
func HostOnly(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// quote shows at most 100 bytes of a value the client sent.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return fmt.Sprintf("%q", s)
}
