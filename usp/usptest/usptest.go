// Package usptest starts what the USP tests of several packages share: the
// demo business's USP side on a real SQLite file with a fixed clock, and a
// local TLS server publishing platform profiles that the business is
// allowed to fetch.
//
// It is test support: only tests import it.
package usptest

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/mail"
	"frontdesk/pricing"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
)

// Now is the fixed clock's start: 05:00 in Denver on 2026-03-01.
var Now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Origin is the public origin the business's profile names.
const Origin = "https://stays.example"

// Platform profiles served by Platforms, by path.
var profiles = map[string]string{
	"/platform.json": `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.catalog.subscriptions":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/rest_common.json#/$defs/FeedSubscription","extends":"dev.usp-protocol.services.catalog"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}]}}}`,
	"/bookings-only.json": `{"usp":{"version":"2026-08-20","capabilities":{"dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/s","schema":"https://usp-protocol.dev/b.json"}]}}}`,
	"/newer.json":         `{"usp":{"version":"2030-01-01","capabilities":{}}}`,
}

// Platforms is a TLS server on loopback publishing platform profiles:
// /platform.json (catalog with feed subscriptions, and availability), /bookings-only.json,
// /newer.json (a version from the future) and extra documents a test adds;
// those under /cached/ say max-age=120, stale-if-error=1800.
// Any other path is 404.
type Platforms struct {
	*httptest.Server
	docs map[string]string
	hits map[string]*atomic.Int32
}

// NewPlatforms starts the server; extra adds or replaces documents, and
// a document under /redirect… answers with a redirect to /platform.json.
func NewPlatforms(t testing.TB, extra map[string]string) *Platforms {
	t.Helper()
	p := &Platforms{docs: map[string]string{}, hits: map[string]*atomic.Int32{}}
	for k, v := range profiles {
		p.docs[k] = v
	}
	for k, v := range extra {
		p.docs[k] = v
	}
	for k := range p.docs {
		p.hits[k] = &atomic.Int32{}
	}
	p.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := p.hits[r.URL.Path]; h != nil {
			h.Add(1)
		}
		doc, ok := p.docs[r.URL.Path]
		switch {
		case ok && doc == "redirect":
			http.Redirect(w, r, "/platform.json", http.StatusFound)
		case !ok:
			http.NotFound(w, r)
		default:
			if r.URL.Path == "/platform.json" {
				w.Header().Set("Cache-Control", "public, max-age=600")
			}
			if strings.HasPrefix(r.URL.Path, "/cached/") {
				w.Header().Set("Cache-Control", "max-age=120, stale-if-error=1800")
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, doc)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

// Hits counts the requests for path.
func (p *Platforms) Hits(path string) *atomic.Int32 { return p.hits[path] }

// Roots trusts the server's certificate.
func (p *Platforms) Roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.Certificate())
	return pool
}

// Business is a USP business on a real SQLite file in a temporary folder.
type Business struct {
	*usp.Business
	Config    config.Config
	Inventory *inventory.Inventory
	Clock     *clock.Fixed
	Store     store.Store
	Bookings  *direct.Service
	Path      string // the SQLite file, for reopening
}

// The platform every business of this package registers, with its API
// key.
const (
	PlatformName = "testplatform"
	APIKey       = "test-api-key"
)

// Bearer is the Authorization header of the registered platform.
const Bearer = "Bearer " + APIKey

// BookingConfig is what the command hands the reservation core of the
// file cfg.
func BookingConfig(cfg config.Config) direct.Config {
	return direct.Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}
}

// USPConfig is what the command hands the USP business side of the
// file cfg; profile fetches keep their defaults, as the test businesses
// are handed their fetcher.
func USPConfig(cfg config.Config) usp.Config {
	out := usp.Config{Portfolio: cfg.Portfolio, AllowPrivate: cfg.AllowPrivate(), Mode: cfg.USP.Mode}
	for _, p := range cfg.USP.Platforms {
		out.Platforms = append(out.Platforms, usp.Platform(p))
	}
	return out
}

// PublicOnly takes every registered platform off cfg, so that only the
// public methods are served.
func PublicOnly(cfg config.Config) config.Config {
	cfg.USP.Platforms = nil
	return cfg
}

// WithPlatform registers the test platform on cfg, alone.
func WithPlatform(cfg config.Config) config.Config {
	cfg.USP.Platforms = append([]config.USPPlatform(nil), config.USPPlatform{Name: PlatformName, APIKeyHashes: []string{usp.HashAPIKey(APIKey)}})
	return cfg
}

// NewBusiness builds the business from cfg with its clock at now.
// profiles nil builds a fetcher that trusts platforms (when given) and
// may fetch from loopback.
func NewBusiness(t testing.TB, cfg config.Config, now time.Time, platforms *Platforms, profiles *usp.Profiles) *Business {
	t.Helper()
	path := filepath.Join(t.TempDir(), "usp.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return On(t, cfg, st, clock.NewFixed(now), platforms, profiles, path)
}

// On builds the business on st: the reservation core, and the api_key
// authenticator of cfg's registered platforms (WithPlatform adds the test
// one). Without registered platforms only public methods are served.
// edit, when given, changes the options before the business is built.
func On(t testing.TB, cfg config.Config, st store.Store, clk *clock.Fixed, platforms *Platforms, profiles *usp.Profiles, path string, edit ...func(*usp.Options)) *Business {
	t.Helper()
	if profiles == nil {
		opts := usp.ProfileOptions{AllowPrivate: true, Clock: clk}
		if platforms != nil {
			opts.RootCAs = platforms.Roots()
		}
		profiles = usp.NewProfiles(opts)
	}
	inv := inventory.New(st)
	pricer := pricing.New(cfg.Portfolio, Origin)
	bookings := direct.New(direct.Options{
		Config: BookingConfig(cfg), Store: st, Pricer: pricer, Clock: clk, Rand: random.SeededBy(1), Mail: mail.NewDev(st, clk, nil),
	})
	opts := usp.Options{
		Config: USPConfig(cfg), Inventory: inv, Pricer: pricer, Clock: clk, Origin: Origin, Profiles: profiles,
		Store: st, Bookings: bookings.Core(),
	}
	if keys := usp.NewAPIKeys(opts.Config.Platforms); keys != nil {
		opts.Authenticator = usp.Chain{keys, usp.StaffSessions{Check: staffToken}}
	}
	for _, e := range edit {
		e(&opts)
	}
	b, err := usp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &Business{Business: b, Config: cfg, Inventory: inv, Clock: clk, Store: st, Bookings: bookings, Path: path}
}

// StaffToken is the staff session token the test businesses accept, for
// user "desk".
const StaffToken = "staff-token"

func staffToken(_ context.Context, token string) (string, error) {
	if token == StaffToken {
		return "desk", nil
	}
	return "", errors.New("no such session")
}

// Unpaid takes every unit's payment terms out of cfg (paid at the
// property), for tests of what a booking does apart from its payment:
// the demo's shuttle is paid when booking and its studio takes a deposit.
func Unpaid(cfg config.Config) config.Config {
	locs := append([]business.Location(nil), cfg.Locations...)
	for i := range locs {
		units := append([]business.Unit(nil), locs[i].Units...)
		for j := range units {
			units[j].Policy = business.Policy{}
		}
		locs[i].Units = units
	}
	cfg.Locations = locs
	return cfg
}

// Manual sets every unit of cfg to confirmation_mode manual, for tests of
// the staff decision on a service (the demo shuttle) that is auto.
func Manual(cfg config.Config) config.Config {
	locs := append([]business.Location(nil), cfg.Locations...)
	for i := range locs {
		units := append([]business.Unit(nil), locs[i].Units...)
		for j := range units {
			units[j].ConfirmationMode = business.ConfirmManual
		}
		locs[i].Units = units
	}
	cfg.Locations = locs
	return cfg
}
