package baseline

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRedirect: a 302 to the destination with a fresh click id each
// time and the headers a tracked link sends.
func TestRedirect(t *testing.T) {
	seen := map[string]bool{}
	for range 2 {
		rec := httptest.NewRecorder()
		Redirect(rec, httptest.NewRequest("GET", "/go/x", nil))
		loc := rec.Header().Get("Location")
		if rec.Code != http.StatusFound || !strings.HasPrefix(loc, Destination+"?via=") || len(loc) != len(Destination)+len("?via=")+22 {
			t.Fatalf("answer = %d %q", rec.Code, loc)
		}
		if seen[loc] {
			t.Fatalf("click id repeated: %q", loc)
		}
		seen[loc] = true
		for _, h := range []string{"Cache-Control", "Referrer-Policy", "X-Robots-Tag"} {
			if rec.Header().Get(h) == "" {
				t.Errorf("no %s", h)
			}
		}
	}
}
