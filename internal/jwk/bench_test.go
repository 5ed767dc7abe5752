package jwk

import (
	"crypto/ed25519"
	"testing"
)

// BenchmarkParseEd25519 measures reading a proof header's key, weak-point
// check included, against its baseline: one Ed25519 signature
// verification, which every proof costs anyway.
func BenchmarkParseEd25519(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte("eyJhbGciOiJFZERTQSJ9.eyJpYXQiOjF9")
	sig := ed25519.Sign(priv, msg)
	raw := []byte(edJWK(pub))
	b.Run("ed25519_verify", func(b *testing.B) {
		for range b.N {
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("no")
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		for range b.N {
			if _, err := Parse(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
