package orp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"frontdesk/internal/outbound"
)

// Fetcher reads a public page for the host's own checks, such as a
// space's domain verification (§9.1). It must refuse private addresses.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) ([]byte, error)
}

// fetchLimit is the most of a page the host reads.
const fetchLimit = 256 << 10

// ErrPrivateAddress is why a fetch was refused by the outbound address
// rule: an address that is not public (loopback admitted only in
// development), or a host written as a number in another form.
var ErrPrivateAddress = errors.New("orp: address is not public")

// NewFetcher returns the host's fetcher under rule, the business's one
// outbound address rule: plain HTTP(S) GETs with a timeout, at most
// three redirects, a size limit, the URL's host checked up front and on
// every redirect, and a dialer that applies the rule after DNS, so a
// page cannot point the host at its own network.
func NewFetcher(rule outbound.Rule) Fetcher {
	d := rule.Dialer(5 * time.Second)
	return &httpFetcher{rule: rule, client: &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: 5 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("too many redirects")
			}
			if rule.CheckHost(req.URL.Hostname()) != nil {
				return ErrPrivateAddress
			}
			return nil
		},
	}}
}

// NewFetcherWith is a fetcher over a client the caller built, such as
// one whose dialer reaches a test server; the caller answers for what it
// may reach.
func NewFetcherWith(c *http.Client) Fetcher { return &httpFetcher{client: c, any: true} }

type httpFetcher struct {
	rule   outbound.Rule
	any    bool // the caller's client decides what it reaches
	client *http.Client
}

func (f *httpFetcher) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("fetch: not an http(s) URL")
	}
	if !f.any && f.rule.CheckHost(u.Hostname()) != nil {
		return nil, ErrPrivateAddress
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "frontdesk-orp-verifier/1")
	resp, err := f.client.Do(req)
	if errors.Is(err, outbound.ErrSpecialAddress) || errors.Is(err, ErrPrivateAddress) {
		return nil, ErrPrivateAddress
	}
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: status %d", resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, fetchLimit))
}

// PublicAddr reports whether an address is one the outbound rule
// admits in production: a public unicast address.
func PublicAddr(a netip.Addr) bool { return outbound.Rule{}.Allows(a) }
