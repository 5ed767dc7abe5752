package orp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"frontdesk/internal/outbound"
)

// The host reads the public page an obligor names as proof (proof_url,
// and platform_check of a web page) to find the link, code, disclosure or
// target the terms ask for (§13). The page comes from anyone, so the
// fetch is bounded: a deadline, a size limit, a few redirects, and the
// business's one outbound address rule (internal/outbound), checked on
// the URL's host up front and on the address actually dialled, so a
// name that resolves inward is refused too.

// Fetch limits.
const (
	fetchTimeout   = 10 * time.Second
	fetchDial      = 3 * time.Second
	fetchMaxBytes  = 1 << 20
	fetchRedirects = 3
)

// errPrivateAddress is a fetch refused by the outbound address rule.
var errPrivateAddress = ErrPrivateAddress

// errTooLarge is a page over fetchMaxBytes.
var errTooLarge = errors.New("the page is over 1 MiB")

// pageFetcher reads public pages.
type pageFetcher struct {
	rule   outbound.Rule
	client *http.Client
}

// newPageFetcher builds the fetcher under the outbound rule; dial, when
// set, replaces its dialer (tests route names to loopback servers).
func newPageFetcher(rule outbound.Rule, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *pageFetcher {
	if dial == nil {
		dial = rule.Dialer(fetchDial).DialContext
	}
	transport := &http.Transport{
		DialContext: dial, TLSHandshakeTimeout: fetchDial, ResponseHeaderTimeout: fetchTimeout,
		MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, DisableCompression: false,
	}
	return &pageFetcher{rule: rule, client: &http.Client{
		Transport: transport, Timeout: fetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > fetchRedirects {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errors.New("redirect to a scheme other than http or https")
			}
			if rule.CheckHost(req.URL.Hostname()) != nil {
				return errPrivateAddress
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
	if f.rule.CheckHost(u.Hostname()) != nil {
		return "", errPrivateAddress
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "frontdesk-orp-verifier/1")
	req.Header.Set("Accept", "text/html, text/plain;q=0.9, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, errPrivateAddress) || errors.Is(err, outbound.ErrSpecialAddress) {
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
