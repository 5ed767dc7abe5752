package usp

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/pricing"
)

const fullPlatform = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification#3","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-06-15","spec":"https://usp-protocol.dev/specification#4","schema":"https://usp-protocol.dev/schemas/services/availability.json"},{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification#4","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification#5","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// platformServer serves platform profiles over TLS on loopback and
// counts the fetches of each path.
type platformServer struct {
	*httptest.Server
	hits map[string]*atomic.Int32
}

func newPlatformServer(t *testing.T) *platformServer {
	p := &platformServer{hits: map[string]*atomic.Int32{}}
	docs := map[string]string{
		"/full.json":        fullPlatform,
		"/bookings.json":    `{"usp":{"version":"2026-08-20","capabilities":{"dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/b.json"}]}}}`,
		"/none.json":        `{"usp":{"version":"2026-08-20","capabilities":{}}}`,
		"/old.json":         `{"usp":{"version":"2026-06-15","capabilities":{"dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/a.json"}]}}}`,
		"/catalog-old.json": `{"usp":{"version":"2026-08-20","capabilities":{"dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/a.json"}],"dev.usp-protocol.services.catalog":[{"version":"2025-01-01","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/c.json"}]}}}`,
		"/newer.json":       `{"usp":{"version":"2027-01-01","capabilities":{"dev.usp-protocol.services.catalog":[{"version":"2027-01-01","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/c.json"}]}}}`,
		"/not-json.json":    `<html>`,
		"/no-usp.json":      `{"capabilities":{}}`,
		"/bad-name.json":    `{"usp":{"version":"2026-08-20","capabilities":{"Catalog":[{"version":"2026-08-20"}]}}}`,
		"/huge.json":        `{"usp":{"version":"2026-08-20","capabilities":{}},"pad":"` + strings.Repeat("x", 300<<10) + `"}`,
	}
	for path := range docs {
		p.hits[path] = &atomic.Int32{}
	}
	for _, path := range []string{"/missing.json", "/redirect.json"} {
		p.hits[path] = &atomic.Int32{}
	}
	p.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := p.hits[r.URL.Path]; h != nil {
			h.Add(1)
		}
		switch r.URL.Path {
		case "/redirect.json":
			http.Redirect(w, r, "/full.json", http.StatusFound)
			return
		case "/full.json":
			w.Header().Set("Cache-Control", "public, max-age=600")
		}
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, doc)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *platformServer) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.Certificate())
	return pool
}

func TestNegotiation(t *testing.T) {
	srv := newPlatformServer(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFixed(now)
	profiles := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: srv.roots(), Clock: clk})
	f := newFixture(t, config.Demo(), now, profiles)
	ctx := context.Background()
	in := QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-02"}
	call := func(path string) (*QueryResult, error) {
		return f.b.QueryAvailability(ctx, Call{Profile: srv.URL + path}, in)
	}

	res, err := call("/full.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.USP.Capabilities[CapabilityAvailability]; len(got) != 1 || got[0].Version != Version || len(res.USP.Capabilities) != 1 || len(res.Slots) != 16 {
		t.Fatalf("usp = %+v, %d slots", res.USP, len(res.Slots))
	}
	for _, path := range []string{"/bookings.json", "/none.json", "/catalog-old.json"} {
		res, err := call(path)
		if path == "/catalog-old.json" {
			// Availability is shared; catalog, at no common version, is not.
			if err != nil || len(res.Messages) != 0 {
				t.Fatalf("%s: %+v %v", path, res, err)
			}
			list, err := f.b.ListServices(ctx, Call{Profile: srv.URL + path}, ListRequest{})
			if err != nil || len(list.Messages) != 1 || list.Messages[0].Code != "capabilities_incompatible" || len(list.Services) != 0 {
				t.Fatalf("catalog at no common version: %+v %v", list, err)
			}
			continue
		}
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Code != "capabilities_incompatible" || res.Messages[0].Type != "error" || len(res.Slots) != 0 {
			t.Fatalf("%s: want a capabilities_incompatible outcome, got %+v %v", path, res, err)
		}
	}
	if res, err := call("/old.json"); err != nil || res.USP.Version != "2026-06-15" {
		t.Fatalf("older platform: %+v %v", res, err)
	}
	srv.hits["/full.json"].Store(0)
	protocol := map[string]Code{
		"/newer.json":    CodeVersionUnsupported,
		"/not-json.json": CodeProfileMalformed,
		"/no-usp.json":   CodeProfileMalformed,
		"/bad-name.json": CodeProfileMalformed,
		"/huge.json":     CodeProfileMalformed,
		"/missing.json":  CodeProfileUnreachable,
		"/redirect.json": CodeProfileUnreachable,
	}
	for path, want := range protocol {
		if _, err := call(path); protocolCode(t, err) != want {
			t.Errorf("%s: %v, want %s", path, err, want)
		}
	}
	if srv.hits["/full.json"].Load() != 0 {
		t.Fatal("a redirect was followed")
	}
	for _, bad := range []string{"http://" + strings.TrimPrefix(srv.URL, "https://") + "/full.json", "not a url", "https:///x", "ftp://example.com/p.json"} {
		if _, err := f.b.QueryAvailability(ctx, Call{Profile: bad}, in); protocolCode(t, err) != CodeInvalidProfileURL {
			t.Errorf("%q: %v", bad, err)
		}
	}

	// Cached for the profile's max-age; failures for the one-minute floor.
	srv.hits["/full.json"].Store(0)
	srv.hits["/missing.json"].Store(0)
	clk.Advance(59 * time.Second)
	call("/full.json")
	call("/missing.json")
	if srv.hits["/full.json"].Load() != 0 || srv.hits["/missing.json"].Load() != 0 {
		t.Fatal("a fresh cache entry was fetched again")
	}
	clk.Advance(2 * time.Second)
	call("/missing.json")
	call("/full.json")
	if srv.hits["/missing.json"].Load() != 1 || srv.hits["/full.json"].Load() != 0 {
		t.Fatalf("after 61 s: missing fetched %d times, full %d", srv.hits["/missing.json"].Load(), srv.hits["/full.json"].Load())
	}
	clk.Advance(600 * time.Second)
	call("/full.json")
	if srv.hits["/full.json"].Load() != 1 {
		t.Fatal("an expired profile was not fetched again")
	}
}

func TestProfileCacheIsBounded(t *testing.T) {
	srv := newPlatformServer(t)
	clk := clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	p := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: srv.roots(), Clock: clk, Entries: 2})
	ctx := context.Background()
	for _, path := range []string{"/full.json", "/old.json", "/none.json", "/full.json"} {
		if _, err := p.Get(ctx, srv.URL+path); err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.hits["/full.json"].Load(); got != 2 {
		t.Fatalf("the least recently used entry was kept: %d fetches, want 2", got)
	}
	if len(p.entries) != 2 || p.order.Len() != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(p.entries))
	}
}

// With the switch off, a profile on loopback is refused before any
// request is sent: by the literal address, and by the resolved address of
// a name.
func TestPrivateProfileAddressRefused(t *testing.T) {
	srv := newPlatformServer(t)
	clk := clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	off := NewProfiles(ProfileOptions{RootCAs: srv.roots(), Clock: clk})
	ctx := context.Background()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, uri := range []string{srv.URL + "/full.json", "https://localhost" + port + "/full.json", "https://[::ffff:127.0.0.1]" + port + "/full.json", "https://169.254.169.254/latest"} {
		_, err := off.Get(ctx, uri)
		if protocolCode(t, err) != CodeInvalidProfileURL {
			t.Errorf("%s: %v, want invalid_profile_url", uri, err)
		}
	}
	if got := srv.hits["/full.json"].Load(); got != 0 {
		t.Fatalf("the private address was fetched %d times", got)
	}
	on := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: srv.roots(), Clock: clk})
	if _, err := on.Get(ctx, srv.URL+"/full.json"); err != nil {
		t.Fatalf("switch on: %v", err)
	}
}

func TestLifetimeFromCacheControl(t *testing.T) {
	p := NewProfiles(ProfileOptions{MaxTTL: time.Hour})
	for header, want := range map[string]time.Duration{
		"public, max-age=300": 300 * time.Second, "max-age=5": time.Minute, "": time.Minute,
		"public, max-age=86400": time.Hour, "no-store": time.Minute, "max-age=abc": time.Minute,
	} {
		if got := p.lifetime(header); got != want {
			t.Errorf("lifetime(%q) = %v, want %v", header, got, want)
		}
	}
}

// TestFreshnessFromCachingHeaders: a profile's lifetime comes from
// Cache-Control max-age, else Expires less Date; how long it may be
// served stale while its host is down from stale-if-error, bounded by
// MaxStale, and not at all under must-revalidate.
func TestFreshnessFromCachingHeaders(t *testing.T) {
	p := NewProfiles(ProfileOptions{MaxTTL: time.Hour, MaxStale: 2 * time.Hour})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	for _, c := range []struct {
		name       string
		header     http.Header
		ttl, stale time.Duration
	}{
		{"max-age", http.Header{"Cache-Control": {"max-age=300"}}, 5 * time.Minute, 2 * time.Hour},
		{"expires less date", http.Header{"Expires": {now.Add(20 * time.Minute).Format(http.TimeFormat)}, "Date": {date}}, 20 * time.Minute, 2 * time.Hour},
		{"max-age wins over expires", http.Header{"Cache-Control": {"max-age=120"}, "Expires": {now.Add(20 * time.Minute).Format(http.TimeFormat)}, "Date": {date}}, 2 * time.Minute, 2 * time.Hour},
		{"stale-if-error", http.Header{"Cache-Control": {"max-age=120, stale-if-error=600"}}, 2 * time.Minute, 10 * time.Minute},
		{"stale-if-error past the bound", http.Header{"Cache-Control": {"max-age=120, stale-if-error=86400"}}, 2 * time.Minute, 2 * time.Hour},
		{"must-revalidate", http.Header{"Cache-Control": {"max-age=120, must-revalidate"}}, 2 * time.Minute, 0},
		{"no-store", http.Header{"Cache-Control": {"no-store"}}, time.Minute, 2 * time.Hour},
		{"nothing", http.Header{}, time.Minute, 2 * time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			ttl, stale := p.freshness(c.header, now)
			if ttl != c.ttl || stale != c.stale {
				t.Fatalf("freshness = %v, %v; want %v, %v", ttl, stale, c.ttl, c.stale)
			}
		})
	}
}

// Concurrent calls naming one new profile share one fetch.
func TestConcurrentCallsShareOneFetch(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, fullPlatform)
	}))
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	p := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: roots, Clock: clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))})
	const callers = 8
	errs := make(chan error, callers)
	for range callers {
		go func() {
			_, err := p.Get(context.Background(), srv.URL+"/p.json")
			errs <- err
		}()
	}
	// Wait until every caller has either reached the server or is
	// waiting on a fetch under way.
	for {
		p.mu.Lock()
		waiting := int32(0)
		if f := p.flights[srv.URL+"/p.json"]; f != nil {
			waiting = f.waiting.Load()
		}
		p.mu.Unlock()
		if hits.Load()+waiting == callers {
			break
		}
		runtime.Gosched()
	}
	close(release)
	for range callers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := hits.Load(); got != 1 {
		t.Fatalf("%d fetches for %d concurrent callers, want 1", got, callers)
	}
}

// TestOutboundRuleAppliesToTheAddressDialled: a name that resolves to
// loopback passes the URL check (it is a name) and is refused when its
// address is dialled, in production; in development the metadata address,
// numbers and private addresses are still refused.
func TestOutboundRuleAppliesToTheAddressDialled(t *testing.T) {
	srv := newPlatformServer(t)
	clk := clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	prod := NewProfiles(ProfileOptions{RootCAs: srv.roots(), Clock: clk})
	if _, err := prod.Get(context.Background(), "https://localhost"+port+"/full.json"); protocolCode(t, err) != CodeInvalidProfileURL {
		t.Fatalf("localhost in production: %v, want invalid_profile_url", err)
	}
	if got := srv.hits["/full.json"].Load(); got != 0 {
		t.Fatalf("a loopback address was fetched %d times in production", got)
	}
	dev := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: srv.roots(), Clock: clk})
	for _, uri := range []string{"https://169.254.169.254/latest", "https://[::ffff:169.254.169.254]/latest", "https://0x7f000001" + port + "/full.json", "https://10.0.0.8/p.json"} {
		if _, err := dev.Get(context.Background(), uri); protocolCode(t, err) != CodeInvalidProfileURL {
			t.Errorf("%s in development: %v, want invalid_profile_url", uri, err)
		}
	}
	if _, err := dev.Get(context.Background(), srv.URL+"/full.json"); err != nil {
		t.Fatalf("loopback in development: %v", err)
	}
}

// TestOutboundSwitchReachesProfiles: [outbound] allow_private alone, the
// one development switch, lets the business fetch a platform profile on
// loopback; without it the same fetch is refused.
func TestOutboundSwitchReachesProfiles(t *testing.T) {
	srv := newPlatformServer(t)
	for _, on := range []bool{false, true} {
		cfg := config.Demo()
		cfg.Outbound.AllowPrivate, cfg.USP.AllowPrivateProfiles, cfg.ORP.FetchPrivateAddresses = on, false, false
		b, err := New(Options{Config: Config{Portfolio: cfg.Portfolio, AllowPrivate: cfg.AllowPrivate()}, Pricer: pricing.New(cfg.Portfolio, "https://stays.example"), Origin: "https://stays.example",
			ProfileRootCAs: srv.roots(), Clock: clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.profiles.Get(context.Background(), srv.URL+"/full.json")
		if got := err == nil; got != on {
			t.Errorf("allow_private = %v: profile fetched = %v (%v)", on, got, err)
		}
	}
}
