package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ReferralOffer is the business's own standing offer: a tracked link and
// a code to a location's booking form, paying a share of each booking it
// brings, reported by the business (attestation).
type ReferralOffer struct {
	Business string // the business's name, for the title
	Origin   string // the public origin the form is served on
	Domain   string // the location's own domain, "" for none
	Slug     string // the location's slug
	BPS      int    // the share paid, in basis points; 0 lists nothing
}

// ListReferralOffer lists o. The form is on the public origin when that
// is a domain, else on the location's own domain; with neither, or no
// share, nothing is listed.
func (h *Host) ListReferralOffer(ctx context.Context, o ReferralOffer) error {
	bps := o.BPS
	if bps == 0 {
		return nil
	}
	base := strings.TrimSuffix(o.Origin, "/")
	if u, err := url.Parse(base); err != nil || net.ParseIP(u.Hostname()) != nil || !strings.Contains(u.Hostname(), ".") || u.Port() != "" {
		if o.Domain == "" {
			return nil
		}
		base = "https://" + strings.ToLower(o.Domain)
	}
	terms := map[string]any{
		"title": fmt.Sprintf("%s: %d.%02d%% of each booking you refer", o.Business, bps/100, bps%100),
		"kind":  "affiliate", "categories": []string{"travel.lodging"},
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{
			// A code beside the link: a guest types it in the form's code
			// field, a platform passes it as _meta.orp.code (T9).
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "code": true},
				"destination": base + "/book/" + o.Slug, "proof": []string{"link"}},
			map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": bps,
				"window": "P30D", "rail": "manual", "proof": []string{"attestation"}},
		},
	}
	body, err := json.Marshal(map[string]any{"terms": terms})
	if err != nil {
		return err
	}
	_, err = h.ListBusinessOffer(ctx, body)
	return err
}
