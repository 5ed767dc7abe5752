package orp_test

import (
	"encoding/json"
	"testing"

	"frontdesk/orp"
)

// TestTermsHashVectors recomputes every terms_hash in the specification
// (L0-HASH): 0.3 hashes cover the terms object; the 0.4 deal hash covers
// { terms, parties } without signed.
func TestTermsHashVectors(t *testing.T) {
	cases := []struct {
		example string
		parties bool
		want    string
	}{
		{"09.json", false, "sha256-Bti4pak22vzeA0HAuX0eLXhUQy1pnbf9YGiGKYgJpNo"},
		{"12.json", false, "sha256-Bti4pak22vzeA0HAuX0eLXhUQy1pnbf9YGiGKYgJpNo"},
		{"13.json", false, "sha256-XqlxlRGWPLFRQGlZNLpnwIpj-F1xr7UK1Pilom6pvCk"},
		{"23-04.json", false, "sha256-HA2twwIzdpw_Vgsy8k6lQr3yn08tFmkJkGmSrh0Jy1U"},
		{"24-04.json", true, "sha256-lx3RaehTPOZnKQISKqCAJWIiwbJ1U51oHl0gN791ukU"},
	}
	for _, c := range cases {
		t.Run(c.example, func(t *testing.T) {
			var m struct {
				Body struct {
					Terms     json.RawMessage              `json:"terms"`
					TermsHash string                       `json:"terms_hash"`
					Parties   []map[string]json.RawMessage `json:"parties"`
				} `json:"body"`
			}
			if err := json.Unmarshal(readExample(t, c.example), &m); err != nil {
				t.Fatal(err)
			}
			doc := []byte(m.Body.Terms)
			if c.parties {
				for _, p := range m.Body.Parties {
					delete(p, "signed")
				}
				doc, _ = json.Marshal(map[string]any{"terms": m.Body.Terms, "parties": m.Body.Parties})
			}
			got, err := orp.Hash(doc)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("hash = %s, want %s", got, c.want)
			}
			if m.Body.TermsHash != "" && m.Body.TermsHash != c.want {
				t.Fatalf("example carries %s, want %s", m.Body.TermsHash, c.want)
			}
		})
	}
}

// TestCanonical checks JCS on RFC 8785's own ordering and number cases.
func TestCanonical(t *testing.T) {
	got, err := orp.Canonical([]byte(`{"b": 1, "a": [3, {"d": "\u00e9", "c": 1e2}], "c": 30000}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[3,{"c":100,"d":"é"}],"b":1,"c":30000}`; string(got) != want {
		t.Fatalf("Canonical = %s, want %s", got, want)
	}
}
