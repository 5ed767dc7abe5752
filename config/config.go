// Package config reads one business as its owner writes it: the
// business, its locations and their units (decoded into package business),
// limits, mail, deployment and store settings, from one TOML file checked
// as a whole.
//
// It is a domain package: it imports the business model, message, the
// standard library and the TOML decoder. cmd/frontdesk layers defaults,
// the file, FRONTDESK_* environment variables and flags, in that order,
// and hands each service the values and options it reads; besides it,
// only test support and bench import config.
package config

import (
	"frontdesk/business"
	"frontdesk/message"
	"time"
)

// Config is the whole file.
type Config struct {
	// Portfolio is the business, its locations and its limits: the
	// [business], [[locations]] and [limits] tables.
	business.Portfolio
	Mail       Mail       `toml:"mail"`
	Deployment Deployment `toml:"deployment"`
	Store      Store      `toml:"store"`
	USP        USP        `toml:"usp"`
	ORP        ORP        `toml:"orp"`
	Server     Server     `toml:"server"`
	TLS        TLS        `toml:"tls"`
	Privacy    Privacy    `toml:"privacy"`
	Channels   Channels   `toml:"channels"`
	Outbound   Outbound   `toml:"outbound"`
	Split      Split      `toml:"split"`

	// deprecated are the old keys the file used, read for their
	// replacement (Warnings).
	deprecated []string
}

// Outbound is the one address rule of every connection the business
// opens to an address it was handed: platform profiles and webhooks,
// ORP proof pages, platform checks and space locators, channel feeds.
// Endpoints the operator configures (the payment provider's base URL,
// relay origins) are not under it.
type Outbound struct {
	// AllowPrivate admits loopback addresses (and plain http to them),
	// for local development and tests. Link-local (the metadata
	// address), private, unspecified and reserved addresses are refused
	// whatever it says. It replaces usp.allow_private_profiles and
	// orp.fetch_private_addresses, which are still read, with a warning.
	AllowPrivate bool `toml:"allow_private"`
}

// RemembersReferrals reports whether the guest site keeps a partner's
// click id in its referral cookie: ORP on and referral_cookie not false.
func (c Config) RemembersReferrals() bool {
	return c.ORP.Enabled && (c.ORP.ReferralCookie == nil || *c.ORP.ReferralCookie)
}

// AllowPrivate is the development switch of the outbound address rule:
// outbound.allow_private, or either of its old names.
func (c Config) AllowPrivate() bool {
	return c.Outbound.AllowPrivate || c.USP.AllowPrivateProfiles || c.ORP.FetchPrivateAddresses
}

// Warnings are what the file said that still works but should change:
// an old key read for its replacement.
func (c Config) Warnings() []string { return c.deprecated }

// Mail says how mail leaves the server.
type Mail struct {
	Driver string `toml:"driver"` // "dev" or "smtp"
	message.Addresses
	SMTPHost     string `toml:"smtp_host"`
	SMTPPort     int    `toml:"smtp_port"`
	SMTPUser     string `toml:"smtp_username"`
	SMTPPassword string `toml:"-"` // from password_env or password_file only
	PasswordEnv  string `toml:"smtp_password_env"`
	PasswordFile string `toml:"smtp_password_file"`
}

// Deployment is where this server runs: the evidence the booking tools
// check before acting, and the addresses it is reached at.
type Deployment struct {
	business.Deployment
	// PublicURL is where guests and agents reach this server, such as
	// "https://book.example.com": every link any door prints (stdio
	// included) starts with it. Empty: derived from the listen address.
	PublicURL string `toml:"public_url"`
	// TrustedProxies are the addresses or CIDR ranges of reverse proxies
	// whose X-Forwarded-For names the client, for limits by address.
	// Empty: the connection's own address is the client's.
	TrustedProxies []string `toml:"trusted_proxies"`
}

// Store selects the engine: Database (a postgres:// URL) wins over DataDir.
type Store struct {
	DataDir  string `toml:"data_dir"`
	Database string `toml:"database"`
}

// USP switches the Universal Scheduling Protocol front door and bounds
// how it fetches the platform profiles callers name.
type USP struct {
	Enabled bool `toml:"enabled"`
	// Mode is how paid bookings are sold (§1.5: one at a time):
	// "standalone" (empty means it) publishes /.well-known/usp and takes
	// payment through the payment action of a booking; "ucp_native"
	// publishes /.well-known/ucp with the paid-bookings extension.
	Mode string `toml:"mode"`
	// AllowPrivateProfiles is the old name of outbound.allow_private,
	// read with a warning: decoding folds it into Outbound.AllowPrivate
	// and back here, where the profile fetcher reads it.
	AllowPrivateProfiles bool `toml:"allow_private_profiles"`
	// ProfileCacheEntries bounds the platform-profile cache; 0 means 1024.
	ProfileCacheEntries int `toml:"profile_cache_entries"`
	// ProfileCacheMaxSeconds caps how long a fetched profile is kept,
	// whatever its Cache-Control says; 0 means 3600. The floor is 60.
	ProfileCacheMaxSeconds int `toml:"profile_cache_max_seconds"`
	// ProfileMaxBytes bounds a platform profile's size; 0 means 262144.
	ProfileMaxBytes int `toml:"profile_max_bytes"`
	// ProfileStaleMaxSeconds bounds how long a fetched profile is still
	// used after its lifetime while its host cannot be reached (at most
	// its stale-if-error); 0 means 21600, -1 never.
	ProfileStaleMaxSeconds int `toml:"profile_stale_max_seconds"`
	// ProfileCAFile names a PEM file of CA certificates trusted for
	// platform profile fetches besides the system roots, for platforms
	// whose profiles are served under a private CA.
	ProfileCAFile string `toml:"profile_ca_file"`
	// Platforms are the scheduling platforms the owner registers.
	Platforms []USPPlatform `toml:"platforms"`
	// KeyLeadMinutes is how long a rotated-in signing key is published
	// before it signs, so platforms with a cached profile learn it first;
	// 0 means 60.
	KeyLeadMinutes int `toml:"key_lead_minutes"`
	// RequireProofNonce makes every platform_key_pop proof carry a nonce
	// the business issued (proof_nonce_required answers with one); off,
	// iat and the jti cache alone bound replays.
	RequireProofNonce bool `toml:"require_proof_nonce"`
	// KeyGraceDays is how long a replaced signing key stays published and
	// verifying; 0 means 7, the least §10.1.1 allows.
	KeyGraceDays int `toml:"key_grace_days"`
}

// USP modes (usp.mode).
const (
	USPStandalone = "standalone"
	USPUCPNative  = "ucp_native"
)

// USPPlatform is one registered scheduling platform. Its API keys are
// stored only as hashes, several at once so a key can be rotated.
type USPPlatform struct {
	Name string `toml:"name"`
	// APIKeyHashes are "sha256:" and the hex SHA-256 of each key.
	APIKeyHashes []string `toml:"api_key_hashes"`
	// WebhookURL is where the platform's booking events are POSTed; empty
	// means the webhook_url of its profile, or none.
	WebhookURL string `toml:"webhook_url"`
}

// ORP switches the Open Rails Protocol host and names it.
type ORP struct {
	Enabled bool `toml:"enabled"`
	// Attestation accepts ORP 0.4 attest messages from consumer seats
	// (§20.7); off (the default), attest is answered unknown_type.
	Attestation bool `toml:"attestation"`
	// ReferralCookie keeps a partner's click id in a first-party cookie
	// on the guest site's booking form for web.ReferralCookieDays, so a guest
	// who browses away and returns still counts for the partner. Unset
	// is on; false turns it off. The privacy page and docs/privacy.md
	// disclose it.
	ReferralCookie *bool `toml:"referral_cookie"`
	// Name and Description appear in the discovery document; an empty
	// name is the business name.
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// SweepMinutes is how often serve runs the scheduled work (outcomes,
	// expiries, delayed revokes); 0 means 5.
	SweepMinutes int `toml:"sweep_minutes"`
	// ClicksPerMinute limits tracked-link requests per network address; a
	// limited request still redirects and counts nothing. 0 means 120.
	ClicksPerMinute int `toml:"clicks_per_minute"`
	// Sites are the owner's own domains, subdomains included, where any
	// deal's tracked links may send browsers; each location's domain and
	// the public origin's host are sites too. BlockedDomains are never
	// destinations.
	Sites          []string `toml:"sites"`
	BlockedDomains []string `toml:"blocked_domains"`
	// MaxReportMinor is the largest amount, in minor units, a payer may
	// report for one conversion; 0 means 100,000,000,000.
	MaxReportMinor int64 `toml:"max_report_minor"`
	// ReferralBps, when above 0, lists the business's own standing offer
	// on the host: a referral link to the first location's booking form,
	// paying this share (basis points) of each booking it brings. 0 lists
	// none.
	ReferralBps int `toml:"referral_bps"`
	// ClaimsCheck is the claims check the host runs before it lists a
	// standing offer: "real" (reads the destination pages), "stub" (holds
	// every offer for review) or "none" (the default). Discovery states it.
	ClaimsCheck string `toml:"claims_check"`
	// FetchPrivateAddresses is the old name of outbound.allow_private,
	// read with a warning: decoding folds it into Outbound.AllowPrivate.
	FetchPrivateAddresses bool `toml:"fetch_private_addresses"`
	// Witnesses are party ids of verifiers the host names: each reports
	// findings at POST /orp/witness about obligations whose proof lists
	// witness.
	Witnesses []string `toml:"witnesses"`
	// BusinessParty is the business's own party on this host (an orp:
	// party id), the payer of what bookings earn the partners who sent
	// their guests; empty attributes no booking.
	BusinessParty string `toml:"business_party"`
	// StripeWebhookSecretEnv and StripeWebhookSecretFile name where the
	// signing secret of the Stripe-compatible webhook at
	// /orp/providers/stripe is kept; without one, that endpoint refuses
	// every event.
	StripeWebhookSecretEnv  string `toml:"stripe_webhook_secret_env"`
	StripeWebhookSecretFile string `toml:"stripe_webhook_secret_file"`
	StripeWebhookSecret     string `toml:"-"`
	// ResolverTokenEnv and ResolverTokenFile name where the token of the
	// dispute resolver (the operator, on /orp/resolve) is kept; without
	// one, disputes stay open.
	ResolverTokenEnv  string `toml:"resolver_token_env"`
	ResolverTokenFile string `toml:"resolver_token_file"`
	ResolverToken     string `toml:"-"`
}

// Server is how the process listens and reports.
type Server struct {
	// LogLevel is the lowest level logged: debug, info, warn or error.
	LogLevel string `toml:"log_level"`
	// MetricsAddr serves /metrics on its own listen address (such as
	// "127.0.0.1:9090") instead of the public one.
	MetricsAddr string `toml:"metrics_addr"`
	// MetricsTokenEnv and MetricsTokenFile name where a bearer token for
	// /metrics is kept; with one, /metrics answers only that token.
	MetricsTokenEnv  string `toml:"metrics_token_env"`
	MetricsTokenFile string `toml:"metrics_token_file"`
	MetricsToken     string `toml:"-"` // read from the env or file above
	// ConnectionsPerAddress caps the open connections of one client
	// network address; more are closed as they arrive. The default
	// (4,096) lets a hosted assistant's shared egress address carry
	// thousands of conversations at once; the listener's total stays
	// bounded by the process's descriptors.
	ConnectionsPerAddress int `toml:"connections_per_address"`
}

// Defaults are the settings used where the file is silent.
func Defaults() Config {
	return Config{
		Portfolio: business.Portfolio{Business: business.Business{
			TimeZone:         "UTC",
			CheckinHour:      "15:00",
			Currency:         "USD",
			PhoneCountryCode: "1",
			MinAge:           18,
			ConfirmHours:     24,
			OfficeHours: business.OfficeHours{
				Mon: "08:00-18:00", Tue: "08:00-18:00", Wed: "08:00-18:00",
				Thu: "08:00-18:00", Fri: "08:00-18:00", Sat: "10:00-18:00", Sun: "closed",
			},
		},
			Limits: business.Limits{
				MaxStayNights:        30,
				AdjacencyGapNights:   1,
				AdvanceDays:          550,
				MaxGuests:            4,
				CancelBeforeHours:    48,
				PortfolioEmailHourly: 8,
				PortfolioEmailDaily:  20,
				LocationEmailHourly:  3,
				CancelPortfolioDaily: 5,
				LocationPending:      3,
				PortfolioPending:     8,
			}},
		Mail: Mail{Driver: "dev", SMTPPort: 587},
		// No deployment context and not published: booking refuses until
		// the file states both (direct-booking.md §16).
		Deployment: Deployment{Deployment: business.Deployment{Hostnames: []string{"localhost", "127.0.0.1"}}},
		Server:     Server{LogLevel: "info", ConnectionsPerAddress: 4096},
		TLS:        TLS{Mode: "off", HTTPAddr: ":80", HSTSSeconds: 31536000, ACMEDirectory: LetsEncrypt},
		Store:      Store{DataDir: "frontdesk-data"},
	}
}

// fillLocationDefaults copies business-wide values into locations that
// leave them empty, so later code reads one place.
func (c *Config) fillLocationDefaults() {
	zones := map[string]*time.Location{} // one value per zone, shared
	for i := range c.Locations {
		l := &c.Locations[i]
		if l.TimeZone == "" {
			l.TimeZone = c.Business.TimeZone
		}
		if l.CheckinHour == "" {
			l.CheckinHour = c.Business.CheckinHour
		}
		if _, ok := zones[l.TimeZone]; !ok {
			zones[l.TimeZone], _ = time.LoadLocation(l.TimeZone) // nil if invalid; Validate says so
		}
		l.SetZone(zones[l.TimeZone])
		for j := range l.Units {
			if l.Units[j].Kind == "" {
				l.Units[j].Kind = business.KindNight
			}
		}
	}
}
