package usp

import (
	"context"
	"crypto/x509"
	"log/slog"
	"time"

	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/store"
)

// Options configure a Business.
type Options struct {
	Config    config.Config
	Inventory *inventory.Inventory
	Pricer    *pricing.Pricer
	Clock     clock.Clock
	// Origin is the public origin the profile's endpoints are under, such
	// as "https://book.example.com".
	Origin string
	// Profiles fetches platform profiles; nil builds one from Config.USP.
	Profiles *Profiles
	// ProfileRootCAs, when set, replaces the system roots of the profile
	// fetcher built from Config.USP: end-to-end tests serve platform
	// profiles with their own certificate.
	ProfileRootCAs *x509.CertPool
	// Authenticator checks privileged calls; nil refuses them all.
	Authenticator Authenticator
	// Store keeps identity bindings, idempotency records and the
	// reservations holds and bookings are; nil refuses privileged calls.
	Store store.Store
	// Bookings is the reservation core USP holds and bookings go through.
	Bookings *booking.Service
	// Keys are the public signing keys the profile publishes.
	Keys   []SigningKey
	Logger *slog.Logger
}

// Business is the business side of USP: one value serves both bindings.
type Business struct {
	cfg      config.Config
	inv      *inventory.Inventory
	clock    clock.Clock
	origin   string
	profiles *Profiles
	auth     Authenticator
	keys     []SigningKey
	log      *slog.Logger
	catalog  catalog
	st       store.Store
	bindings *Bindings
	bookings *booking.Service
	pricer   *pricing.Pricer
}

// New builds the business side from the config. It fails only when the
// config's catalog cannot be priced, which Validate prevents.
func New(opts Options) (*Business, error) {
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Profiles == nil {
		u := opts.Config.USP
		opts.Profiles = NewProfiles(ProfileOptions{
			AllowPrivate: u.AllowPrivateProfiles,
			MaxBytes:     int64(u.ProfileMaxBytes),
			Entries:      u.ProfileCacheEntries,
			MaxTTL:       time.Duration(u.ProfileCacheMaxSeconds) * time.Second,
			Clock:        opts.Clock,
			RootCAs:      opts.ProfileRootCAs,
		})
	}
	cat, err := buildCatalog(opts.Config, opts.Pricer)
	if err != nil {
		return nil, err
	}
	return &Business{
		cfg: opts.Config, inv: opts.Inventory, clock: opts.Clock, origin: opts.Origin,
		profiles: opts.Profiles, auth: opts.Authenticator, keys: opts.Keys,
		log: opts.Logger.With("component", "usp"), catalog: cat,
		st: opts.Store, bindings: NewBindings(opts.Store), bookings: opts.Bookings, pricer: opts.Pricer,
	}, nil
}

// begin runs what every operation shares before its own work: access
// control and negotiation with the caller's platform profile. A non-nil
// outcome is the capabilities_incompatible business outcome; the
// operation then answers its empty shape with that message.
func (b *Business) begin(ctx context.Context, name string, call Call) (Meta, Principal, *Message, error) {
	m, ok := MethodNamed(name)
	if !ok {
		return Meta{}, Principal{}, nil, &Error{Code: CodeServerError, Message: "The business could not process the request."}
	}
	if m.Access != Public && !b.privileged() {
		return Meta{}, Principal{}, nil, fail(CodeAuthenticationRequired, "%s needs an authenticated caller, and this business accepts none.", m.Name)
	}
	p, err := b.authorize(ctx, m, call)
	if err != nil {
		return Meta{}, Principal{}, nil, err
	}
	meta, outcome, err := b.negotiate(ctx, m.Capability, call.Profile)
	return meta, p, outcome, err
}

// negotiate computes the usp object of a response (§8.3, §8.4). Without a
// profile URI the business's own capability is active. With one, the
// platform's version may not be newer than the business's; the active
// capability is the shared one at the highest version both list.
func (b *Business) negotiate(ctx context.Context, cap Capability, profileURI string) (Meta, *Message, error) {
	own := b.capabilities()
	if profileURI == "" {
		return Meta{Version: Version, Capabilities: map[Capability][]CapabilityVersion{cap: {{Version: own[cap][0].Version}}}}, nil, nil
	}
	platform, err := b.profiles.Get(ctx, profileURI)
	if err != nil {
		return Meta{}, nil, err
	}
	if platform.Version > Version {
		return Meta{}, nil, fail(CodeVersionUnsupported, "This business supports USP up to version %s; the platform profile asks for %s.", Version, platform.Version)
	}
	meta := Meta{Version: platform.Version}
	shared := map[Capability]string{}
	for name, entries := range own {
		if v := highestCommon(entries, platform.Capabilities[name]); v != "" {
			shared[name] = v
		}
	}
	if v, ok := shared[cap]; ok {
		meta.Capabilities = map[Capability][]CapabilityVersion{cap: {{Version: v}}}
		return meta, nil, nil
	}
	text := "The platform profile shares no capability with this business."
	if len(shared) > 0 {
		text = "The platform profile does not list " + string(cap) + " at a version this business supports."
	}
	// §9.4.2 gives this outcome the severity unrecoverable, which the
	// snapshot's Message schema does not accept; severity is optional, so
	// it is left out rather than contradicting either.
	return meta, &Message{Type: "error", Code: "capabilities_incompatible", Content: text}, nil
}

func highestCommon(own []CapabilityEntry, theirs []struct{ Version string }) string {
	best := ""
	for _, o := range own {
		for _, t := range theirs {
			if o.Version == t.Version && o.Version > best {
				best = o.Version
			}
		}
	}
	return best
}
