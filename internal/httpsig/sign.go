package httpsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"
)

// Algorithm is an RFC 9421 §3.3 signature algorithm name.
type Algorithm string

// The algorithms this package knows.
const (
	Ed25519         Algorithm = "ed25519"
	ECDSAP256SHA256 Algorithm = "ecdsa-p256-sha256"
	RSAPSSSHA512    Algorithm = "rsa-pss-sha512" // verification only
	HMACSHA256      Algorithm = "hmac-sha256"    // refused unless a Policy allows it
)

// SigningKey is a private key with its algorithm and the keyid a verifier
// resolves it by. Key is an ed25519.PrivateKey, an *ecdsa.PrivateKey on
// P-256, or the []byte secret of HMAC-SHA256.
type SigningKey struct {
	ID        string
	Algorithm Algorithm
	Key       any
}

// VerifyingKey is a public key with its algorithm. Key is an
// ed25519.PublicKey, an *ecdsa.PublicKey on P-256, an *rsa.PublicKey, or
// the []byte secret of HMAC-SHA256.
type VerifyingKey struct {
	Algorithm Algorithm
	Key       any
}

const p256Size = 32

// signBytes signs a signature base.
func signBytes(k SigningKey, base []byte, rand io.Reader) ([]byte, error) {
	switch k.Algorithm {
	case Ed25519:
		priv, ok := k.Key.(ed25519.PrivateKey)
		if !ok || len(priv) != ed25519.PrivateKeySize {
			return nil, errors.New("httpsig: ed25519 needs an ed25519.PrivateKey")
		}
		return ed25519.Sign(priv, base), nil
	case ECDSAP256SHA256:
		priv, ok := k.Key.(*ecdsa.PrivateKey)
		if !ok || priv.Curve != elliptic.P256() {
			return nil, errors.New("httpsig: ecdsa-p256-sha256 needs a P-256 key")
		}
		sum := sha256.Sum256(base)
		r, s, err := ecdsa.Sign(rand, priv, sum[:])
		if err != nil {
			return nil, fmt.Errorf("httpsig: sign: %w", err)
		}
		// RFC 9421 §3.3.4: r and s as fixed-width big-endian integers,
		// not ASN.1.
		sig := make([]byte, 2*p256Size)
		r.FillBytes(sig[:p256Size])
		s.FillBytes(sig[p256Size:])
		return sig, nil
	case HMACSHA256:
		secret, ok := k.Key.([]byte)
		if !ok || len(secret) == 0 {
			return nil, errors.New("httpsig: hmac-sha256 needs a secret")
		}
		mac := hmac.New(sha256.New, secret)
		mac.Write(base)
		return mac.Sum(nil), nil
	}
	return nil, fmt.Errorf("httpsig: cannot sign with %q", k.Algorithm)
}

// verifyBytes checks sig over base; false for any mismatch, including a
// key of the wrong type for its algorithm.
func verifyBytes(k VerifyingKey, base, sig []byte) bool {
	switch k.Algorithm {
	case Ed25519:
		pub, ok := k.Key.(ed25519.PublicKey)
		return ok && len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, base, sig)
	case ECDSAP256SHA256:
		pub, ok := k.Key.(*ecdsa.PublicKey)
		if !ok || pub.Curve != elliptic.P256() || len(sig) != 2*p256Size {
			return false
		}
		sum := sha256.Sum256(base)
		r := new(big.Int).SetBytes(sig[:p256Size])
		s := new(big.Int).SetBytes(sig[p256Size:])
		return ecdsa.Verify(pub, sum[:], r, s)
	case RSAPSSSHA512:
		pub, ok := k.Key.(*rsa.PublicKey)
		if !ok {
			return false
		}
		sum := sha512.Sum512(base)
		return rsa.VerifyPSS(pub, crypto.SHA512, sum[:], sig, &rsa.PSSOptions{SaltLength: 64, Hash: crypto.SHA512}) == nil
	case HMACSHA256:
		secret, ok := k.Key.([]byte)
		if !ok || len(secret) == 0 {
			return false
		}
		mac := hmac.New(sha256.New, secret)
		mac.Write(base)
		return hmac.Equal(mac.Sum(nil), sig)
	}
	return false
}

// SignOptions says what a new signature covers and which parameters it
// carries. Zero times and empty strings are left out.
type SignOptions struct {
	Label      string // "sig1" when empty
	Components []Component
	Created    time.Time
	Expires    time.Time
	Nonce      string
	Tag        string
	// WithAlg adds the alg parameter. RFC 9421 lets the key imply the
	// algorithm, so it is off unless a verifier asks for it.
	WithAlg bool
}

// Signed is what Sign adds to a message: the two field values and the
// input they describe.
type Signed struct {
	SignatureInput string
	Signature      string
	Input          Input
}

// Sign signs m with key. rand feeds ECDSA; Ed25519 and HMAC are
// deterministic.
func Sign(m Message, opts SignOptions, key SigningKey, rand io.Reader) (Signed, error) {
	in := Input{Label: opts.Label, Components: opts.Components}
	if in.Label == "" {
		in.Label = "sig1"
	}
	if !opts.Created.IsZero() {
		in.Params = append(in.Params, Param{Key: ParamCreated, Value: opts.Created.Unix()})
	}
	if !opts.Expires.IsZero() {
		in.Params = append(in.Params, Param{Key: ParamExpires, Value: opts.Expires.Unix()})
	}
	if key.ID != "" {
		in.Params = append(in.Params, Param{Key: ParamKeyID, Value: key.ID})
	}
	if opts.WithAlg {
		in.Params = append(in.Params, Param{Key: ParamAlg, Value: string(key.Algorithm)})
	}
	if opts.Nonce != "" {
		in.Params = append(in.Params, Param{Key: ParamNonce, Value: opts.Nonce})
	}
	if opts.Tag != "" {
		in.Params = append(in.Params, Param{Key: ParamTag, Value: opts.Tag})
	}
	base, err := Base(m, in)
	if err != nil {
		return Signed{}, err
	}
	sig, err := signBytes(key, base, rand)
	if err != nil {
		return Signed{}, err
	}
	input, err := FormatSignatureInput(in)
	if err != nil {
		return Signed{}, err
	}
	field, err := FormatSignature(in.Label, sig)
	if err != nil {
		return Signed{}, err
	}
	return Signed{SignatureInput: input, Signature: field, Input: in}, nil
}

// SetHeaders adds the signature fields to h.
func (s Signed) SetHeaders(h interface{ Set(key, value string) }) {
	h.Set("Signature-Input", s.SignatureInput)
	h.Set("Signature", s.Signature)
}
