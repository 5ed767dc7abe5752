package config

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// PublicURL is where links point: deployment.public_url when set, else
// the listen address, with an unspecified host (0.0.0.0, ::) shown as
// localhost so the printed URL opens in a browser on this machine.
func PublicURL(configured, listen string) string {
	if configured != "" {
		return strings.TrimSuffix(configured, "/")
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// ORPSites are the domains any deal's tracked links may send browsers
// to: the configured sites, each location's domain and the public
// origin's host when it is a domain name.
func (c Config) ORPSites(origin string) []string {
	sites := slices.Clone(c.ORP.Sites)
	for _, l := range c.Locations {
		if l.Domain != "" {
			sites = append(sites, strings.ToLower(l.Domain))
		}
	}
	if u, err := url.Parse(origin); err == nil && net.ParseIP(u.Hostname()) == nil && strings.Contains(u.Hostname(), ".") {
		sites = append(sites, strings.ToLower(u.Hostname()))
	}
	return sites
}
