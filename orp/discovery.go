package orp

import "strings"

// Discovery is the discovery document (§4.1). It states only what this
// host implements.
type Discovery struct {
	Orp          []string       `json:"orp"`
	Host         string         `json:"host"`
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	Endpoint     string         `json:"endpoint"`
	Suggest      string         `json:"suggest"`
	Join         string         `json:"join"`
	MCP          map[string]any `json:"mcp,omitempty"`
	Auth         map[string]any `json:"auth"`
	Tracking     map[string]any `json:"tracking"`
	Conformance  *conformance   `json:"conformance,omitempty"`
	Capabilities map[string]any `json:"capabilities"`
	Keys         []JWK          `json:"keys,omitempty"`
	Policies     map[string]any `json:"policies,omitempty"`
	Docs         string         `json:"docs,omitempty"`
}

type conformance struct {
	Levels []string `json:"levels"`
}

// MCPTools are the tools of the MCP binding (§4.3).
var MCPTools = []string{"orp_suggest", "orp_join", "orp_send", "orp_inbox", "orp_deal"}

// Discovery returns the host's discovery document.
func (h *Host) Discovery() Discovery {
	d := Discovery{
		Orp: Versions, Host: h.id, Name: h.opts.Name, Description: h.describe(),
		Docs:     h.url("/terms#destinations"),
		Endpoint: h.url("/orp"), Suggest: h.url("/orp/suggest"), Join: h.url("/orp/join"),
		Auth:         map[string]any{"bearer": true},
		Tracking:     map[string]any{"links": true, "codes": true, "base": h.url("/go/")},
		Capabilities: h.capabilities(),
	}
	d.Capabilities["messages"] = h.messages04()
	if h.opts.MCP {
		d.MCP = map[string]any{"url": h.url("/orp/mcp"), "transport": "streamable-http", "auth": []string{"bearer", "join"},
			"binding": true, "tools": MCPTools}
	}
	if h.opts.Signer != nil {
		d.Keys = h.opts.Signer.Keys()
	}
	if len(h.opts.Levels) > 0 {
		d.Conformance = &conformance{Levels: h.opts.Levels}
	}
	p := map[string]any{}
	if h.opts.TermsURL != "" {
		p["terms"] = h.opts.TermsURL
	}
	if h.opts.PrivacyURL != "" {
		p["privacy"] = h.opts.PrivacyURL
	}
	if len(p) > 0 {
		d.Policies = p
	}
	return d
}

// describe is the host's description with its destination rule, which
// the discovery document has no field of its own for; /terms states it
// in full (docs points there).
func (h *Host) describe() string {
	d := strings.TrimSpace(h.opts.Description)
	if d != "" && !strings.HasSuffix(d, ".") {
		d += "."
	}
	d = strings.TrimSpace(d + " " + h.DestinationRule())
	if len(d) > 1000 {
		d = d[:997] + "..."
	}
	return d
}

// DestinationRule says in one paragraph where this host's tracked links
// may send browsers (destination.go).
func (h *Host) DestinationRule() string {
	rule := "Tracked links send browsers only to the host owner's sites"
	if len(h.opts.Sites) > 0 {
		rule += " (" + strings.Join(h.opts.Sites, ", ") + ", subdomains included)"
	}
	rule += " and to the sites of web spaces listed by a party of the deal that a signed-in person has claimed; never to an address, a non-default port"
	if len(h.opts.BlockedDomains) > 0 {
		rule += " or a blocked domain (" + strings.Join(h.opts.BlockedDomains, ", ") + ")"
	}
	return rule + "."
}

// capabilities are what the host handles and sends (§6): the proofs it
// verifies or accepts (proof.go; provider, by signed payment-provider
// events, provider.go) and the claims check it runs (claims.go).
func (h *Host) capabilities() map[string]any {
	proofs := []string{"link", "provider", "proof_url", "platform_check", "attestation"}
	if len(h.opts.Witnesses) > 0 {
		proofs = append(proofs, "witness")
	}
	return map[string]any{
		"messages":   Messages(),
		"actions":    []string{"place", "repost", "comment", "pay", "credit", "share"},
		"proofs":     proofs,
		"tracking":   map[string]any{"links": true, "codes": true},
		"signatures": map[string]any{"algs": []string{"EdDSA"}, "required": false},
		"inbox":      map[string]any{"poll": true},
		"checks":     map[string]any{"claims": h.claimsMode()},
	}
}
