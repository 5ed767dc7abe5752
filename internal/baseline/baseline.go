// Package baseline holds what frontdesk's benchmarks measure it against:
// bare net/http handlers that answer as frontdesk does and do nothing
// else. The Go benchmarks and the load scripts' helper command share them,
// so both report their ratios to the same baseline.
//
// It imports only the standard library.
package baseline

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
)

// Destination is where Redirect sends every request.
const Destination = "https://acmenotes.example/pricing"

// Redirect answers the same 302 a live tracked link does, with a fresh
// 128-bit click id and the same headers, and nothing else.
func Redirect(w http.ResponseWriter, _ *http.Request) {
	id := make([]byte, 16)
	if _, err := io.ReadFull(rand.Reader, id); err != nil {
		http.Error(w, "no click id", http.StatusInternalServerError)
		return
	}
	found(w, id)
}

// found sends the 302 to Destination carrying click id, with a tracked
// link's headers.
func found(w http.ResponseWriter, id []byte) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Location", Destination+"?via="+base64.RawURLEncoding.EncodeToString(id))
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	w.WriteHeader(http.StatusFound)
}
