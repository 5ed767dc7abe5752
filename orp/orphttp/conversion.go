package orphttp

import (
	"encoding/json"
	"net/http"
)

// conversion takes the payer's own report of a sale or refund that carries
// a click id or a code (T10), with the payer's bearer. It is this host's
// own endpoint: ORP 0.3 has no message that carries a click id. Payment
// providers' events enter through providerEvent.
func (s *Server) conversion(w http.ResponseWriter, r *http.Request) {
	res, err := s.Host.ReportConversion(r.Context(), bearer(r), readBody(r))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(res)
	writeJSON(w, http.StatusOK, b)
}
