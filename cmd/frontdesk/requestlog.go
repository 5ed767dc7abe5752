package main

import (
	"net/http"

	"frontdesk/internal/clientip"
	"frontdesk/internal/requestid"
)

// identify gives r its request id: the one a trusted proxy sent in
// X-Request-Id when it is well-formed, else a fresh one. The id is echoed
// in the answer and carried by r's context, so every line logged for the
// request names it.
func (m *Main) identify(w http.ResponseWriter, r *http.Request, proxies clientip.Proxies) *http.Request {
	id := r.Header.Get(requestid.Header)
	if !requestid.Valid(id) || !proxies.FromProxy(r) {
		id = requestid.New(m.Rand)
	}
	w.Header().Set(requestid.Header, id)
	return r.WithContext(requestid.With(r.Context(), id))
}
