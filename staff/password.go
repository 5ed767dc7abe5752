package staff

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Hashing is the argon2id cost of a password hash. The values travel in
// each stored hash, so raising them later keeps old hashes readable.
type Hashing struct {
	Time    uint32 // passes
	Memory  uint32 // KiB
	Threads uint8
}

// DefaultHashing is OWASP's first argon2id configuration (19 MiB, two
// passes, one lane): the least memory OWASP accepts at that cost, so that
// a bounded budget (DefaultHashMemory) serves several sign-ins at once.
// Hashes stored with other values are still read with their own.
func DefaultHashing() Hashing { return Hashing{Time: 2, Memory: 19 * 1024, Threads: 1} }

const (
	saltBytes = 16
	keyBytes  = 32
)

var b64 = base64.RawStdEncoding

// hashPassword returns the PHC string of password under h with a fresh
// salt: $argon2id$v=19$m=65536,t=3,p=2$salt$hash.
func hashPassword(password string, h Hashing, random io.Reader) (string, error) {
	salt := make([]byte, saltBytes)
	if _, err := io.ReadFull(random, salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, h.Time, h.Memory, h.Threads, keyBytes)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.Memory, h.Time, h.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// storedHash is a PHC string read into its parts.
type storedHash struct {
	Hashing
	salt, key []byte
}

// parseHash reads a PHC string; ok is false for anything unreadable.
func parseHash(phc string) (h storedHash, ok bool) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return h, false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.Memory, &h.Time, &h.Threads); err != nil || h.Time == 0 || h.Threads == 0 {
		return h, false
	}
	var err1, err2 error
	h.salt, err1 = b64.DecodeString(parts[4])
	h.key, err2 = b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(h.key) == 0 {
		return h, false
	}
	return h, true
}

// matches reports whether password hashes to h's key.
func (h storedHash) matches(password string) bool {
	got := argon2.IDKey([]byte(password), h.salt, h.Time, h.Memory, h.Threads, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(got, h.key) == 1
}

// checkPassword reports whether password matches the PHC string phc. An
// unreadable hash never matches.
func checkPassword(phc, password string) bool {
	h, ok := parseHash(phc)
	return ok && h.matches(password)
}
