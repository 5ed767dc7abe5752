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

// DefaultHashing follows RFC 9106's second recommended option (64 MiB,
// three passes), sized for a sign-in now and then, not for bulk checks.
func DefaultHashing() Hashing { return Hashing{Time: 3, Memory: 64 * 1024, Threads: 2} }

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

// checkPassword reports whether password matches the PHC string phc. An
// unreadable hash never matches.
func checkPassword(phc, password string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false
	}
	var h Hashing
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.Memory, &h.Time, &h.Threads); err != nil || h.Time == 0 || h.Threads == 0 {
		return false
	}
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, h.Time, h.Memory, h.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
