// Package relay is the authenticated operation endpoint between the hub
// and its locations in a split deployment (direct-booking.md §4): the
// hub's client signs each call with the shared operational secret and
// bounds it by the worksheet's relay deadlines; the location's server
// checks the MAC, the replay window, its own deployment context,
// published status and custom hostname before it runs the operation.
//
// It is an adapter: it imports business, hub, location, pricing,
// reservation, direct and its chat door, and internal helpers; only
// cmd/frontdesk wires it.
package relay

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Key is one version of the shared operational secret. The newest signs;
// every version given verifies, so a rotation that adds a version to
// every process before any signs with it refuses no call.
type Key struct {
	N   int
	Key []byte
}

// minKeyBytes is the shortest key accepted, as for the booking secret.
const minKeyBytes = 32

// ParseKeys reads versions in the form of FRONTDESK_BOOKING_SECRETS:
// entries "N:HEX", one a line or comma-separated, each key at least 32
// bytes, each version once. The result is oldest first. Each MAC key is
// derived from its version for the relay alone, so the same secret may
// key other things without the relay's MACs telling anything of them.
func ParseKeys(text string) ([]Key, error) {
	var keys []Key
	for _, entry := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ',' || r == '\r' }) {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		n, hexKey, ok := strings.Cut(entry, ":")
		v, nErr := strconv.Atoi(n)
		key, keyErr := hex.DecodeString(hexKey)
		if !ok || nErr != nil || v < 1 || keyErr != nil || len(key) < minKeyBytes {
			return nil, errors.New(`relay secret: an entry is not "N:HEX" with a version from 1 and a key of at least 32 bytes`)
		}
		keys = append(keys, Key{N: v, Key: macOf(key, []byte("frontdesk relay key v1"))})
	}
	if len(keys) == 0 {
		return nil, errors.New("relay secret: no version is given")
	}
	slices.SortStableFunc(keys, func(a, b Key) int { return a.N - b.N })
	for i := 1; i < len(keys); i++ {
		if keys[i].N == keys[i-1].N {
			return nil, fmt.Errorf("relay secret: version %d is given twice", keys[i].N)
		}
	}
	return keys, nil
}
