package hub

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// MaxEventBody is the largest payment event the hub reads to find its
// location, as large as a location itself reads.
const MaxEventBody = 256 << 10

// paymentEvent is the part of a payment provider's event that names the
// reservation: a checkout session's metadata carries its reference.
type paymentEvent struct {
	Data struct {
		Object struct {
			Metadata map[string]string `json:"metadata"`
		} `json:"object"`
	} `json:"data"`
}

// PaymentEvents forwards a payment provider's signed event to the
// location whose reservation reference its metadata names, body and
// signature untouched: the location checks the signature with its own
// secret. An event that names no reservation of a proxied location (a
// refund's, another business's, or no JSON at all) goes to other, the
// hub's own handler, which checks and answers it as it would any event
// naming no payment of this business. A nil proxy gives other itself.
func (px *Proxy) PaymentEvents(other http.Handler) http.Handler {
	if px == nil {
		return other
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxEventBody))
		if err != nil {
			http.Error(w, "The event could not be read.", http.StatusBadRequest)
			return
		}
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		var ev paymentEvent
		slug, ok := "", false
		if json.Unmarshal(body, &ev) == nil {
			slug, ok = px.owner(ev.Data.Object.Metadata["reference"])
		}
		if !ok {
			other.ServeHTTP(w, r)
			return
		}
		r.SetPathValue(slugValue, slug)
		px.ServeHTTP(w, r)
	})
}

// owner is the proxied location whose reference prefix starts ref, as
// "RIV-0123…" is Riverside Inn's.
func (px *Proxy) owner(ref string) (string, bool) {
	prefix, _, ok := strings.Cut(ref, "-")
	if !ok {
		return "", false
	}
	return px.ownerOf(prefix)
}

// ownerOf is the proxied location whose reference prefix is prefix.
func (px *Proxy) ownerOf(prefix string) (string, bool) {
	if prefix == "" {
		return "", false
	}
	for slug, l := range px.locs {
		if l.Prefix == prefix {
			return slug, true
		}
	}
	return "", false
}
