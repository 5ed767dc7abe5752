// Package secretring reads the versions of a secret kept outside the
// store, as FRONTDESK_BOOKING_SECRETS and the relay's secret file hold
// them: entries "N:HEX", one a line or comma-separated.
package secretring

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MinKeyBytes is the shortest key a version may have.
const MinKeyBytes = 32

// Version is one version of a secret: its number, from 1, and its key.
type Version struct {
	N   int
	Key []byte
}

// Parse reads the versions text holds, oldest first; none when it holds
// none. A malformed entry or a version given twice is an error that
// shows no key.
func Parse(text string) ([]Version, error) {
	var vs []Version
	for _, entry := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ',' || r == '\r' }) {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		n, hexKey, ok := strings.Cut(entry, ":")
		v, nErr := strconv.Atoi(n)
		key, keyErr := hex.DecodeString(hexKey)
		if !ok || nErr != nil || v < 1 || keyErr != nil || len(key) < MinKeyBytes {
			return nil, errors.New(`an entry is not "N:HEX" with a version from 1 and a key of at least 32 bytes`)
		}
		vs = append(vs, Version{N: v, Key: key})
	}
	slices.SortStableFunc(vs, func(a, b Version) int { return a.N - b.N })
	for i := 1; i < len(vs); i++ {
		if vs[i].N == vs[i-1].N {
			return nil, fmt.Errorf("version %d is given twice", vs[i].N)
		}
	}
	return vs, nil
}
