package usp

import (
	"encoding/json"
	"maps"
	"strings"
)

// UCP-Native Mode (§7): the business registers its USP services and
// capabilities in a UCP profile at /.well-known/ucp and publishes no
// /.well-known/usp (§7.1). The scheduling operations are the same; the
// authorization policy moves to config.authorization of the
// dev.usp-protocol.services bindings, since USP adds no top-level member
// to a UCP document (§7.2, §10.1.6). A service paid in full when
// booking is booked through the UCP checkout (ucp_checkout.go), which
// the profile declares, with the paid-bookings extension and its payment
// handler, exactly when the checkout is served; a service that takes a
// deposit is not booked in this mode (checkoutRequired).

// UCPProfilePath is where a UCP-native business publishes its profile.
const UCPProfilePath = "/.well-known/ucp"

// UCPVersion is the UCP version of the profile document.
const UCPVersion = "2026-08-25"

// UCPProfile is the document served at /.well-known/ucp.
type UCPProfile struct {
	UCP  UCPMeta      `json:"ucp"`
	Keys []SigningKey `json:"keys,omitempty"`
}

// UCPMeta is the profile's ucp object.
type UCPMeta struct {
	Version      string                           `json:"version"`
	Services     map[string][]ServiceBinding      `json:"services"`
	Capabilities map[Capability][]CapabilityEntry `json:"capabilities"`
	// PaymentHandlers are the checkout's handlers, when it is served.
	PaymentHandlers map[string][]PaymentHandler `json:"payment_handlers,omitempty"`
	Business        BusinessInfo                `json:"business"`
}

// BindingConfig is a service binding's config (usp.json ServiceBinding).
type BindingConfig struct {
	Authorization *AuthorizationPolicy `json:"authorization,omitempty"`
}

// Mode is the deployment mode: ModeStandalone or ModeUCPNative.
func (b *Business) Mode() string {
	if b.cfg.standalone() {
		return ModeStandalone
	}
	return ModeUCPNative
}

// ProfileLocation is the path of the one profile document this business
// publishes in its mode.
func (b *Business) ProfileLocation() string {
	if b.cfg.standalone() {
		return ProfilePath
	}
	return UCPProfilePath
}

// UCPProfile returns the UCP profile: the Standalone profile's bindings,
// capabilities and business, with the authorization policy inside each
// binding's config.
func (b *Business) UCPProfile() UCPProfile {
	p := b.Profile()
	services := map[string][]ServiceBinding{}
	for key, bindings := range p.USP.Services {
		out := make([]ServiceBinding, len(bindings))
		for i, sb := range bindings {
			if p.Authorization != nil {
				sb.Config = &BindingConfig{Authorization: p.Authorization}
			}
			out[i] = sb
		}
		services[key] = out
	}
	meta := UCPMeta{Version: UCPVersion, Services: services, Capabilities: p.USP.Capabilities, Business: p.USP.Business}
	if b.CheckoutServed() {
		services["dev.ucp.shopping"] = []ServiceBinding{b.shoppingBinding()}
		caps := maps.Clone(p.USP.Capabilities)
		maps.Copy(caps, b.checkoutEntries())
		meta.Capabilities, meta.PaymentHandlers = caps, b.paymentHandlers()
	}
	return UCPProfile{UCP: meta, Keys: p.Keys}
}

// UCPProfileJSON is the UCP profile as served.
func (b *Business) UCPProfileJSON() []byte {
	body, err := json.MarshalIndent(b.UCPProfile(), "", "  ")
	if err != nil {
		panic(err) // plain strings and maps always encode
	}
	return append(body, '\n')
}

// checkoutRequired refuses, in UCP-Native Mode, a direct booking of a
// service that takes money when booking: such a booking is made by a
// UCP checkout with the paid-bookings extension (§7.5), never by
// create_booking (via is viaCheckout when the checkout books it).
func (b *Business) checkoutRequired(s Service, via string) error {
	if b.cfg.standalone() || !s.terms.TakesMoney() || s.Pricing.Amount == 0 || via == viaCheckout {
		return nil
	}
	if b.CheckoutServed() && b.checkoutPays(s) {
		return fail(CodeValidation, "service_id %q is paid when booking: in UCP-native mode it is booked through the UCP checkout (create_checkout with the booking extension at %s).", strings.TrimSpace(s.ID), UCPPath+"/checkout-sessions")
	}
	return fail(CodeValidation, "service_id %q is paid when booking: in UCP-native mode it is booked through a UCP checkout, which this business does not offer; book it by phone.", strings.TrimSpace(s.ID))
}
