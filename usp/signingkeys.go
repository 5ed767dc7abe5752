package usp

import (
	"encoding/json"

	"frontdesk/internal/jwk"
)

// SigningKeysOf turns public JWKs into the profile's open-ended key
// objects.
func SigningKeysOf(pub []jwk.Public) ([]SigningKey, error) {
	out := make([]SigningKey, 0, len(pub))
	for _, p := range pub {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		var k SigningKey
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// WithProfileKeys is own and the signing keys the business profiles in
// profiles publish, each key id once: a split hub publishes its
// locations' keys beside its own, so that a platform verifies the
// webhooks each location signs against the one profile it reads. A
// profile that does not decode adds nothing.
func WithProfileKeys(own []SigningKey, profiles [][]byte) []SigningKey {
	seen := map[any]bool{}
	out := make([]SigningKey, 0, len(own))
	add := func(k SigningKey) {
		if id := k["kid"]; !seen[id] {
			seen[id] = true
			out = append(out, k)
		}
	}
	for _, k := range own {
		add(k)
	}
	for _, doc := range profiles {
		var p BusinessProfile
		if json.Unmarshal(doc, &p) == nil {
			for _, k := range p.SigningKeys {
				add(k)
			}
		}
	}
	return out
}
