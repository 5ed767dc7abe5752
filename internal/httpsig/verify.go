package httpsig

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Code names why a message failed verification. The values are the error
// codes HTTP-signature profiles such as USP and UCP use on the wire.
type Code string

// The verification failures.
const (
	CodeMissing        Code = "signature_missing"     // no usable Signature-Input and Signature pair
	CodeInvalid        Code = "signature_invalid"     // malformed, not covering what it must, or a bad signature
	CodeKeyNotFound    Code = "key_not_found"         // the keyid resolves to no key
	CodeUnsupported    Code = "algorithm_unsupported" // the key's or the alg parameter's algorithm is not accepted
	CodeExpired        Code = "signature_expired"     // outside created/expires or the maximum age
	CodeDigestMismatch Code = "digest_mismatch"       // Content-Digest absent, of no known algorithm, or not matching the body
)

// Error is a verification failure: a code for the wire and the cause for
// logs.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("httpsig: %s: %v", e.Code, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// ErrKeyNotFound is what a Resolver returns for an unknown keyid.
var ErrKeyNotFound = errors.New("httpsig: key not found")

// Resolver finds the verifying key for a keyid, such as from the keys a
// counterparty's profile publishes. It returns ErrKeyNotFound for an
// unknown keyid.
type Resolver interface {
	ResolveKey(ctx context.Context, keyID string) (VerifyingKey, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, keyID string) (VerifyingKey, error)

// ResolveKey calls f.
func (f ResolverFunc) ResolveKey(ctx context.Context, keyID string) (VerifyingKey, error) {
	return f(ctx, keyID)
}

// Policy is what a verifier demands of a signature beyond its validity.
type Policy struct {
	// Label picks one signature; when empty every signature is tried in
	// Signature-Input order and the first that passes wins.
	Label string
	// Required components must be covered.
	Required []string
	// RequiredIfPresent header fields must be covered whenever the message
	// carries them.
	RequiredIfPresent []string
	// RequireCreated refuses a signature without created.
	RequireCreated bool
	// MaxAge, when positive, refuses a signature created longer ago.
	MaxAge time.Duration
	// Skew is how far in the future created may lie.
	Skew time.Duration
	// Algorithms are the accepted algorithms; nil means Ed25519 and
	// ECDSAP256SHA256. HMAC is accepted only when listed.
	Algorithms []Algorithm
}

func (p Policy) accepts(a Algorithm) bool {
	if p.Algorithms == nil {
		return a == Ed25519 || a == ECDSAP256SHA256
	}
	return slices.Contains(p.Algorithms, a)
}

// Verified describes the signature that passed.
type Verified struct {
	Input Input
	Key   VerifyingKey
}

// Verify checks the signatures of m against now, the time the caller read
// from its clock once for this operation. The error is an *Error.
func Verify(ctx context.Context, m Message, now time.Time, r Resolver, p Policy) (Verified, error) {
	inLines, sigLines := m.Header.Values("Signature-Input"), m.Header.Values("Signature")
	if len(inLines) == 0 || len(sigLines) == 0 {
		return Verified{}, fail(CodeMissing, "no Signature-Input or Signature field")
	}
	inputs, err := ParseSignatureInput(inLines)
	if err != nil {
		return Verified{}, &Error{Code: CodeInvalid, Err: err}
	}
	sigs, err := ParseSignature(sigLines)
	if err != nil {
		return Verified{}, &Error{Code: CodeInvalid, Err: err}
	}
	var first error
	for _, in := range inputs {
		if p.Label != "" && in.Label != p.Label {
			continue
		}
		sig, ok := sigs[in.Label]
		if !ok {
			if first == nil {
				first = fail(CodeMissing, "no Signature for label %s", in.Label)
			}
			continue
		}
		v, err := verifyOne(ctx, m, now, r, p, in, sig)
		if err == nil {
			return v, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fail(CodeMissing, "no signature labelled %q", p.Label)
	}
	return Verified{}, first
}

func verifyOne(ctx context.Context, m Message, now time.Time, r Resolver, p Policy, in Input, sig []byte) (Verified, error) {
	for _, name := range p.Required {
		if !in.Covers(name) {
			return Verified{}, fail(CodeInvalid, "%s does not cover %s", in.Label, name)
		}
	}
	for _, name := range p.RequiredIfPresent {
		if len(m.Header.Values(name)) > 0 && !in.Covers(name) {
			return Verified{}, fail(CodeInvalid, "%s does not cover %s", in.Label, name)
		}
	}
	created, hasCreated := in.Created()
	switch {
	case !hasCreated && p.RequireCreated:
		return Verified{}, fail(CodeInvalid, "%s has no created parameter", in.Label)
	case hasCreated && created.After(now.Add(p.Skew)):
		return Verified{}, fail(CodeExpired, "%s was created in the future", in.Label)
	case hasCreated && p.MaxAge > 0 && now.Sub(created) > p.MaxAge:
		return Verified{}, fail(CodeExpired, "%s is older than %s", in.Label, p.MaxAge)
	}
	if expires, ok := in.Expires(); ok && !now.Before(expires) {
		return Verified{}, fail(CodeExpired, "%s expired", in.Label)
	}
	keyID := in.KeyID()
	if keyID == "" {
		return Verified{}, fail(CodeKeyNotFound, "%s has no keyid", in.Label)
	}
	key, err := r.ResolveKey(ctx, keyID)
	if errors.Is(err, ErrKeyNotFound) {
		return Verified{}, &Error{Code: CodeKeyNotFound, Err: err}
	}
	if err != nil {
		return Verified{}, fmt.Errorf("httpsig: resolve key: %w", err) // an outage, not the caller's fault
	}
	if !p.accepts(key.Algorithm) {
		return Verified{}, fail(CodeUnsupported, "algorithm %s is not accepted", key.Algorithm)
	}
	if alg := in.Alg(); alg != "" && Algorithm(alg) != key.Algorithm {
		return Verified{}, fail(CodeInvalid, "%s names alg %s but the key is %s", in.Label, alg, key.Algorithm)
	}
	base, err := Base(m, in)
	if err != nil {
		return Verified{}, &Error{Code: CodeInvalid, Err: err}
	}
	if !verifyBytes(key, base, sig) {
		return Verified{}, fail(CodeInvalid, "%s: signature does not verify", in.Label)
	}
	return Verified{Input: in, Key: key}, nil
}
