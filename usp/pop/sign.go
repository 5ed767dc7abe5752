package pop

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"frontdesk/internal/jwk"
)

// Sign makes a proof as a platform does: header {alg, jwk, typ} and the
// claims, each JSON with its members in sorted order, signed with Ed25519.
// The business never signs proofs; this serves the platforms in tests and
// the USP client tooling.
func Sign(priv ed25519.PrivateKey, b Binding, c Claims) (string, error) {
	key, err := jwk.FromPublic(priv.Public(), "")
	if err != nil {
		return "", err
	}
	pub := key.Publish()
	h, err := json.Marshal(map[string]any{
		"alg": "EdDSA",
		"jwk": map[string]string{"kty": pub.Kty, "crv": pub.Crv, "x": pub.X},
		"typ": b.typ(),
	})
	if err != nil {
		return "", fmt.Errorf("pop: header: %w", err)
	}
	// A map marshals with sorted keys, and leaves out what is empty just
	// as the struct tags do.
	var claims map[string]any
	raw, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("pop: claims: %w", err)
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		return "", fmt.Errorf("pop: claims: %w", err)
	}
	p, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("pop: claims: %w", err)
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
	return signing + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(signing))), nil
}
