package directtest

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// FormToken is the n-th booking-form token of the tests: a valid guest
// token that repeats from run to run. Each request a test means as a new
// one takes its own n.
func FormToken(n int64) string {
	h := sha256.Sum256([]byte(fmt.Sprint("form token ", n)))
	return base64.RawURLEncoding.EncodeToString(h[:])
}
