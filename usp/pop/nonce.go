package pop

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"frontdesk/store"
)

// MACNonces issues stateless nonces: the issue time, random bytes and a
// MAC over both under a secret every instance shares, so any instance
// checks what another issued without a store round trip. A nonce stays
// valid for Lifetime after issue; the jti cache, not the nonce, stops
// replays inside that time.
type MACNonces struct {
	Secret   []byte    // at least 32 bytes
	Rand     io.Reader // crypto/rand.Reader in production
	Lifetime time.Duration
}

var _ Nonces = MACNonces{}

const (
	nonceRandom = 12
	nonceMAC    = 16
	nonceLen    = 8 + nonceRandom + nonceMAC
)

func (n MACNonces) mac(b []byte) []byte {
	m := hmac.New(sha256.New, n.Secret)
	m.Write(b)
	return m.Sum(nil)[:nonceMAC]
}

// Issue returns a fresh nonce.
func (n MACNonces) Issue(now time.Time) (string, error) {
	if len(n.Secret) < 32 {
		return "", errors.New("pop: nonce secret shorter than 32 bytes")
	}
	b := make([]byte, 8+nonceRandom, nonceLen)
	binary.BigEndian.PutUint64(b, uint64(now.Unix()))
	if _, err := io.ReadFull(n.Rand, b[8:]); err != nil {
		return "", fmt.Errorf("pop: nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(append(b, n.mac(b)...)), nil
}

// Valid reports whether nonce was issued with this secret no longer than
// Lifetime before now.
func (n MACNonces) Valid(nonce string, now time.Time) bool {
	b, err := b64.DecodeString(nonce)
	if err != nil || len(b) != nonceLen || len(n.Secret) < 32 {
		return false
	}
	if subtle.ConstantTimeCompare(n.mac(b[:8+nonceRandom]), b[8+nonceRandom:]) != 1 {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b)), 0)
	return !issued.After(now) && now.Sub(issued) <= n.Lifetime
}

// KindNonceSecret is the record kind of the shared nonce secret.
const KindNonceSecret = "usp-pop-nonce-secret"

// NonceSecret returns the nonce secret every instance shares, creating it
// from rand on first use. Two instances starting together both try the
// conditional create; the loser reads the winner's.
func NonceSecret(ctx context.Context, records store.Records, rand io.Reader, now time.Time) ([]byte, error) {
	r, err := store.Ensure(ctx, records, KindNonceSecret, "current", now, func() ([]byte, error) {
		secret := make([]byte, 32)
		if _, err := io.ReadFull(rand, secret); err != nil {
			return nil, err
		}
		return secret, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pop: nonce secret: %w", err)
	}
	return r.Value, nil
}
