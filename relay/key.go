// Package relay is the authenticated operation endpoint between the hub
// and its locations in a split deployment (direct-booking.md §4): the
// hub's client signs each call with the shared operational secret and
// bounds it by the worksheet's relay deadlines; the location's server
// checks the MAC, the replay window, its own deployment context,
// published status and custom hostname before it runs the operation.
// In the other direction each location calls the hub's control
// operations (control.go) the same way, signed with the same secret.
// The hub's staff screen reads and decides at the locations through the
// staff operations (staff.go), each carrying the login and its scope.
//
// It is an adapter: it imports business, hub, location, pricing,
// reservation, direct and its chat door, staff and its office, and
// internal helpers; only cmd/frontdesk wires it.
package relay

import (
	"errors"
	"fmt"
	"frontdesk/internal/secretring"
)

// Key is one version of the shared operational secret. The newest signs;
// every version given verifies, so a rotation that adds a version to
// every process before any signs with it refuses no call.
type Key struct {
	N   int
	Key []byte
}

// ParseKeys reads versions in the form of FRONTDESK_BOOKING_SECRETS:
// entries "N:HEX", one a line or comma-separated, each key at least 32
// bytes, each version once. The result is oldest first. Each MAC key is
// derived from its version for the relay alone, so the same secret may
// key other things without the relay's MACs telling anything of them.
func ParseKeys(text string) ([]Key, error) {
	vs, err := secretring.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("relay secret: %w", err)
	}
	if len(vs) == 0 {
		return nil, errors.New("relay secret: no version is given")
	}
	keys := make([]Key, len(vs))
	for i, v := range vs {
		keys[i] = Key{N: v.N, Key: macOf(v.Key, []byte("frontdesk relay key v1"))}
	}
	return keys, nil
}
