package usp

import (
	"container/list"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"frontdesk/internal/clock"
)

// Fetch bounds for platform profiles (§8.2.3). The floor of the cache
// lifetime is the specification's; the rest are defaults the config may
// change.
const (
	profileTTLFloor     = 60 * time.Second
	defaultProfileTTL   = time.Hour
	defaultCacheEntries = 1024
	defaultProfileBytes = 256 << 10
	connectTimeout      = 3 * time.Second
	fetchTimeout        = 5 * time.Second
)

// PlatformProfile is the part of a platform profile negotiation reads.
type PlatformProfile struct {
	Version      string                                    `json:"version"`
	Capabilities map[Capability][]struct{ Version string } `json:"capabilities"`
	// Keys and SigningKeys are the root members that verify the
	// platform's request signatures (nil when absent); WebhookURL is
	// where its webhooks go (§8.2.3).
	Keys        []json.RawMessage `json:"-"`
	SigningKeys []json.RawMessage `json:"-"`
	WebhookURL  string            `json:"-"`
}

// ProfileOptions configure the platform-profile fetcher.
type ProfileOptions struct {
	// AllowPrivate lets profiles be fetched from loopback, for
	// development (allow_private_profiles). Every other special-use
	// address is refused in every mode, after name resolution, at connect
	// time (DialRule), so DNS rebinding cannot reach one.
	AllowPrivate bool
	MaxBytes     int64         // 0: 256 KiB
	Entries      int           // cache size; 0: 1024
	MaxTTL       time.Duration // 0: one hour
	// RootCAs, when set, replaces the system roots; tests serve profiles
	// over TLS on loopback.
	RootCAs *x509.CertPool
	Clock   clock.Clock
}

// Profiles fetches platform profiles and keeps them in a fixed-size cache
// for the lifetime their Cache-Control gives (at least 60 seconds, at
// most MaxTTL). Failures are cached for the floor too, so a caller
// repeating an unreachable URI costs one fetch a minute.
type Profiles struct {
	opts   ProfileOptions
	client *http.Client

	mu      sync.Mutex
	entries map[string]*list.Element
	order   *list.List         // front: most recently used
	flights map[string]*flight // fetches under way, by URI
}

// flight is one fetch that every concurrent caller for its URI waits on,
// so a burst of calls naming a new profile costs one request.
type flight struct {
	done    chan struct{}
	result  *cached
	waiting atomic.Int32 // callers waiting besides the one fetching
}

type cached struct {
	uri     string
	profile *PlatformProfile
	err     *Error
	expires time.Time
}

// NewProfiles returns a fetcher.
func NewProfiles(opts ProfileOptions) *Profiles {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultProfileBytes
	}
	if opts.Entries <= 0 {
		opts.Entries = defaultCacheEntries
	}
	if opts.MaxTTL <= 0 {
		opts.MaxTTL = defaultProfileTTL
	}
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	transport := DialRule{Loopback: opts.AllowPrivate}.transport(opts.RootCAs, fetchTimeout)
	return &Profiles{
		opts: opts,
		client: &http.Client{
			Transport: transport,
			Timeout:   fetchTimeout,
			// Profiles are never fetched through a redirect (§8.2.3).
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		entries: map[string]*list.Element{},
		order:   list.New(),
		flights: map[string]*flight{},
	}
}

// Get returns the platform profile at uri, from the cache when fresh.
// Errors are *Error with invalid_profile_url, profile_unreachable or
// profile_malformed.
func (p *Profiles) Get(ctx context.Context, uri string) (*PlatformProfile, error) {
	c, err := p.get(ctx, uri)
	if err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, c.err
	}
	return c.profile, nil
}

func (p *Profiles) get(ctx context.Context, uri string) (*cached, error) {
	now := p.opts.Clock.Now()
	p.mu.Lock()
	if c, ok := p.lookupLocked(uri, now); ok {
		p.mu.Unlock()
		return c, nil
	}
	if f, ok := p.flights[uri]; ok {
		p.mu.Unlock()
		f.waiting.Add(1)
		select {
		case <-f.done:
			return f.result, nil
		case <-ctx.Done():
			return nil, &Error{Code: CodeProfileUnreachable, Message: "The platform profile could not be fetched in time.", Err: ctx.Err()}
		}
	}
	f := &flight{done: make(chan struct{})}
	p.flights[uri] = f
	p.mu.Unlock()

	// The fetch outlives a caller that gives up, so the callers waiting
	// on it and the cache still get its answer; fetchTimeout bounds it.
	profile, ttl, ferr := p.fetch(context.WithoutCancel(ctx), uri)
	f.result = &cached{uri: uri, profile: profile, err: ferr, expires: now.Add(ttl)}
	p.mu.Lock()
	p.storeLocked(f.result)
	delete(p.flights, uri)
	p.mu.Unlock()
	close(f.done)
	return f.result, nil
}

func (p *Profiles) lookupLocked(uri string, now time.Time) (*cached, bool) {
	el, ok := p.entries[uri]
	if !ok {
		return nil, false
	}
	c := el.Value.(*cached)
	if !now.Before(c.expires) {
		p.order.Remove(el)
		delete(p.entries, uri)
		return nil, false
	}
	p.order.MoveToFront(el)
	return c, true
}

func (p *Profiles) storeLocked(c *cached) {
	if el, ok := p.entries[c.uri]; ok {
		p.order.Remove(el)
	}
	p.entries[c.uri] = p.order.PushFront(c)
	for p.order.Len() > p.opts.Entries {
		last := p.order.Back()
		p.order.Remove(last)
		delete(p.entries, last.Value.(*cached).uri)
	}
}

// fetch reads one profile. The lifetime it returns applies to failures as
// well as successes.
func (p *Profiles) fetch(ctx context.Context, uri string) (*PlatformProfile, time.Duration, *Error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return nil, profileTTLFloor, fail(CodeInvalidProfileURL, "The profile URI must be an absolute https URL.")
	}
	if err := (DialRule{Loopback: p.opts.AllowPrivate}).CheckHost(u.Hostname()); err != nil {
		return nil, profileTTLFloor, &Error{Code: CodeInvalidProfileURL, Message: "The profile URI names a special-use address, which this business does not fetch.", Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, profileTTLFloor, fail(CodeInvalidProfileURL, "The profile URI must be an absolute https URL.")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		if errors.Is(err, errSpecialAddress) {
			return nil, profileTTLFloor, &Error{Code: CodeInvalidProfileURL, Message: "The profile URI resolves to a special-use address, which this business does not fetch.", Err: err}
		}
		return nil, profileTTLFloor, &Error{Code: CodeProfileUnreachable, Message: "The platform profile could not be fetched.", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, profileTTLFloor, fail(CodeProfileUnreachable, "Fetching the platform profile answered HTTP %d.", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.opts.MaxBytes+1))
	if err != nil {
		return nil, profileTTLFloor, &Error{Code: CodeProfileUnreachable, Message: "The platform profile could not be read.", Err: err}
	}
	if int64(len(body)) > p.opts.MaxBytes {
		return nil, profileTTLFloor, fail(CodeProfileMalformed, "The platform profile is larger than %d bytes.", p.opts.MaxBytes)
	}
	profile, perr := parsePlatformProfile(body)
	if perr != nil {
		return nil, profileTTLFloor, perr
	}
	return profile, p.lifetime(resp.Header.Get("Cache-Control")), nil
}

// lifetime reads max-age from Cache-Control, clamped to [60 s, MaxTTL].
// A missing or unusable header gets the floor.
func (p *Profiles) lifetime(cacheControl string) time.Duration {
	ttl := profileTTLFloor
	for _, d := range strings.Split(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		if strings.EqualFold(name, "max-age") {
			if n, err := strconv.Atoi(strings.Trim(value, `"`)); err == nil {
				ttl = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(ttl, profileTTLFloor), p.opts.MaxTTL)
}

var (
	versionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// Reverse-domain names; labels may hold hyphens, as usp-protocol does.
	capabilityPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$`)
)

// parsePlatformProfile checks what schemas/profile.json requires of the
// fields negotiation reads: a usp object with a dated version and a map of
// reverse-domain capabilities to dated entries.
func parsePlatformProfile(body []byte) (*PlatformProfile, *Error) {
	var doc struct {
		USP *struct {
			Version      string                     `json:"version"`
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"usp"`
		Keys        []json.RawMessage `json:"keys"`
		SigningKeys []json.RawMessage `json:"signing_keys"`
		WebhookURL  string            `json:"webhook_url"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, &Error{Code: CodeProfileMalformed, Message: "The platform profile is not a JSON object.", Err: err}
	}
	switch {
	case doc.USP == nil:
		return nil, fail(CodeProfileMalformed, "The platform profile has no usp object.")
	case !versionPattern.MatchString(doc.USP.Version):
		return nil, fail(CodeProfileMalformed, "The platform profile's usp.version is not a YYYY-MM-DD date.")
	case doc.USP.Capabilities == nil:
		return nil, fail(CodeProfileMalformed, "The platform profile has no usp.capabilities.")
	}
	out := &PlatformProfile{Version: doc.USP.Version, Capabilities: map[Capability][]struct{ Version string }{},
		Keys: doc.Keys, SigningKeys: doc.SigningKeys, WebhookURL: doc.WebhookURL}
	for name, raw := range doc.USP.Capabilities {
		var entries []struct {
			Version string `json:"version"`
		}
		if !capabilityPattern.MatchString(name) || json.Unmarshal(raw, &entries) != nil {
			return nil, fail(CodeProfileMalformed, "The platform profile's capability %q is not a reverse-domain name with a list of entries.", name)
		}
		for _, e := range entries {
			if !versionPattern.MatchString(e.Version) {
				return nil, fail(CodeProfileMalformed, "The platform profile's capability %q has an entry without a YYYY-MM-DD version.", name)
			}
			out.Capabilities[Capability(name)] = append(out.Capabilities[Capability(name)], struct{ Version string }{e.Version})
		}
	}
	return out, nil
}
