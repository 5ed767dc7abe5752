package usp_test

import (
	"net/http"

	"frontdesk/usp"
	"frontdesk/usp/usphttp"
)

// restMux mounts the REST binding's routes for b as cmd/frontdesk does,
// without its host checks and deadlines.
func restMux(b *usp.Business) http.Handler {
	m := http.NewServeMux()
	for _, r := range (&usphttp.Handler{Business: b}).Routes() {
		m.Handle(r.Pattern, r.Handler)
	}
	return m
}
