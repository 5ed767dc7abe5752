package keyset

import (
	"encoding/json"
	"testing"

	"frontdesk/internal/golden"
)

// TestPublishedForm pins the keys a business profile publishes and the
// deterministic fields of a signed webhook, with fixed randomness and
// clock (ECDSA signatures themselves are randomized).
func TestPublishedForm(t *testing.T) {
	s := Set{Records: openSQLite(t), Rand: seeded(40)}
	if err := s.Ensure(t.Context(), t0); err != nil {
		t.Fatal(err)
	}
	pub, err := s.Published(t.Context(), t0)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := webhook(t, s, t0)
	out, err := json.MarshalIndent(map[string]any{
		"keys":            pub,
		"signature_input": r.Header.Get("Signature-Input"),
		"content_digest":  r.Header.Get("Content-Digest"),
		"content_type":    r.Header.Get("Content-Type"),
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "published.json", append(out, '\n'))
}
