package orp

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"frontdesk/store"
)

// The host signs the messages §18 names (deal, consent, receipt, payout
// and reputation) with an Ed25519 key and publishes every key it signed
// with in the discovery document's keys (§4.1), so a party can verify a
// host message, and a consent stays verifiable after the key rotates.
//
// The key ring lives in the store under one record, so every instance
// behind a load balancer signs with the same key and a restart keeps it.

// signedHostTypes are the host messages the host signs (§18).
var signedHostTypes = []string{"deal", "consent", "receipt", "payout", "reputation"}

// kindHostKey keys the host's signing key ring.
const kindHostKey = "orp.hostkey"

// hostKeyRing is the one record key of the ring.
const hostKeyRing = "ring"

// maxHostKeys bounds the ring: a rotation past it drops the oldest key,
// whose signatures then no longer verify.
const maxHostKeys = 8

type hostKey struct {
	Kid     string    `json:"kid"`
	Seed    string    `json:"seed"` // base64url of the 32-byte Ed25519 seed
	Created time.Time `json:"created"`
}

type keyRing struct {
	Keys []hostKey `json:"keys"` // oldest first; the last one signs
}

// Signer signs host messages with the ring's newest key. It is immutable
// and safe for concurrent use; a rotation returns a new Signer.
type Signer struct {
	kid  string
	key  ed25519.PrivateKey
	keys []JWK // published, newest first
}

// OpenSigner loads the host's key ring, creating it with one key drawn
// from random when the store has none.
func OpenSigner(ctx context.Context, records store.Records, now time.Time, random io.Reader) (*Signer, error) {
	s, err := addHostKey(ctx, records, now, random, false)
	if err != nil {
		return nil, fmt.Errorf("open host key: %w", err)
	}
	return s, nil
}

// RotateSigner adds a new signing key to the ring and returns the signer
// that uses it. The older keys stay published, so what they signed still
// verifies; beyond maxHostKeys the oldest is dropped.
func RotateSigner(ctx context.Context, records store.Records, now time.Time, random io.Reader) (*Signer, error) {
	s, err := addHostKey(ctx, records, now, random, true)
	if err != nil {
		return nil, fmt.Errorf("rotate host key: %w", err)
	}
	return s, nil
}

// addHostKey adds a key drawn from random to the ring, or, unless rotate,
// only when the ring has none. An instance that changed the ring first
// makes it decide again on that ring.
func addHostKey(ctx context.Context, records store.Records, now time.Time, random io.Reader, rotate bool) (*Signer, error) {
	ring, err := store.Update(ctx, records, kindHostKey, hostKeyRing, now, func(ring *keyRing, _ bool) error {
		if !rotate && len(ring.Keys) > 0 {
			return store.ErrNoChange
		}
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(random, seed); err != nil {
			return err
		}
		kid := "host-" + now.UTC().Format("20060102T150405Z")
		for _, k := range ring.Keys {
			if k.Kid == kid {
				kid += "-" + fmt.Sprint(len(ring.Keys))
			}
		}
		ring.Keys = append(ring.Keys, hostKey{Kid: kid, Seed: base64.RawURLEncoding.EncodeToString(seed), Created: now})
		if len(ring.Keys) > maxHostKeys {
			ring.Keys = ring.Keys[len(ring.Keys)-maxHostKeys:]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ring.signer()
}

func (ring keyRing) signer() (*Signer, error) {
	s := &Signer{}
	for i := len(ring.Keys) - 1; i >= 0; i-- {
		k := ring.Keys[i]
		seed, err := base64.RawURLEncoding.DecodeString(k.Seed)
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("host key %s: bad seed", k.Kid)
		}
		priv := ed25519.NewKeyFromSeed(seed)
		if s.key == nil {
			s.kid, s.key = k.Kid, priv
		}
		pub := priv.Public().(ed25519.PublicKey)
		s.keys = append(s.keys, JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: k.Kid, Alg: "EdDSA", Use: "sig"})
	}
	return s, nil
}

// NewSigner is a signer of one fixed key, published under kid: for tests
// and hosts that keep their key outside the store.
func NewSigner(kid string, key ed25519.PrivateKey) *Signer {
	pub := key.Public().(ed25519.PublicKey)
	return &Signer{kid: kid, key: key, keys: []JWK{{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: kid, Alg: "EdDSA", Use: "sig"}}}
}

// KeyID is the kid of the key that signs.
func (s *Signer) KeyID() string { return s.kid }

// Keys are the published keys, newest first: the discovery document's
// keys (§4.1).
func (s *Signer) Keys() []JWK { return slices.Clone(s.keys) }

// Sign returns msg, a host message envelope, with sig set: a detached
// compact JWS with EdDSA over the JCS form of the envelope without sig
// (§5), whose header names the key by kid.
func (s *Signer) Sign(msg []byte) ([]byte, error) {
	sig, err := SignDetached(msg, s.kid, s.key)
	if err != nil {
		return nil, fmt.Errorf("sign host message: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("sign host message: %w", err)
	}
	m["sig"] = mustJSON(sig)
	return json.Marshal(m)
}

// VerifyHostMessage reports whether msg carries a sig that verifies
// against the key of keys its header names (E9). A party verifies host
// messages with the discovery document's keys.
func VerifyHostMessage(msg []byte, keys []JWK) bool {
	var env struct {
		Sig string `json:"sig"`
	}
	if json.Unmarshal(msg, &env) != nil || env.Sig == "" {
		return false
	}
	h64, _, _ := strings.Cut(env.Sig, ".")
	hb, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return false
	}
	var hdr struct {
		Kid string `json:"kid"`
	}
	if json.Unmarshal(hb, &hdr) != nil {
		return false
	}
	for _, k := range keys {
		if k.Kid != hdr.Kid {
			continue
		}
		pub, err := publicKey(k)
		return err == nil && VerifyDetached(msg, env.Sig, pub)
	}
	return false
}

// signs reports whether the host signs messages of type typ.
func (s *Signer) signs(typ string) bool { return s != nil && slices.Contains(signedHostTypes, typ) }
