package orphttp

import (
	"encoding/json"
	"net/http"
)

// issueCode issues a partner code for a deal to the deal's offerer,
// authenticated by its bearer (POST /orp/deals/{deal}/codes).
func (s *Server) issueCode(w http.ResponseWriter, r *http.Request) {
	c, err := s.Host.IssueCode(r.Context(), bearer(r), r.PathValue("deal"))
	if err != nil {
		s.fail(w, err)
		return
	}
	b, _ := json.Marshal(c)
	writeJSON(w, http.StatusOK, b)
}
