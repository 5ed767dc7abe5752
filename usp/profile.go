package usp

import (
	"encoding/json"
	"strings"
)

// Where the specification and schemas of this version live; profiles name
// them, and their origin must be the namespace authority's (§8.2.1).
const (
	specURL          = "https://usp-protocol.dev/specification"
	restSchemaURL    = "https://usp-protocol.dev/schemas/openapi/usp-rest.json"
	mcpSchemaURL     = "https://usp-protocol.dev/schemas/openrpc/usp-mcp.json"
	serviceKey       = "dev.usp-protocol.services"
	catalogSchemaURL = "https://usp-protocol.dev/schemas/services/catalog.json"
	availSchemaURL   = "https://usp-protocol.dev/schemas/services/availability.json"
	bookingSchemaURL = "https://usp-protocol.dev/schemas/services/booking.json"
	// subsSchemaURL is the FeedSubscription definition: the subscriptions
	// capability has no schema file of its own, and this is the object
	// its operations exchange.
	subsSchemaURL = "https://usp-protocol.dev/schemas/rest_common.json#/$defs/FeedSubscription"
	// waitlistSchemaURL is the waitlist extension's schema file.
	waitlistSchemaURL = "https://usp-protocol.dev/schemas/waitlist.json"
)

// Binding paths under the public origin; cmd/frontdesk mounts them.
const (
	ProfilePath = "/.well-known/usp"
	RESTPath    = "/usp"
	MCPPath     = "/usp/mcp"
)

// ProfileMaxAge is the Cache-Control max-age of the business profile, in
// seconds (§8.2.2 asks for at least 60).
const ProfileMaxAge = 300

// SigningKey is a public JWK the business publishes under keys and
// signing_keys. Several may be listed at once, for rotation.
type SigningKey map[string]any

// BusinessProfile is the document served at /.well-known/usp (§8.2).
type BusinessProfile struct {
	USP           BusinessMeta         `json:"usp"`
	Keys          []SigningKey         `json:"keys,omitempty"`
	SigningKeys   []SigningKey         `json:"signing_keys,omitempty"`
	Authorization *AuthorizationPolicy `json:"authorization,omitempty"`
}

// BusinessMeta is the profile's usp object.
type BusinessMeta struct {
	Version      string                           `json:"version"`
	Services     map[string][]ServiceBinding      `json:"services"`
	Capabilities map[Capability][]CapabilityEntry `json:"capabilities"`
	// CheckoutSystems are the checkout paths of paid bookings (§8.2.1);
	// absent when no service takes money when booking.
	CheckoutSystems []string     `json:"checkout_systems,omitempty"`
	Business        BusinessInfo `json:"business"`
}

// ServiceBinding is one transport of the USP service.
type ServiceBinding struct {
	Version   string `json:"version"`
	Spec      string `json:"spec"`
	Transport string `json:"transport"`
	Endpoint  string `json:"endpoint"`
	Schema    string `json:"schema"`
	// Config carries the authorization policy in UCP-Native Mode (ucp.go).
	Config *BindingConfig `json:"config,omitempty"`
}

// CapabilityEntry is one capability version a profile declares, with its
// feature flags.
type CapabilityEntry struct {
	Version string `json:"version"`
	Spec    string `json:"spec"`
	Schema  string `json:"schema"`
	// Extends names the base capability of an extension (§8.2.1); the
	// extension is negotiated only while its base is shared too.
	Extends Capability `json:"extends,omitempty"`
	Search  bool       `json:"search,omitempty"` // catalog: free-text query is ranked
	Holds   *bool      `json:"holds,omitempty"`  // availability: hold and release
}

// BusinessInfo names the business.
type BusinessInfo struct {
	Name      string         `json:"name"`
	Timezone  string         `json:"timezone"`
	Currency  string         `json:"currency"`
	Locations []LocationInfo `json:"locations,omitempty"`
}

// LocationInfo is one location of a multi-location business.
type LocationInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// capabilities are the capability entries this business implements.
// Holds, bookings and feed subscriptions are offered only when privileged
// calls can be served: an authenticator, a store and the reservation core.
// Every capability of a served method is declared here (the profile
// test checks Served against it).
func (b *Business) capabilities() map[Capability][]CapabilityEntry {
	holds := b.privileged()
	caps := map[Capability][]CapabilityEntry{
		CapabilityCatalog:      {{Version: Version, Spec: specURL + "#3-service-catalog", Schema: catalogSchemaURL, Search: true}},
		CapabilityAvailability: {{Version: Version, Spec: specURL + "#4-availability", Schema: availSchemaURL, Holds: &holds}},
	}
	if holds {
		caps[CapabilityBookings] = []CapabilityEntry{{Version: Version, Spec: specURL + "#5-booking-lifecycle", Schema: bookingSchemaURL}}
		caps[CapabilitySubscriptions] = []CapabilityEntry{{Version: Version, Spec: specURL + "#3122-feed-subscriptions---post-servicesfeedsubscriptions", Schema: subsSchemaURL, Extends: CapabilityCatalog}}
		caps[CapabilityWaitlist] = []CapabilityEntry{{Version: Version, Spec: specURL + "#111-waitlist-extension", Schema: waitlistSchemaURL, Extends: CapabilityBookings}}
	}
	return caps
}

// Profile returns the business profile document.
func (b *Business) Profile() BusinessProfile {
	origin := strings.TrimSuffix(b.origin, "/")
	p := BusinessProfile{
		USP: BusinessMeta{
			Version: Version,
			Services: map[string][]ServiceBinding{serviceKey: {
				{Version: Version, Spec: specURL, Transport: "rest", Endpoint: origin + RESTPath, Schema: restSchemaURL},
				{Version: Version, Spec: specURL, Transport: "mcp", Endpoint: origin + MCPPath, Schema: mcpSchemaURL},
			}},
			Capabilities: b.capabilities(),
			Business: BusinessInfo{
				Name:     b.cfg.Business.Name,
				Timezone: b.cfg.Business.TimeZone,
				Currency: b.cfg.Business.Currency,
			},
		},
		Keys:        *b.keys.Load(),
		SigningKeys: *b.keys.Load(),
	}
	p.USP.CheckoutSystems = b.checkoutSystems()
	for _, l := range b.cfg.Locations {
		p.USP.Business.Locations = append(p.USP.Business.Locations, LocationInfo{ID: l.Slug, Name: l.Name})
	}
	if b.privileged() {
		// The policy is published exactly when an authenticator can
		// check privileged calls, with the mechanisms it accepts.
		p.Authorization = policyFor(b.auth.Mechanisms())
	}
	return p
}

// ProfileJSON is the profile document as served.
func (b *Business) ProfileJSON() []byte {
	body, err := json.MarshalIndent(b.Profile(), "", "  ")
	if err != nil {
		panic(err) // plain strings and maps always encode
	}
	return append(body, '\n')
}

// checkoutSystems are the checkout paths a paid booking may take
// (§8.2.1), when a service takes money when booking: a platform's own
// checkout reporting with confirm-payment (embedded), an ACP checkout
// session mapped from the payment action (acp, §8.5.6), and, with a
// payment provider configured, the business-hosted page at the action's
// continue_url (redirect).
func (b *Business) checkoutSystems() []string {
	if !b.privileged() || !b.cfg.standalone() || !b.catalog.pays {
		return nil
	}
	out := []string{"acp", "embedded"}
	if b.payments != nil && b.payments.Ready() == nil {
		out = append(out, "redirect")
	}
	return out
}
