// Package jwk reads and writes public JSON Web Keys (RFC 7517) for the two
// signature algorithms frontdesk accepts, Ed25519 (RFC 8037) and ECDSA
// P-256, and computes their RFC 7638 thumbprints.
//
// Parsing is strict on purpose: a key is accepted only when its members
// fit its curve exactly, carries no private member, and is not a weak
// point (an Ed25519 point of small order, or an encoding that is not
// canonical). A thumbprint is therefore one key's only name.
//
// It imports only the standard library.
package jwk

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// Key types and curves this package accepts.
const (
	TypeOKP    = "OKP"
	TypeEC     = "EC"
	CurveEd    = "Ed25519"
	CurveP256  = "P-256"
	edSize     = ed25519.PublicKeySize
	p256Coord  = 32
	maxMembers = 32
)

// ErrUnsupported is returned for a well-formed key of a type or curve this
// package does not verify with; profile readers skip such keys.
var ErrUnsupported = errors.New("jwk: unsupported key type or curve")

// Key is a parsed public key with the JWK members it was published with.
type Key struct {
	KeyID     string // "kid", when given
	Use       string // "use", when given
	Algorithm string // "alg", when given
	// Public is an ed25519.PublicKey or an *ecdsa.PublicKey on P-256.
	Public any
}

// Curve returns the key's curve name.
func (k Key) Curve() string {
	if _, ok := k.Public.(ed25519.PublicKey); ok {
		return CurveEd
	}
	return CurveP256
}

// raw is a JWK as published. Private members are named so they can be
// refused.
type raw struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	D   string `json:"d"`
	P   string `json:"p"`
	Q   string `json:"q"`
	K   string `json:"k"`
}

// Parse reads one public JWK. It refuses private keys, symmetric keys,
// members that do not fit the curve, and weak Ed25519 points. A key of
// another type or curve (RSA, Ed448, X25519, P-384…) is ErrUnsupported.
func Parse(data []byte) (Key, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return Key{}, fmt.Errorf("jwk: %w", err)
	}
	if len(members) > maxMembers {
		return Key{}, errors.New("jwk: too many members")
	}
	var r raw
	if err := json.Unmarshal(data, &r); err != nil {
		return Key{}, fmt.Errorf("jwk: %w", err)
	}
	if r.D != "" || r.P != "" || r.Q != "" || r.K != "" {
		return Key{}, errors.New("jwk: carries private key material")
	}
	k := Key{KeyID: r.Kid, Use: r.Use, Algorithm: r.Alg}
	switch {
	case r.Kty == TypeOKP && r.Crv == CurveEd:
		if r.Y != "" {
			return Key{}, errors.New("jwk: Ed25519 key has a y member")
		}
		x, err := decode(r.X, edSize)
		if err != nil {
			return Key{}, fmt.Errorf("jwk: x: %w", err)
		}
		if err := checkEd25519(x); err != nil {
			return Key{}, err
		}
		k.Public = ed25519.PublicKey(x)
	case r.Kty == TypeEC && r.Crv == CurveP256:
		x, err := decode(r.X, p256Coord)
		if err != nil {
			return Key{}, fmt.Errorf("jwk: x: %w", err)
		}
		y, err := decode(r.Y, p256Coord)
		if err != nil {
			return Key{}, fmt.Errorf("jwk: y: %w", err)
		}
		// ParseUncompressedPublicKey checks that the point is on the curve
		// and is not the point at infinity.
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return Key{}, fmt.Errorf("jwk: P-256 point: %w", err)
		}
		k.Public = pub
	case r.Kty == TypeOKP || r.Kty == TypeEC || r.Kty == "RSA":
		return Key{}, fmt.Errorf("%w: kty %q crv %q", ErrUnsupported, r.Kty, r.Crv)
	case r.Kty == "oct":
		return Key{}, errors.New("jwk: symmetric keys are refused")
	default:
		return Key{}, fmt.Errorf("jwk: unknown kty %q", r.Kty)
	}
	return k, nil
}

// decode reads an unpadded base64url value of exactly n bytes, refusing
// padding and any encoding that does not round-trip.
func decode(s string, n int) ([]byte, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b) != n {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), n)
	}
	return b, nil
}

// FromPublic wraps a Go public key, refusing the same weak keys as Parse.
func FromPublic(pub any, kid string) (Key, error) {
	switch p := pub.(type) {
	case ed25519.PublicKey:
		if len(p) != edSize {
			return Key{}, errors.New("jwk: Ed25519 key of wrong size")
		}
		if err := checkEd25519(p); err != nil {
			return Key{}, err
		}
		return Key{KeyID: kid, Algorithm: "EdDSA", Use: "sig", Public: p}, nil
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return Key{}, ErrUnsupported
		}
		return Key{KeyID: kid, Algorithm: "ES256", Use: "sig", Public: p}, nil
	}
	return Key{}, ErrUnsupported
}

// members returns the required public members of the key, which are the
// thumbprint's input (RFC 7638 §3.2) and the core of its published form.
func (k Key) members() (kty, crv, x, y string) {
	enc := base64.RawURLEncoding
	switch p := k.Public.(type) {
	case ed25519.PublicKey:
		return TypeOKP, CurveEd, enc.EncodeToString(p), ""
	case *ecdsa.PublicKey:
		b, err := p.Bytes()
		if err != nil {
			panic("jwk: P-256 key without an encoding") // FromPublic and Parse admit valid points only
		}
		return TypeEC, CurveP256, enc.EncodeToString(b[1 : 1+p256Coord]), enc.EncodeToString(b[1+p256Coord:])
	}
	panic(fmt.Sprintf("jwk: unexpected key type %T", k.Public))
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint, base64url without
// padding: the hash of the required members in lexicographic order with
// no whitespace.
func (k Key) Thumbprint() string {
	kty, crv, x, y := k.members()
	var canonical string
	if kty == TypeOKP {
		canonical = fmt.Sprintf(`{"crv":%q,"kty":%q,"x":%q}`, crv, kty, x)
	} else {
		canonical = fmt.Sprintf(`{"crv":%q,"kty":%q,"x":%q,"y":%q}`, crv, kty, x, y)
	}
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Public is the published form of a key.
type Public struct {
	Kid string `json:"kid,omitempty"`
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// Publish returns the key's public JWK.
func (k Key) Publish() Public {
	kty, crv, x, y := k.members()
	return Public{Kid: k.KeyID, Kty: kty, Crv: crv, X: x, Y: y, Use: k.Use, Alg: k.Algorithm}
}

// MarshalJSON writes the public JWK.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.Publish()) }

// Ed25519 field arithmetic for the weak-key check, on math/big: it runs
// once per key resolution, never per signature byte.
var (
	edP = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	edD = func() *big.Int {
		// d = -121665 / 121666 mod p
		num := new(big.Int).Neg(big.NewInt(121665))
		inv := new(big.Int).ModInverse(big.NewInt(121666), edP)
		return num.Mul(num, inv).Mod(num, edP)
	}()
	edSqrtM1 = new(big.Int).Exp(big.NewInt(2), new(big.Int).Rsh(new(big.Int).Sub(edP, big.NewInt(1)), 2), edP)
)

// checkEd25519 refuses encodings that are not canonical, that are not a
// point of the curve, and points of small order (the identity and the
// other seven torsion points), for which any signature verifies against
// many messages.
func checkEd25519(enc []byte) error {
	x, y, err := decodePoint(enc)
	if err != nil {
		return err
	}
	for range 3 { // 8·P
		x, y = edAdd(x, y, x, y)
	}
	if x.Sign() == 0 && y.Cmp(big.NewInt(1)) == 0 {
		return errors.New("jwk: Ed25519 point of small order")
	}
	return nil
}

// decodePoint decodes an RFC 8032 §5.1.3 point encoding, refusing y ≥ p
// and a set sign bit on x = 0, the two non-canonical forms.
func decodePoint(enc []byte) (x, y *big.Int, err error) {
	le := make([]byte, len(enc))
	for i, b := range enc {
		le[len(enc)-1-i] = b
	}
	sign := le[0] >> 7
	le[0] &= 0x7f
	y = new(big.Int).SetBytes(le)
	if y.Cmp(edP) >= 0 {
		return nil, nil, errors.New("jwk: non-canonical Ed25519 encoding")
	}
	// x² = (y² − 1) / (d·y² + 1)
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Mul(edD, y2)
	v.Add(v, big.NewInt(1))
	x2 := new(big.Int).Mul(u, new(big.Int).ModInverse(v.Mod(v, edP), edP))
	x2.Mod(x2, edP)
	x = new(big.Int).Exp(x2, new(big.Int).Rsh(new(big.Int).Add(edP, big.NewInt(3)), 3), edP)
	if new(big.Int).Mod(new(big.Int).Mul(x, x), edP).Cmp(x2) != 0 {
		x.Mul(x, edSqrtM1).Mod(x, edP)
		if new(big.Int).Mod(new(big.Int).Mul(x, x), edP).Cmp(x2) != 0 {
			return nil, nil, errors.New("jwk: not an Ed25519 point")
		}
	}
	if x.Sign() == 0 && sign == 1 {
		return nil, nil, errors.New("jwk: non-canonical Ed25519 encoding")
	}
	if byte(x.Bit(0)) != sign {
		x.Sub(edP, x)
	}
	return x, y, nil
}

// edAdd adds two points of the twisted Edwards curve −x² + y² = 1 + d·x²·y²
// in affine coordinates; the formula is complete on this curve.
func edAdd(x1, y1, x2, y2 *big.Int) (*big.Int, *big.Int) {
	t := new(big.Int).Mul(x1, x2)
	t.Mul(t, y1).Mul(t, y2).Mul(t, edD).Mod(t, edP)
	xn := new(big.Int).Add(new(big.Int).Mul(x1, y2), new(big.Int).Mul(y1, x2))
	yn := new(big.Int).Add(new(big.Int).Mul(y1, y2), new(big.Int).Mul(x1, x2))
	xd := new(big.Int).Add(big.NewInt(1), t)
	yd := new(big.Int).Sub(big.NewInt(1), t)
	x3 := xn.Mul(xn, new(big.Int).ModInverse(xd.Mod(xd, edP), edP)).Mod(xn, edP)
	y3 := yn.Mul(yn, new(big.Int).ModInverse(yd.Mod(yd, edP), edP)).Mod(yn, edP)
	return x3, y3
}
