// Package keyset holds the business's signing keys for USP: the ECDSA
// P-256 keys that sign webhooks (ecdsa-p256-sha256, §10.1.1) and that the
// business profile publishes in keys and signing_keys. It rotates them
// with an overlap: a new key is published a lead time before it starts
// signing, and a retired key stays published and verifying for a grace
// period after. It also resolves a counterparty's keyid against the keys
// its profile publishes, keys before signing_keys.
//
// The set is one store record, compared-and-swapped, so every instance
// signs with the same key; retired keys past their grace are dropped at
// the next rotation, so the record stays small.
//
// It imports the store contracts, internal/jwk and internal/httpsig.
package keyset

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"frontdesk/internal/httpsig"
	"frontdesk/internal/jwk"
	"frontdesk/store"
)

// Record kind and key of the set.
const (
	Kind = "usp-signing-keys"
	key  = "business"
)

// MinGrace is the least time a retired key stays valid: §10.1.1 keeps old
// keys at least seven days after a rotation.
const MinGrace = 7 * 24 * time.Hour

// Set is the business's key set on the store.
type Set struct {
	Records store.Records
	Rand    io.Reader // crypto/rand.Reader in production
	// Lead is how long a new key is published before it signs, so that
	// platforms holding a cached profile learn it first.
	Lead time.Duration
	// Grace is how long a replaced key stays published and verifying; at
	// least MinGrace.
	Grace time.Duration
}

// Key is one signing key of the set.
type Key struct {
	ID         string // the RFC 7638 thumbprint of its public key
	Private    *ecdsa.PrivateKey
	ActiveFrom time.Time // when it starts signing
	// RetiredAt is when its successor started signing; zero while it has
	// none.
	RetiredAt time.Time
}

type storedKey struct {
	ID         string    `json:"kid"`
	D          string    `json:"d"`
	ActiveFrom time.Time `json:"active_from"`
}

type storedSet struct {
	Keys []storedKey `json:"keys"` // by ActiveFrom, oldest first
}

func (s Set) grace() time.Duration { return max(s.Grace, MinGrace) }

// load returns the set, empty when it does not exist yet.
func (s Set) load(ctx context.Context) (storedSet, error) {
	ss, _, err := store.GetJSON[storedSet](ctx, s.Records, Kind, key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return storedSet{}, fmt.Errorf("keyset: %w", err)
	}
	return ss, nil
}

// newKey draws a P-256 private key from s.Rand: 32 bytes read as the
// scalar, drawn again in the rare case it is out of range.
func (s Set) newKey(activeFrom time.Time) (storedKey, error) {
	for range 8 {
		d := make([]byte, 32)
		if _, err := io.ReadFull(s.Rand, d); err != nil {
			return storedKey{}, fmt.Errorf("keyset: random: %w", err)
		}
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
		if err != nil {
			continue
		}
		k, err := jwk.FromPublic(&priv.PublicKey, "")
		if err != nil {
			return storedKey{}, err
		}
		return storedKey{ID: k.Thumbprint(), D: base64.RawURLEncoding.EncodeToString(d), ActiveFrom: activeFrom.UTC()}, nil
	}
	return storedKey{}, errors.New("keyset: no valid scalar drawn")
}

// update applies change to the stored set with store.Update, creating
// it when absent; change returns store.ErrNoChange to write nothing.
func (s Set) update(ctx context.Context, now time.Time, change func(ss *storedSet) error) error {
	_, err := store.Update(ctx, s.Records, Kind, key, now, func(ss *storedSet, _ bool) error { return change(ss) })
	if err != nil {
		return fmt.Errorf("keyset: update: %w", err)
	}
	return nil
}

// Ensure creates the first key, active at once, unless the set has one.
func (s Set) Ensure(ctx context.Context, now time.Time) error {
	return s.update(ctx, now, func(ss *storedSet) error {
		if len(ss.Keys) > 0 {
			return store.ErrNoChange
		}
		k, err := s.newKey(now)
		if err != nil {
			return err
		}
		ss.Keys = []storedKey{k}
		return nil
	})
}

// Rotate adds a key that starts signing Lead after now, and drops keys
// whose grace ended. It returns the new key's id.
func (s Set) Rotate(ctx context.Context, now time.Time) (string, error) {
	var id string
	err := s.update(ctx, now, func(ss *storedSet) error {
		k, err := s.newKey(now.Add(s.Lead))
		if err != nil {
			return err
		}
		id = k.ID
		ss.Keys = append(s.live(ss.Keys, now), k)
		slices.SortStableFunc(ss.Keys, func(a, b storedKey) int { return a.ActiveFrom.Compare(b.ActiveFrom) })
		return nil
	})
	return id, err
}

// live keeps the keys still signing, upcoming, or in their grace. A key
// retires when its successor starts signing.
func (s Set) live(ks []storedKey, now time.Time) []storedKey {
	var out []storedKey
	for i, k := range ks {
		if i+1 < len(ks) && !now.Before(ks[i+1].ActiveFrom.Add(s.grace())) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// Keys returns the keys valid at now: the one signing, those published
// ahead of signing, and those retired within their grace, oldest first.
func (s Set) Keys(ctx context.Context, now time.Time) ([]Key, error) {
	ss, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	live := s.live(ss.Keys, now)
	var keys []Key
	for i, sk := range live {
		k := Key{ID: sk.ID, ActiveFrom: sk.ActiveFrom}
		if i+1 < len(live) {
			k.RetiredAt = live[i+1].ActiveFrom
		}
		d, err := base64.RawURLEncoding.DecodeString(sk.D)
		if err != nil {
			return nil, fmt.Errorf("keyset: key %s: %w", sk.ID, err)
		}
		if k.Private, err = ecdsa.ParseRawPrivateKey(elliptic.P256(), d); err != nil {
			return nil, fmt.Errorf("keyset: key %s: %w", sk.ID, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Current returns the key that signs at now: the latest active one.
func (s Set) Current(ctx context.Context, now time.Time) (Key, error) {
	keys, err := s.Keys(ctx, now)
	if err != nil {
		return Key{}, err
	}
	for _, k := range slices.Backward(keys) {
		if !now.Before(k.ActiveFrom) {
			return k, nil
		}
	}
	return Key{}, errors.New("keyset: no signing key; call Ensure first")
}

// Published returns the public JWKs the business profile lists in keys
// and signing_keys at now.
func (s Set) Published(ctx context.Context, now time.Time) ([]jwk.Public, error) {
	keys, err := s.Keys(ctx, now)
	if err != nil {
		return nil, err
	}
	out := make([]jwk.Public, 0, len(keys))
	for _, k := range keys {
		pub, err := jwk.FromPublic(&k.Private.PublicKey, k.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, pub.Publish())
	}
	return out, nil
}

// Resolver resolves a keyid among the keys valid at now, for checking the
// business's own signatures.
func (s Set) Resolver(now time.Time) httpsig.Resolver {
	return httpsig.ResolverFunc(func(ctx context.Context, id string) (httpsig.VerifyingKey, error) {
		keys, err := s.Keys(ctx, now)
		if err != nil {
			return httpsig.VerifyingKey{}, err
		}
		for _, k := range keys {
			if k.ID == id {
				return httpsig.VerifyingKey{Algorithm: httpsig.ECDSAP256SHA256, Key: &k.Private.PublicKey}, nil
			}
		}
		return httpsig.VerifyingKey{}, httpsig.ErrKeyNotFound
	})
}

// WebhookComponents are what a webhook signature covers (§10.1.1).
var WebhookComponents = []httpsig.Component{
	httpsig.C("@method"), httpsig.C("@authority"), httpsig.C("@path"), httpsig.C("content-digest"), httpsig.C("content-type"),
}

// SignWebhook sets Content-Digest and the signature fields of a webhook
// POST carrying body, signed with the current key and created at now.
func (s Set) SignWebhook(ctx context.Context, now time.Time, r *http.Request, body []byte) error {
	k, err := s.Current(ctx, now)
	if err != nil {
		return err
	}
	digest, err := httpsig.ContentDigest(body, httpsig.SHA256)
	if err != nil {
		return err
	}
	r.Header.Set("Content-Digest", digest)
	if r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	signed, err := httpsig.Sign(httpsig.Request(r), httpsig.SignOptions{Components: WebhookComponents, Created: now},
		httpsig.SigningKey{ID: k.ID, Algorithm: httpsig.ECDSAP256SHA256, Key: k.Private}, s.Rand)
	if err != nil {
		return fmt.Errorf("keyset: sign webhook: %w", err)
	}
	signed.SetHeaders(r.Header)
	return nil
}
