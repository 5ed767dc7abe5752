package orp

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"github.com/gowebpki/jcs"
)

// Canonical returns the RFC 8785 (JCS) form of a JSON text. ORP numbers are
// integers (reputation components aside), and JCS prints every integer
// below 2^53 exactly, so hashes agree with other implementations.
func Canonical(raw []byte) ([]byte, error) {
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return out, nil
}

// Hash is "sha256-" and the unpadded base64url SHA-256 digest of the JCS
// form of raw: 43 characters after the prefix (§2).
func Hash(raw []byte) (string, error) {
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256-" + base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
