package usphttp

import (
	"context"
	"encoding/json"
	"net/http"

	"frontdesk/business"
	"frontdesk/hub"
	"frontdesk/usp"
)

// Locations is a split hub's way to its locations' REST bindings
// (*hub.Proxy), for the answers that span them.
type Locations interface {
	USPLocations() []business.Location
	USPForward(ctx context.Context, slug string, r *http.Request, body []byte) (hub.USPAnswer, error)
}

var _ Locations = (*hub.Proxy)(nil)

// spans reports whether the handler serves a split hub with locations.
func (h *Handler) spans() bool {
	return h.Locations != nil && len(h.Locations.USPLocations()) > 0
}

// relayed is a location's answer passed on as it is: its protocol
// error, which every location would give alike (the platform's
// credentials, a bad cursor).
type relayed struct{ hub.USPAnswer }

// write answers with the location's status, type and body.
func (a relayed) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", a.Header.Get("Content-Type"))
	for _, h := range []string{"Retry-After", "DPoP-Nonce", "WWW-Authenticate"} {
		if v := a.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(a.Status)
	w.Write(a.Body) // the answer is decided; a client gone away is no fault here
}

// listEveryWaitlist asks every location in parallel (hub.Span) for the platform's waitlist entries, with its
// request as made, and merges the answers (usp.MergeWaitlists), as the
// MCP binding does.
func (h *Handler) listEveryWaitlist(ctx context.Context, r *http.Request, body []byte) (any, error) {
	all := h.Locations.USPLocations()
	answers := make([]hub.USPAnswer, len(all))
	errs := make([]error, len(all))
	hub.Span(ctx, all, func(ctx context.Context, i int, l business.Location) {
		answers[i], errs[i] = h.Locations.USPForward(ctx, l.Slug, r, body)
	})
	parts := make([]usp.WaitlistPart, len(all))
	for i, a := range answers {
		parts[i].Unread = (&hub.Unreachable{Location: all[i]}).Error()
		if errs[i] != nil {
			continue
		}
		if a.Status != http.StatusOK {
			return relayed{a}, nil
		}
		var list usp.WaitlistListResult
		if json.Unmarshal(a.Body, &list) == nil {
			parts[i] = usp.WaitlistPart{List: &list}
		}
	}
	return usp.MergeWaitlists(parts)
}
