package usp

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/outbound"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/payment"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Options configure a Business.
type Options struct {
	Config    Config
	Inventory *inventory.Inventory
	Pricer    *pricing.Pricer
	Clock     clock.Clock
	// Origin is the public origin the profile's endpoints are under, such
	// as "https://book.example.com".
	Origin string
	// Profiles fetches platform profiles; nil builds one from
	// Config.Profiles.
	Profiles *Profiles
	// ProfileRootCAs, when set, replaces the system roots of the profile
	// fetcher built from Config.Profiles: end-to-end tests serve platform
	// profiles with their own certificate.
	ProfileRootCAs *x509.CertPool
	// Authenticator checks privileged calls; nil refuses them all.
	Authenticator Authenticator
	// Store keeps identity bindings, idempotency records and the
	// reservations holds and bookings are; nil refuses privileged calls.
	Store store.Store
	// Bookings is the reservation core USP holds and bookings go through.
	Bookings *reservation.Core
	// Observe, when set, hears of every platform principal a privileged
	// call authenticated, with the call's context: the MCP binding learns
	// which platform a session acts for, to offer it its webhooks.
	Observe func(ctx context.Context, p Principal)
	// Credentials issues a booking-scoped credential with every booking a
	// platform creates; nil issues none.
	Credentials *BookingCredentials
	// Keys are the public signing keys the profile publishes at first;
	// SetKeys replaces them as the stored key set rotates.
	Keys   []SigningKey
	Logger *slog.Logger
	// Deadline bounds every call of the bindings (Within); 0 is
	// DefaultDeadline.
	Deadline time.Duration
	// Count, when set, hears of every booking created and every create
	// refused, for monitoring.
	Count Counter
	// Payments is the ledger of the payments this business takes through
	// its own provider: the page behind a payment action's continue_url
	// opens its checkouts, and its paid events confirm bookings waiting
	// in requires_action. Nil: the page says no provider is configured,
	// and only a platform's checkout (confirm-payment) pays a booking.
	Payments *payment.Ledger
	// Rand draws the tokens of payment pages; nil is crypto/rand.
	Rand io.Reader
}

// Counter counts what a door answered booking requests. *metrics.Metrics
// is one.
type Counter interface {
	Booked(door string)
	Refused(door, code string)
}

// Business is the business side of USP: one value serves both bindings.
type Business struct {
	cfg      Config
	inv      *inventory.Inventory
	clock    clock.Clock
	origin   string
	profiles *Profiles
	auth     Authenticator
	keys     atomic.Pointer[[]SigningKey]
	creds    *BookingCredentials
	observe  func(ctx context.Context, p Principal)
	log      *slog.Logger
	catalog  catalog
	st       store.Store
	// changes runs the changes of one booking one at a time.
	changes  turns
	bindings *Bindings
	bookings *reservation.Core
	pricer   *pricing.Pricer
	deadline time.Duration
	count    Counter
	payments *payment.Ledger
	rand     io.Reader
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
		var pins store.Records
		if opts.Store != nil {
			pins = opts.Store
		}
		p, err := ConfiguredProfiles(opts.Config.Profiles, opts.Config.AllowPrivate, opts.Clock, opts.ProfileRootCAs, pins)
		if err != nil {
			return nil, err
		}
		opts.Profiles = p
	}
	// A deposit is booked through the UCP checkout in UCP-Native Mode,
	// served only to authenticated platforms with the booking core.
	checkout := opts.Authenticator != nil && opts.Store != nil && opts.Bookings != nil
	cat, err := buildCatalog(opts.Config, opts.Pricer, checkout)
	if err != nil {
		return nil, err
	}
	b := &Business{
		cfg: opts.Config, inv: opts.Inventory, clock: opts.Clock, origin: opts.Origin,
		profiles: opts.Profiles, auth: opts.Authenticator,
		log: opts.Logger.With("component", "usp"), catalog: cat, count: opts.Count,
		st: opts.Store, bindings: NewBindings(opts.Store), bookings: opts.Bookings, pricer: opts.Pricer,
		creds: opts.Credentials, observe: opts.Observe, deadline: opts.Deadline,
		payments: opts.Payments, rand: opts.Rand,
	}
	if b.rand == nil {
		b.rand = rand.Reader
	}
	b.rand = random.Locked(b.rand)
	if b.payments != nil {
		b.payments.OnPaid(b.paymentPaid)
	}
	if b.deadline <= 0 {
		b.deadline = DefaultDeadline
	}
	b.SetKeys(opts.Keys)
	if b.bookings != nil {
		b.attach(b.bookings.Desk())
	}
	return b, nil
}

// SetKeys replaces the public signing keys the profile publishes. The key
// set lives in the store and rotates while the process runs, so whoever
// reads it (cmd/frontdesk) refreshes the profile through here.
func (b *Business) SetKeys(keys []SigningKey) {
	keys = slices.Clone(keys)
	b.keys.Store(&keys)
}

// dialRule is the outbound address rule of the config.
func (b *Business) dialRule() outbound.Rule {
	return outbound.Rule{Loopback: b.cfg.AllowPrivate}
}

// begin runs what every operation shares before its own work: access
// control and negotiation with the caller's platform profile. A non-nil
// outcome is the capabilities_incompatible business outcome; the
// operation then answers its empty shape with that message. begin binds
// nothing: a privileged operation defers admit, which binds the caller
// once its answer is known.

func (b *Business) begin(ctx context.Context, name string, call Call) (Meta, Principal, *Message, error) {
	m, ok := MethodNamed(name)
	if !ok {
		return Meta{}, Principal{}, nil, &Error{Code: CodeServerError, Message: "The business could not process the request."}
	}
	if m.Access != Public && !b.privileged() {
		return Meta{}, Principal{}, nil, fail(CodeAuthenticationRequired, "%s needs an authenticated caller, and this business accepts none.", m.Name)
	}
	if err := checkIdempotencyKey(call.IdempotencyKey); err != nil {
		return Meta{}, Principal{}, nil, err
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
	// §8.3 step 4: an extension whose base capability is not shared is
	// pruned, so it is not active either.
	for name, entries := range own {
		if base := entries[0].Extends; base != "" && shared[base] == "" {
			delete(shared, name)
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

// ConfiguredProfiles is the platform-profile fetcher the [usp] config
// asks for, shared by negotiation and request-signature checks;
// allowPrivate is the outbound rule's development switch. roots,
// when set (tests), replaces the system roots; otherwise profile_ca_file
// adds its certificates to them. pins holds the pinned profiles; nil
// pins none.
func ConfiguredProfiles(u ProfileFetch, allowPrivate bool, clk clock.Clock, roots *x509.CertPool, pins store.Records) (*Profiles, error) {
	if roots == nil && u.CAFile != "" {
		pem, err := os.ReadFile(u.CAFile)
		if err != nil {
			return nil, fmt.Errorf("usp.profile_ca_file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("usp.profile_ca_file: %s holds no PEM certificate", u.CAFile)
		}
		roots = pool
	}
	return NewProfiles(ProfileOptions{
		AllowPrivate: allowPrivate,
		MaxBytes:     int64(u.MaxBytes),
		Entries:      u.CacheEntries,
		MaxTTL:       time.Duration(u.CacheMaxSeconds) * time.Second,
		MaxStale:     time.Duration(u.StaleMaxSeconds) * time.Second,
		Clock:        clk,
		RootCAs:      roots,
		Pins:         pins,
	}), nil
}

// Observe tells the Observe hook of a platform principal another process
// authenticated for a call this one passed on (a split hub's location).
func (b *Business) Observe(ctx context.Context, p Principal) {
	if b.observe != nil && p.Platform != "" {
		b.observe(ctx, p)
	}
}
