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
