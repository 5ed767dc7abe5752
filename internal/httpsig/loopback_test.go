package httpsig

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestLoopback signs requests as a client builds them and verifies them
// as a server receives them, over real HTTP and HTTPS, so the two ends
// derive every component the same way.
func TestLoopback(t *testing.T) {
	keys := loadKeys(t)
	now := time.Unix(1_800_000_000, 0)
	components := []Component{C("@method"), C("@target-uri"), C("@authority"), C("@scheme"), C("@request-target"), C("@path"), C("@query"), QueryParam("a b"), C("content-digest"), C("content-type"), C("idempotency-key")}
	policy := Policy{Required: []string{"@method", "@authority", "@path", "content-digest"}, RequiredIfPresent: []string{"idempotency-key"}, RequireCreated: true, MaxAge: time.Minute}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if err := VerifyContentDigest(r.Header.Values("Content-Digest"), body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := Verify(r.Context(), Request(r), now, keys.resolver(), policy); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	for _, srv := range []*httptest.Server{httptest.NewServer(handler), httptest.NewTLSServer(handler)} {
		t.Cleanup(srv.Close)
		for _, key := range []SigningKey{
			{ID: "test-key-ed25519", Algorithm: Ed25519, Key: keys.ed25519},
			{ID: "test-key-ecc-p256", Algorithm: ECDSAP256SHA256, Key: keys.p256},
		} {
			send := func(tamper func(*http.Request)) int {
				body := []byte(`{"service_id":"svc_1"}`)
				r, err := http.NewRequestWithContext(context.Background(), "POST", srv.URL+"/usp/bookings?a+b=c%2Fd&x=1", bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Idempotency-Key", "550e8400-e29b-41d4-a716-446655440000")
				digest, _ := ContentDigest(body, SHA256, SHA512)
				r.Header.Set("Content-Digest", digest)
				s, err := Sign(Request(r), SignOptions{Components: components, Created: now}, key, rand.Reader)
				if err != nil {
					t.Fatal(err)
				}
				s.SetHeaders(r.Header)
				tamper(r)
				resp, err := srv.Client().Do(r)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := send(func(*http.Request) {}); got != http.StatusNoContent {
				t.Errorf("%s %s: status %d, want 204", srv.URL, key.Algorithm, got)
			}
			if got := send(func(r *http.Request) { r.URL.RawQuery = "a+b=c%2Fd&x=2" }); got != http.StatusUnauthorized {
				t.Errorf("%s %s, query changed: status %d, want 401", srv.URL, key.Algorithm, got)
			}
			if got := send(func(r *http.Request) { r.Header.Set("Idempotency-Key", "other") }); got != http.StatusUnauthorized {
				t.Errorf("%s %s, idempotency key changed: status %d, want 401", srv.URL, key.Algorithm, got)
			}
		}
	}
}
