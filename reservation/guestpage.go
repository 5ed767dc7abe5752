package reservation

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"frontdesk/business"
	"frontdesk/store"
)

// A guest's own page is reached by an unguessable token: the location's
// reference prefix and a dot, then 32 random bytes in base64url
// (business.Location.Token), so a split deployment's hub can route the
// page to its location. Tokens minted before they named their location
// are the random part alone, and keep opening their pages. Only a SHA-256 digest of the token is stored, as the key
// of a record that names the reservation, so the store never holds a
// token that opens a page. The booking form's one-time token is such a
// token: the form carries it, the request is saved with it, and the page
// the form redirects to is the request's own page.

const kindGuestPage = "booking-guest-page" // key: hex SHA-256 of a guest token → reference

// guestPageRef is what a guest-page record holds.
type guestPageRef struct {
	Reference string `json:"reference"`
}

// NewGuestToken draws a fresh guest token of location l, such as the
// booking form carries to make its request once.
func (c *Core) NewGuestToken(l business.Location) (string, error) {
	b := make([]byte, GuestTokenBytes)
	if _, err := io.ReadFull(c.rand, b); err != nil {
		return "", fmt.Errorf("draw guest token: %w", err)
	}
	return l.Token(base64.RawURLEncoding.EncodeToString(b)), nil
}

func guestPageKey(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// GuestPageWrite creates the record that lets token open reservation ref.
// It is refused with ErrExists if the token was used already.
func GuestPageWrite(token, ref string, now time.Time) store.Write {
	v, _ := json.Marshal(guestPageRef{Reference: ref}) // one string always encodes
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindGuestPage, Key: guestPageKey(token), Value: v, UpdatedAt: now}}
}

// GuestReference is the reservation a guest token opens, or
// ErrNoReservation.
func (c *Core) GuestReference(ctx context.Context, token string) (string, error) {
	if !ValidGuestToken(token) {
		return "", ErrNoReservation
	}
	v, _, err := store.GetJSON[guestPageRef](ctx, c.st, kindGuestPage, guestPageKey(token))
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrNoReservation
	}
	if err != nil {
		return "", fmt.Errorf("read guest page: %w", err)
	}
	return v.Reference, nil
}
