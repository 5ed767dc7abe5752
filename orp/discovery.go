package orp

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
	Policies     map[string]any `json:"policies,omitempty"`
}

type conformance struct {
	Levels []string `json:"levels"`
}

// MCPTools are the tools of the MCP binding (§4.3).
var MCPTools = []string{"orp_suggest", "orp_join", "orp_send", "orp_inbox", "orp_deal"}

// Discovery returns the host's discovery document.
func (h *Host) Discovery() Discovery {
	d := Discovery{
		Orp: []string{Version}, Host: h.id, Name: h.opts.Name, Description: h.opts.Description,
		Endpoint: h.url("/orp"), Suggest: h.url("/orp/suggest"), Join: h.url("/orp/join"),
		Auth:         map[string]any{"bearer": true},
		Tracking:     map[string]any{"links": true, "codes": true, "base": h.url("/go/")},
		Capabilities: h.capabilities(),
	}
	if h.opts.MCP {
		d.MCP = map[string]any{"url": h.url("/orp/mcp"), "transport": "streamable-http", "auth": []string{"bearer", "join"},
			"binding": true, "tools": MCPTools}
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

// capabilities are what the host handles and sends (§6). Proofs list the
// methods this host verifies: link, by clicks, and provider, by signed
// payment-provider events; claims are not checked.
func (h *Host) capabilities() map[string]any {
	return map[string]any{
		"messages":   Messages(),
		"actions":    []string{"place", "repost", "comment", "pay", "credit", "share"},
		"proofs":     []string{"link", "provider"},
		"tracking":   map[string]any{"links": true, "codes": true},
		"signatures": map[string]any{"algs": []string{"EdDSA"}, "required": false},
		"inbox":      map[string]any{"poll": true},
		"checks":     map[string]any{"claims": "none"},
	}
}
