package httpsig

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// Digest algorithms of RFC 9530 that this package computes.
const (
	SHA256 = "sha-256"
	SHA512 = "sha-512"
)

func newHash(alg string) hash.Hash {
	switch alg {
	case SHA256:
		return sha256.New()
	case SHA512:
		return sha512.New()
	}
	return nil
}

// ContentDigest returns a Content-Digest field value for body with each
// named algorithm, sha-256 when none is named.
func ContentDigest(body []byte, algs ...string) (string, error) {
	if len(algs) == 0 {
		algs = []string{SHA256}
	}
	var b strings.Builder
	for i, alg := range algs {
		h := newHash(alg)
		if h == nil {
			return "", fmt.Errorf("httpsig: unknown digest algorithm %q", alg)
		}
		h.Write(body)
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeMember(&b, Member{Key: alg, Item: Item{Value: h.Sum(nil)}}); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// VerifyContentDigest checks the Content-Digest field lines against body.
// Every digest of a known algorithm must match, and at least one must be
// present; digests of unknown algorithms are ignored, as RFC 9530 lets a
// recipient do. The error is an *Error.
func VerifyContentDigest(lines []string, body []byte) error {
	if len(lines) == 0 {
		return &Error{Code: CodeDigestMismatch, Err: errors.New("no Content-Digest field")}
	}
	members, err := parseDictionary(strings.Join(lines, ", "))
	if err != nil {
		return &Error{Code: CodeDigestMismatch, Err: fmt.Errorf("Content-Digest: %w", err)}
	}
	checked := 0
	for _, m := range members {
		h := newHash(m.Key)
		if h == nil {
			continue
		}
		want, ok := m.Item.Value.([]byte)
		if m.List != nil || !ok {
			return &Error{Code: CodeDigestMismatch, Err: fmt.Errorf("Content-Digest %s: not a byte sequence", m.Key)}
		}
		h.Write(body)
		if subtle.ConstantTimeCompare(h.Sum(nil), want) != 1 {
			return &Error{Code: CodeDigestMismatch, Err: fmt.Errorf("Content-Digest %s does not match the body", m.Key)}
		}
		checked++
	}
	if checked == 0 {
		return &Error{Code: CodeDigestMismatch, Err: errors.New("Content-Digest has no sha-256 or sha-512 member")}
	}
	return nil
}
