package orphttp

import (
	"encoding/json"
	"net/http"
)

// providerEvent takes a payment provider's signed webhook event
// (Stripe-compatible: the Stripe-Signature header). The domain checks
// the signature and replay window and applies each event id once; a
// refusal is an ORP error message with its status, so the provider
// retries only what can succeed.
func (s *Server) providerEvent(w http.ResponseWriter, r *http.Request) {
	res, err := s.Host.ProviderEvent(r.Context(), r.PathValue("provider"), r.Header.Get("Stripe-Signature"), readBody(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(res)
	writeJSON(w, http.StatusOK, b)
}
