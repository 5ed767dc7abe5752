package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Destination rules (§18). A tracked link sends browsers under this
// host's name, so the host decides where it may send them:
//
//   - the URL is absolute http or https, names a domain (not an address),
//     carries no user name or password, and uses its scheme's default port;
//   - its domain is not one the owner blocked (Options.BlockedDomains);
//   - its domain is a site declared for the deal: one of the owner's own
//     sites (Options.Sites), or the site of a web space listed by a
//     claimed party of the deal. An unclaimed party has no person behind
//     it, so it can declare no site of its own, and two throwaway parties
//     cannot point the host's links at a site nobody vouched for.
//
// A domain covers its subdomains. The checks run when terms are offered,
// before any deal or link exists; a domain blocked later stops the links
// already minted, which then send browsers to the host's home page.

// destinationSyntax words what makes raw unfit as a destination, or "".
func destinationSyntax(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || strings.ContainsAny(raw, "\\\x00") || u.Host == "" || u.Opaque != "":
		return "destination must be an absolute http or https URL."
	case u.Scheme != "https" && u.Scheme != "http":
		return "destination must be an http or https URL."
	case u.User != nil:
		return "destination must not carry a user name or password."
	case u.Port() != "" && !(u.Scheme == "https" && u.Port() == "443" || u.Scheme == "http" && u.Port() == "80"):
		return "destination must use the default port of its scheme."
	}
	host := strings.ToLower(u.Hostname())
	if net.ParseIP(host) != nil || !strings.Contains(host, ".") || strings.HasSuffix(host, ".") {
		return "destination must name a domain, not an address."
	}
	return ""
}

// destinationHost is the lowercased host name of a destination that
// passed destinationSyntax.
func destinationHost(raw string) string {
	u, _ := url.Parse(raw)
	return strings.ToLower(u.Hostname())
}

// within reports whether host is domain or one of its subdomains.
func within(host, domain string) bool {
	domain = strings.ToLower(strings.TrimSuffix(domain, "."))
	return domain != "" && (host == domain || strings.HasSuffix(host, "."+domain))
}

func withinAny(host string, domains []string) bool {
	for _, d := range domains {
		if within(host, d) {
			return true
		}
	}
	return false
}

// blocked reports whether the owner blocked the destination's domain.
func (h *Host) blocked(destination string) bool {
	return destinationSyntax(destination) != "" || withinAny(destinationHost(destination), h.opts.BlockedDomains)
}

// checkDestinations refuses terms with a link destination the rules above
// do not allow. parties are the deal's parties known so far.
func (h *Host) checkDestinations(ctx context.Context, t terms, parties ...string) error {
	var declared []string
	loaded := false
	for i, ob := range t.Obligations {
		if ob.Destination == "" {
			continue
		}
		field := fmt.Sprintf("/body/terms/obligations/%d/destination", i)
		if msg := destinationSyntax(ob.Destination); msg != "" {
			return invalid(field, msg)
		}
		host := destinationHost(ob.Destination)
		if withinAny(host, h.opts.BlockedDomains) {
			return refuse(Forbidden, "The owner of this host blocked the destination's domain.")
		}
		if withinAny(host, h.opts.Sites) {
			continue
		}
		if !loaded {
			var err error
			if declared, err = h.declaredSites(ctx, parties); err != nil {
				return err
			}
			loaded = true
		}
		if !withinAny(host, declared) {
			return refuse(Forbidden, "The destination is not on a site declared for this deal: the host owner's sites, or a web space listed by a claimed party of the deal.")
		}
	}
	return nil
}

// declaredSites are the domains of the listed spaces of the claimed
// parties among ids.
func (h *Host) declaredSites(ctx context.Context, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		opaque := h.opaqueOf(id)
		if opaque == "" {
			continue
		}
		var p Party
		if _, err := h.get(ctx, kindParty, opaque, &p); err != nil || !p.Claimed {
			continue
		}
		recs, err := h.store.List(ctx, kindSpace, opaque+"/", "", 100)
		if err != nil {
			return nil, fmt.Errorf("list spaces: %w", err)
		}
		for _, r := range recs {
			var s spaceRecord
			var sp struct {
				Locator string `json:"locator"`
			}
			if err := json.Unmarshal(r.Value, &s); err != nil {
				return nil, fmt.Errorf("decode space %s: %w", r.Key, err)
			}
			if s.Status != statusListed {
				continue
			}
			if err := json.Unmarshal(s.Space, &sp); err != nil {
				return nil, fmt.Errorf("decode space %s: %w", r.Key, err)
			}
			if sp.Locator != "" && destinationSyntax(sp.Locator) == "" {
				out = append(out, destinationHost(sp.Locator))
			}
		}
	}
	return out, nil
}
