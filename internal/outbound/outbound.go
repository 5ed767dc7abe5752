// Package outbound is the one rule for every connection the business
// opens to an address it was handed (platform profiles, webhooks,
// callbacks, ORP proof pages, platform checks and space locators, channel
// feeds): which addresses may be dialled, which URLs may be asked for,
// and the HTTP transport that applies both. Endpoints the operator
// configures (the payment provider's base URL, relay origins) are not
// under it.
//
// It imports only the standard library.
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Rule decides which addresses the business's outbound connections
// (platform profile fetches, webhook and callback deliveries) may reach.
// In production only public unicast addresses; in development
// (outbound.allow_private) loopback as well, and nothing more: link-local
// (169.254.169.254, the cloud metadata address, among them), private,
// unspecified, multicast and reserved ranges stay refused in every mode,
// in whatever form they are written (IPv4-mapped IPv6, hex or decimal
// integers). The rule is applied to the address actually dialled, after
// name resolution, so DNS rebinding cannot get around it; URL hosts are
// checked up front too, for a clear refusal.
type Rule struct {
	// Loopback admits 127.0.0.0/8 and ::1 (and their mapped forms), for
	// local development.
	Loopback bool
}

// Allows reports whether addr may be dialled.
func (r Rule) Allows(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return false
	}
	if addr.IsLoopback() {
		return r.Loopback
	}
	return !special(addr)
}

// ErrSpecialAddress is why a URL or a dial is refused.
var ErrSpecialAddress = errors.New("special-use address")

// connectTimeout bounds the connection itself, before any request.
const connectTimeout = 3 * time.Second

// control runs at connect time, after name resolution.
func (r Rule) control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !r.Allows(addr) {
		return fmt.Errorf("connect to %s: %w", address, ErrSpecialAddress)
	}
	return nil
}

// Dialer is a dialer whose every connection, after name resolution,
// goes only to an address the rule allows, whatever the scheme above
// it: for fetchers that read public http and https pages.
func (r Rule) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: r.control}
}

// loopbackOnly is the rule of plain-http connections: in development to
// loopback only, in production to nothing.
func (r Rule) loopbackOnly(network, address string, c syscall.RawConn) error {
	if !r.Loopback {
		return fmt.Errorf("connect to %s over plain http: %w", address, ErrSpecialAddress)
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !addr.Unmap().IsLoopback() {
		return fmt.Errorf("connect to %s over plain http: %w", address, ErrSpecialAddress)
	}
	return nil
}

// CheckHost refuses a URL host this rule would never dial: an address
// literal outside the rule, localhost (and its subdomains, RFC 6761) as
// the loopback it names, or a number written in a form other than
// dotted decimal or bracketed IPv6 (0x7f000001, 2130706433, 127.1,
// 0177.0.0.1), which resolvers read as addresses, in every mode. A
// trailing dot and case change nothing (localhost. is localhost). Any
// other name is left to the dial-time check.
func (r Rule) CheckHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "" {
		return fmt.Errorf("empty host: %w", ErrSpecialAddress)
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		if !r.Loopback {
			return fmt.Errorf("host %s: %w", host, ErrSpecialAddress)
		}
		return nil
	}
	if addr, err := netip.ParseAddr(h); err == nil {
		if addr.Zone() != "" || !r.Allows(addr) {
			return fmt.Errorf("host %s: %w", host, ErrSpecialAddress)
		}
		return nil
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	if numericLabel(last) {
		return fmt.Errorf("host %s is a number in a form other than dotted decimal: %w", host, ErrSpecialAddress)
	}
	return nil
}

// numericLabel reports whether a DNS label is a number (decimal, octal or
// 0x hex), which no top-level domain is.
func numericLabel(s string) bool {
	if s == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(s, "0x"); ok {
		s = rest
		for _, c := range s {
			if !strings.ContainsRune("0123456789abcdef", c) {
				return false
			}
		}
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CheckURL refuses an outbound URL before any connection: it must be an
// absolute https URL (plain http only in development, and only to a
// loopback host) without credentials or fragment, whose host passes
// CheckHost.
func (r Rule) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return errors.New("not an absolute URL without credentials or fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !r.Loopback || !isLoopbackHost(u.Hostname()) {
			return errors.New("plain http is used only for loopback, in development")
		}
	default:
		return fmt.Errorf("scheme %q is not https", u.Scheme)
	}
	return r.CheckHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if h := strings.TrimSuffix(strings.ToLower(host), "."); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// Transport returns the HTTP transport of outbound connections under the
// rule: https connections dial only addresses the rule allows, plain http
// ones loopback only (in development). roots replaces the system roots
// when set; responseTimeout bounds the wait for response headers.
func (r Rule) Transport(roots *x509.CertPool, responseTimeout time.Duration) *http.Transport {
	plain := &net.Dialer{Timeout: connectTimeout, Control: r.loopbackOnly}
	secure := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: connectTimeout, Control: r.control},
		Config:    &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	}
	return &http.Transport{
		DialContext: plain.DialContext,
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return secure.DialContext(ctx, network, addr)
		},
		ResponseHeaderTimeout: responseTimeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
}

// specialPrefixes are the special-use ranges of RFC 6890 and its
// successors that the netip predicates below do not cover.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	// Deprecated site-local and IPv4-compatible IPv6, which some stacks
	// still route.
	netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("::/96"),
}

// special reports whether addr is loopback, private, link-local
// (169.254.169.254 included), multicast, unspecified or reserved.
func special(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || !addr.IsValid() {
		return true
	}
	for _, p := range specialPrefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
