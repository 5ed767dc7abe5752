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
func identify(w http.ResponseWriter, r *http.Request, proxies clientip.Proxies, ids *requestid.Source) *http.Request {
	id := r.Header.Get(requestid.Header)
	if !requestid.Valid(id) || !proxies.FromProxy(r) {
		id = ids.Next()
	}
	w.Header()[requestid.Header] = []string{id} // the canonical form already: no key rewriting per request
	return r.WithContext(requestid.With(r.Context(), id))
}
