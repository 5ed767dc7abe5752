package usp

import "frontdesk/business"

// Config is what the USP business side reads of the owner's file, handed
// over by the command: the business with its locations and limits, the
// platforms the owner registered, and how platform profiles are fetched.
type Config struct {
	business.Portfolio
	// Platforms are the scheduling platforms the owner registers.
	Platforms []Platform
	// Profiles bound the platform-profile fetcher.
	Profiles ProfileFetch
	// AllowPrivate is the development switch of the outbound address
	// rule: loopback addresses (and plain http to them) are reachable.
	AllowPrivate bool
	// Mode is ModeStandalone (empty means it) or ModeUCPNative (§1.5).
	Mode string
}

// Deployment modes (§1.5): an implementer runs one at a time.
const (
	// ModeStandalone publishes /.well-known/usp; a paid booking waits in
	// requires_action for its payment action (§8.5).
	ModeStandalone = "standalone"
	// ModeUCPNative publishes the business through /.well-known/ucp with
	// the paid-bookings extension (§7).
	ModeUCPNative = "ucp_native"
)

// standalone reports whether c runs in Standalone Mode.
func (c Config) standalone() bool { return c.Mode != ModeUCPNative }

// Platform is one registered scheduling platform. Its API keys are kept
// only as hashes, several at once so a key can be rotated.
type Platform struct {
	Name string
	// APIKeyHashes are "sha256:" and the hex SHA-256 of each key.
	APIKeyHashes []string
	// WebhookURL is where the platform's booking events are POSTed; empty
	// means the webhook_url of its profile, or none.
	WebhookURL string
}

// ProfileFetch bounds how platform profiles are fetched and kept; a zero
// field is its default (ConfiguredProfiles).
type ProfileFetch struct {
	// CacheEntries bounds the profile cache; 0 means 1024.
	CacheEntries int
	// CacheMaxSeconds caps how long a fetched profile is kept; 0 means
	// 3600.
	CacheMaxSeconds int
	// MaxBytes bounds a profile's size; 0 means 262144.
	MaxBytes int
	// StaleMaxSeconds bounds how long a profile is used past its lifetime
	// while its host cannot be reached; 0 means 21600, -1 never.
	StaleMaxSeconds int
	// CAFile names a PEM file of CA certificates trusted besides the
	// system roots.
	CAFile string
}
