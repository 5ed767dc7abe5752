package hub

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"frontdesk/business"
)

// maxUSPBody is the largest USP request body the hub reads to find its
// location: the binding's own limit (64 KiB) and one byte. A larger body
// names nothing here, and the hub's own binding refuses it as a
// location's would.
const maxUSPBody = 64<<10 + 1

// USP forwards a USP REST call to the location that owns what it names,
// headers and body untouched: in its path a booking (its reference,
// RIV-…), a hold (hold_ and the reference), a UCP checkout (chk_ and
// the reference), a waitlist entry (wl_, naming its service) or a
// payment page (its token, APS.…), else in its body a service
// (svc_riverside_…) or a slot (slot_riverside_…).
// The location authenticates the platform itself, as in one process:
// its public URL is the hub's, so a proof bound to the hub's URL and a
// signature over the hub's authority verify there, against its own
// replay cache, idempotency records and booking-scoped credentials. The
// hub holds no platform credential and checks none.
//
// A call that names no location goes to own, the hub's USP binding: the
// profile, the interface documents and the catalog, all built from the
// config the hub holds whole, and the problems of a call that names no
// service. A nil proxy gives own itself.
func (px *Proxy) USP(own http.Handler) http.Handler {
	if px == nil {
		return own
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug, ok := px.uspOwner(r)
		if !ok && r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxUSPBody))
			if err != nil {
				own.ServeHTTP(w, r) // the binding answers an unreadable body as it would any
				return
			}
			r = r.Clone(r.Context())
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			var named struct {
				ServiceID string `json:"service_id"`
				SlotID    string `json:"slot_id"`
			}
			if json.Unmarshal(body, &named) == nil {
				fields := map[string]string{"service_id": named.ServiceID, "slot_id": named.SlotID}
				slug, ok = px.namedOwner(func(name string) string { return fields[name] })
			}
		}
		if !ok {
			own.ServeHTTP(w, r)
			return
		}
		r = r.Clone(context.WithValue(r.Context(), uspCall{}, true))
		r.SetPathValue(slugValue, slug)
		px.ServeHTTP(w, r)
	})
}

// uspCall marks a request's context as a USP call, which a location
// that cannot be reached answers with a USP problem, not the HTML page.
type uspCall struct{}

// USP's service_unavailable problem (usp.ProblemType), and the seconds
// its Retry-After asks a platform to wait (usp.RetryAfter).
const (
	uspUnavailable = "https://usp-protocol.dev/errors/service-unavailable"
	uspRetryAfter  = "5"
)

// uspUnreachable answers a USP call whose location did not answer, as
// USP asks of a business that cannot answer now (§9.4.3): 503, with
// Retry-After, the location's name and phone, nothing of its address.
func uspUnreachable(w http.ResponseWriter, r *http.Request, l business.Location) {
	body, _ := json.Marshal(map[string]any{"type": uspUnavailable, "title": http.StatusText(http.StatusServiceUnavailable), "status": http.StatusServiceUnavailable,
		"detail": (&Unreachable{Location: l}).Error(), "instance": r.URL.Path})
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", uspRetryAfter)
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(append(body, '\n')) // the answer is decided; a client gone away is no fault here
}

// uspOwner is the location a USP path names: a booking's reference, a
// hold's ("hold_" and its reservation's reference), a UCP checkout's
// ("chk_" and the reference), a waitlist entry's service or a payment
// page's located token.
func (px *Proxy) uspOwner(r *http.Request) (string, bool) { return px.namedOwner(r.PathValue) }

// namedOwner is the location the ids a USP call names belong to, by the
// names REST's paths and bodies and MCP's arguments share: a booking
// (booking_id, its reference), a hold (hold_id, "hold_" and the
// reference), a UCP checkout (checkout_id, "chk_" and the reference), a
// payment page (token, located), a waitlist entry (entry_id, naming its
// service), else a service (service_id) or a slot (slot_id). The first
// id present decides; get gives "" for a name the call lacks.
func (px *Proxy) namedOwner(get func(name string) string) (string, bool) {
	if ref := get("booking_id"); ref != "" {
		return px.owner(ref)
	}
	if hold, ok := strings.CutPrefix(get("hold_id"), "hold_"); ok {
		return px.owner(hold)
	}
	if checkout, ok := strings.CutPrefix(get("checkout_id"), "chk_"); ok {
		return px.owner(checkout)
	}
	if prefix, _, located := business.SplitToken(get("token")); located {
		return px.ownerOf(prefix) // a payment page's token
	}
	// A waitlist entry's id is wl_ and the base64url of its stored key,
	// which starts with its service's id and a bar (usp's entryID).
	if entry, ok := strings.CutPrefix(get("entry_id"), "wl_"); ok {
		if key, err := base64.RawURLEncoding.DecodeString(entry); err == nil {
			service, _, _ := strings.Cut(string(key), "|")
			return px.idOwner(service, "svc_")
		}
		return "", false
	}
	if slug, ok := px.idOwner(get("service_id"), "svc_"); ok {
		return slug, true
	}
	return px.idOwner(get("slot_id"), "slot_")
}

// idOwner is the proxied location a catalog id names: prefix, the slug
// (which has no underscore) and an underscore, as svc_riverside_double.
func (px *Proxy) idOwner(id, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return "", false
	}
	slug, _, ok := strings.Cut(rest, "_")
	if _, proxied := px.targets[slug]; !ok || !proxied {
		return "", false
	}
	return slug, true
}
