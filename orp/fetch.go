package orp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"strings"
	"syscall"
	"time"
)

// The host reads the public page an obligor names as proof (proof_url,
// and platform_check of a web page) to find the link, code, disclosure or
// target the terms ask for (§13). The page comes from anyone, so the
// fetch is bounded: a deadline, a size limit, a few redirects, and no
// connection to a private, loopback or link-local address, checked on the
// address actually dialled so a name that resolves inward is refused too.

// Fetch limits.
const (
	fetchTimeout   = 10 * time.Second
	fetchDial      = 3 * time.Second
	fetchMaxBytes  = 1 << 20
	fetchRedirects = 3
)

// errPrivateAddress is a fetch refused because it would reach an address
// that is not public (PublicAddr, spacefetch.go).
var errPrivateAddress = ErrPrivateAddress

// errTooLarge is a page over fetchMaxBytes.
var errTooLarge = errors.New("the page is over 1 MiB")

// pageFetcher reads public pages.
type pageFetcher struct {
	client *http.Client
}

// newPageFetcher builds the fetcher; allowPrivate lets it reach private
// and loopback addresses, for development and tests only.
func newPageFetcher(allowPrivate bool, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *pageFetcher {
	dialer := &net.Dialer{Timeout: fetchDial}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !PublicAddr(ap.Addr()) {
				return errPrivateAddress
			}
			return nil
		}
	}
	if dial == nil {
		dial = dialer.DialContext
	}
	transport := &http.Transport{
		DialContext: dial, TLSHandshakeTimeout: fetchDial, ResponseHeaderTimeout: fetchTimeout,
		MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, DisableCompression: false,
	}
	return &pageFetcher{client: &http.Client{
		Transport: transport, Timeout: fetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > fetchRedirects {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errors.New("redirect to a scheme other than http or https")
			}
			return nil
		},
	}}
}

// fetch returns the text of the page at url, unescaped and lowercased
// for matching, or why it could not be read.
func (f *pageFetcher) fetch(ctx context.Context, url string) (string, error) {
	u, err := neturl.Parse(url)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "", errors.New("not an http or https URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "frontdesk-orp-verifier/1")
	req.Header.Set("Accept", "text/html, text/plain;q=0.9, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, errPrivateAddress) {
			return "", errPrivateAddress
		}
		return "", fmt.Errorf("fetch page: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch page: status %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("fetch page: %w", err)
	}
	if len(b) > fetchMaxBytes {
		return "", errTooLarge
	}
	return strings.ToLower(html.UnescapeString(string(b))), nil
}
