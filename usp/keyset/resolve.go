package keyset

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/json"

	"frontdesk/internal/httpsig"
	"frontdesk/internal/jwk"
)

// ProfileKeys resolves a keyid against the keys a counterparty's profile
// publishes: against keys when the profile has that member, else against
// signing_keys (§10.1.1). Keys this package cannot verify with are
// skipped, not refused, as the forward-compatibility rule asks; a
// malformed key of a known type is skipped too, so it can never verify.
type ProfileKeys struct {
	Keys        []json.RawMessage // the profile's keys; nil when absent
	SigningKeys []json.RawMessage // the transition alias
}

var _ httpsig.Resolver = ProfileKeys{}

// ResolveKey finds the key with kid id, or returns httpsig.ErrKeyNotFound.
func (p ProfileKeys) ResolveKey(_ context.Context, id string) (httpsig.VerifyingKey, error) {
	list := p.Keys
	if list == nil {
		list = p.SigningKeys
	}
	for _, raw := range list {
		k, err := jwk.Parse(raw)
		if err != nil || k.KeyID != id || k.Use == "enc" {
			continue
		}
		// An alg member must agree with the key; a key meant for another
		// algorithm is not one this package verifies with.
		switch pub := k.Public.(type) {
		case ed25519.PublicKey:
			if k.Algorithm == "" || k.Algorithm == "EdDSA" || k.Algorithm == "Ed25519" {
				return httpsig.VerifyingKey{Algorithm: httpsig.Ed25519, Key: pub}, nil
			}
		case *ecdsa.PublicKey:
			if k.Algorithm == "" || k.Algorithm == "ES256" {
				return httpsig.VerifyingKey{Algorithm: httpsig.ECDSAP256SHA256, Key: pub}, nil
			}
		}
	}
	return httpsig.VerifyingKey{}, httpsig.ErrKeyNotFound
}
