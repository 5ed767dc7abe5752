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
	"frontdesk/internal/outbound"
	"frontdesk/store"
)

// Fetch bounds for platform profiles (§8.2.3). The floor of the cache
// lifetime is the specification's; the rest are defaults the config may
// change.
const (
	profileTTLFloor     = 60 * time.Second
	defaultProfileTTL   = time.Hour
	defaultCacheEntries = 1024
	defaultProfileBytes = 256 << 10
	fetchTimeout        = 5 * time.Second
	defaultMaxStale     = 6 * time.Hour
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
	// time (outbound.Rule), so DNS rebinding cannot reach one.
	AllowPrivate bool
	MaxBytes     int64         // 0: 256 KiB
	Entries      int           // cache size; 0: 1024
	MaxTTL       time.Duration // 0: one hour
	// MaxStale bounds how long a fetched profile is still served after its
	// lifetime while refetching it fails as unreachable (the platform's
	// host is down): the smaller of this and the profile's
	// stale-if-error (RFC 5861), when it gives one. 0: six hours;
	// negative: never.
	MaxStale time.Duration
	// RootCAs, when set, replaces the system roots; tests serve profiles
	// over TLS on loopback, and the config may add a CA file
	// (ConfiguredProfiles).
	RootCAs *x509.CertPool
	// Pins, when set, holds the profiles the owner pinned with
	// `frontdesk usp platform add`: a pinned URI is never fetched.
	Pins  store.Records
	Clock clock.Clock
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
	expires time.Time // fresh until
	// staleUntil is how long a profile may still be served past expires
	// while its host cannot be reached; zero for failures and pins.
	staleUntil time.Time
	pinned     bool
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
	if opts.MaxStale == 0 {
		opts.MaxStale = defaultMaxStale
	}
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	transport := outbound.Rule{Loopback: opts.AllowPrivate}.Transport(opts.RootCAs, fetchTimeout)
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
	old := p.lookupLocked(uri)
	if old != nil && now.Before(old.expires) {
		p.mu.Unlock()
		if old.pinned || old.err == nil {
			return old, nil
		}
		// A failure is cached for a minute, but a pin the owner makes
		// meanwhile (often because the fetch failed, and from another
		// process) takes effect at once.
		if c := p.pinned(ctx, uri, now); c != nil {
			p.mu.Lock()
			p.storeLocked(c)
			p.mu.Unlock()
			return c, nil
		}
		return old, nil
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
	f.result = p.refresh(context.WithoutCancel(ctx), uri, now, old)
	p.mu.Lock()
	p.storeLocked(f.result)
	delete(p.flights, uri)
	p.mu.Unlock()
	close(f.done)
	return f.result, nil
}

// refresh reads uri's profile anew: the pinned document when there is
// one, else a fetch. A fetch that cannot reach the host keeps serving the
// expired profile old until its stale bound, retrying once a minute.
func (p *Profiles) refresh(ctx context.Context, uri string, now time.Time, old *cached) *cached {
	if c := p.pinned(ctx, uri, now); c != nil {
		return c
	}
	body, header, ferr := p.fetchBody(ctx, uri)
	if ferr != nil {
		if ferr.Code == CodeProfileUnreachable && old != nil && old.profile != nil && now.Before(old.staleUntil) {
			stale := *old
			stale.expires = now.Add(profileTTLFloor)
			if old.staleUntil.Before(stale.expires) {
				stale.expires = old.staleUntil
			}
			return &stale
		}
		return &cached{uri: uri, err: ferr, expires: now.Add(profileTTLFloor)}
	}
	profile, perr := parsePlatformProfile(body)
	if perr != nil {
		return &cached{uri: uri, err: perr, expires: now.Add(profileTTLFloor)}
	}
	ttl, stale := p.freshness(header, now)
	c := &cached{uri: uri, profile: profile, expires: now.Add(ttl)}
	if stale > 0 {
		c.staleUntil = c.expires.Add(stale)
	}
	return c
}

// pinned returns uri's pinned profile, kept for MaxTTL before the store
// is read again; nil when it is not pinned (or the store cannot say, and
// then the profile is fetched as any other).
func (p *Profiles) pinned(ctx context.Context, uri string, now time.Time) *cached {
	if p.opts.Pins == nil {
		return nil
	}
	rec, err := p.opts.Pins.Get(ctx, kindPinnedProfile, uri)
	if err != nil {
		return nil
	}
	var pin Pin
	if json.Unmarshal(rec.Value, &pin) != nil {
		return nil
	}
	profile, perr := parsePlatformProfile(pin.Document)
	if perr != nil {
		return &cached{uri: uri, err: perr, expires: now.Add(profileTTLFloor), pinned: true}
	}
	return &cached{uri: uri, profile: profile, expires: now.Add(p.opts.MaxTTL), pinned: true}
}

func (p *Profiles) lookupLocked(uri string) *cached {
	el, ok := p.entries[uri]
	if !ok {
		return nil
	}
	p.order.MoveToFront(el)
	return el.Value.(*cached)
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

// fetchBody reads one profile document over https, under the outbound
// rule, with the response headers that say how long it may be kept.
func (p *Profiles) fetchBody(ctx context.Context, uri string) ([]byte, http.Header, *Error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return nil, nil, fail(CodeInvalidProfileURL, "The profile URI must be an absolute https URL.")
	}
	if err := (outbound.Rule{Loopback: p.opts.AllowPrivate}).CheckHost(u.Hostname()); err != nil {
		return nil, nil, &Error{Code: CodeInvalidProfileURL, Message: "The profile URI names a special-use address, which this business does not fetch.", Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, fail(CodeInvalidProfileURL, "The profile URI must be an absolute https URL.")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		if errors.Is(err, outbound.ErrSpecialAddress) {
			return nil, nil, &Error{Code: CodeInvalidProfileURL, Message: "The profile URI resolves to a special-use address, which this business does not fetch.", Err: err}
		}
		return nil, nil, &Error{Code: CodeProfileUnreachable, Message: "The platform profile could not be fetched.", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fail(CodeProfileUnreachable, "Fetching the platform profile answered HTTP %d.", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.opts.MaxBytes+1))
	if err != nil {
		return nil, nil, &Error{Code: CodeProfileUnreachable, Message: "The platform profile could not be read.", Err: err}
	}
	if int64(len(body)) > p.opts.MaxBytes {
		return nil, nil, fail(CodeProfileMalformed, "The platform profile is larger than %d bytes.", p.opts.MaxBytes)
	}
	return body, resp.Header, nil
}

// Fetch reads and checks the profile at uri now, bypassing the cache and
// any pin, and returns the document as served: what `frontdesk usp
// platform add` pins.
func (p *Profiles) Fetch(ctx context.Context, uri string) ([]byte, error) {
	body, _, ferr := p.fetchBody(ctx, uri)
	if ferr != nil {
		return nil, ferr
	}
	if _, perr := parsePlatformProfile(body); perr != nil {
		return nil, perr
	}
	return body, nil
}

// freshness reads how long a profile may be kept from its response's
// caching headers (RFC 9111): Cache-Control max-age, else Expires less
// Date, clamped to [60 s, MaxTTL]; no-store and no-cache keep it the 60 s
// floor §8.2.3 allows. stale is how long it may be served past that
// while its host is down: stale-if-error (RFC 5861) when given, at most
// MaxStale; must-revalidate forbids it.
func (p *Profiles) freshness(h http.Header, now time.Time) (ttl, stale time.Duration) {
	ttl = -1
	stale = p.opts.MaxStale
	for _, d := range strings.Split(h.Get("Cache-Control"), ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		n, err := strconv.Atoi(strings.Trim(value, `"`))
		switch strings.ToLower(name) {
		case "max-age":
			if err == nil && ttl < 0 {
				ttl = time.Duration(n) * time.Second
			}
		case "no-store", "no-cache":
			ttl = 0
		case "stale-if-error":
			if err == nil {
				stale = min(stale, time.Duration(n)*time.Second)
			}
		case "must-revalidate", "proxy-revalidate":
			stale = 0
		}
	}
	if ttl < 0 {
		if exp, err := http.ParseTime(h.Get("Expires")); err == nil {
			date, err := http.ParseTime(h.Get("Date"))
			if err != nil {
				date = now
			}
			ttl = exp.Sub(date)
		}
	}
	return min(max(ttl, profileTTLFloor), p.opts.MaxTTL), max(stale, 0)
}

// lifetime is the fresh lifetime Cache-Control alone gives.
func (p *Profiles) lifetime(cacheControl string) time.Duration {
	ttl, _ := p.freshness(http.Header{"Cache-Control": {cacheControl}}, time.Time{})
	return ttl
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
