package channel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"frontdesk/internal/outbound"
)

// Fetcher reads feeds over HTTP under the outbound address rule: each
// address (and each redirect's) is checked before the request and each
// connection at dial time; a feed is read conditionally, within a
// deadline and a size cap.
type Fetcher struct {
	rule     outbound.Rule
	client   *http.Client
	maxBytes int64
	timeout  time.Duration
}

// Fetch limits when a Fetcher is built with zeros.
const (
	DefaultMaxBytes = 4 << 20
	DefaultTimeout  = 10 * time.Second
	maxRedirects    = 5
)

// NewFetcher returns a fetcher under rule; a zero maxBytes or timeout
// takes the defaults.
func NewFetcher(rule outbound.Rule, maxBytes int64, timeout time.Duration) *Fetcher {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	f := &Fetcher{rule: rule, maxBytes: maxBytes, timeout: timeout}
	f.client = &http.Client{
		Transport: rule.Transport(nil, timeout),
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if err := rule.CheckURL(req.URL.String()); err != nil {
				return fmt.Errorf("redirect refused: %w", err)
			}
			return nil
		},
	}
	return f
}

// Fetched is one answer of a feed.
type Fetched struct {
	NotModified  bool // 304: the feed is as it was
	Body         []byte
	ETag         string
	LastModified string
}

// FetchError is a failed fetch, worded without the feed's address: a
// channel's feed URL carries its secret.
type FetchError struct{ Reason string }

func (e *FetchError) Error() string { return e.Reason }

// Fetch reads rawURL, sending etag and lastModified as validators.
func (f *Fetcher) Fetch(ctx context.Context, rawURL, etag, lastModified string) (Fetched, error) {
	if err := f.rule.CheckURL(rawURL); err != nil {
		return Fetched{}, &FetchError{"address refused: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return Fetched{}, &FetchError{"address refused"}
	}
	req.Header.Set("Accept", "text/calendar, */*;q=0.5")
	req.Header.Set("User-Agent", "frontdesk-channel-sync")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return Fetched{}, &FetchError{"no answer: " + bare(err)}
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return Fetched{NotModified: true, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}, nil
	case http.StatusOK:
	default:
		return Fetched{}, &FetchError{fmt.Sprintf("answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	if resp.ContentLength > f.maxBytes {
		return Fetched{}, &FetchError{fmt.Sprintf("larger than %d bytes", f.maxBytes)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return Fetched{}, &FetchError{"answer cut off: " + bare(err)}
	}
	if int64(len(body)) > f.maxBytes {
		return Fetched{}, &FetchError{fmt.Sprintf("larger than %d bytes", f.maxBytes)}
	}
	return Fetched{Body: body, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}, nil
}

// bare is an HTTP client's error without the URL it names.
func bare(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}
