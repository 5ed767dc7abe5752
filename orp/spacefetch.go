package orp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Fetcher reads a public page for the host's own checks, such as a
// space's domain verification (§9.1). It must refuse private addresses.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) ([]byte, error)
}

// fetchLimit is the most of a page the host reads.
const fetchLimit = 256 << 10

// ErrPrivateAddress is why a fetch to a loopback, private, link-local or
// otherwise non-public address was refused.
var ErrPrivateAddress = errors.New("orp: address is not public")

// NewFetcher returns the host's fetcher: plain HTTP(S) GETs with a
// timeout, at most three redirects, a size limit, and a dialer that
// refuses any address that is not public, after DNS and on every
// redirect, so a page cannot point the host at its own network.
func NewFetcher() Fetcher {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !PublicAddr(ap.Addr()) {
			return ErrPrivateAddress
		}
		return nil
	}}
	return &httpFetcher{client: &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: 5 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}}
}

// NewFetcherWith is a fetcher over a client the caller built, such as
// one whose dialer reaches a test server; the caller answers for what it
// may reach.
func NewFetcherWith(c *http.Client) Fetcher { return &httpFetcher{client: c} }

type httpFetcher struct{ client *http.Client }

func (f *httpFetcher) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("fetch: not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "frontdesk-orp-verifier/1")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: status %d", resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, fetchLimit))
}

// PublicAddr reports whether an address is a public unicast address:
// not loopback, private, link-local, shared (100.64/10), unspecified or
// multicast.
func PublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() || !a.IsGlobalUnicast() {
		return false
	}
	for _, p := range reservedRanges {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// reservedRanges are ranges Go's predicates do not name.
var reservedRanges = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("2001:db8::/32"),
}
