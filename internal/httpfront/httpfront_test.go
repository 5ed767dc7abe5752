package httpfront

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"testing"

	"frontdesk/internal/clientip"
	"frontdesk/internal/requestid"
)

// BenchmarkIdentify is what the request id adds to every request: a
// fresh id from crypto/rand, the echoed header and the context value.
func BenchmarkIdentify(b *testing.B) {
	ids, _ := requestid.NewSource(rand.Reader)
	r := httptest.NewRequest(http.MethodGet, "/go/token", nil)
	w := httptest.NewRecorder()
	var proxies clientip.Proxies
	b.ReportAllocs()
	for b.Loop() {
		identify(w, r, proxies, ids)
	}
}
