package reservation

import (
	"encoding/base64"

	"frontdesk/business"
	"frontdesk/internal/civil"
)

// What the guest's own page reads and sends: the stay a guest token
// opens, the token's shape, the caller's deployment evidence and a
// cancellation's answer.

// GuestStay is what a guest's own page shows of a reservation.
type GuestStay struct {
	Reservation Reservation
	Location    business.Location
	Checkin     civil.Date
	Checkout    civil.Date
	Nights      int
	// CheckinAt is the local check-in time on the arrival date, as
	// people read it.
	CheckinAt string
	// Total is the total as people read it, such as "$395.38".
	Total string
	// Cancellable says whether the page may offer a cancellation now,
	// under the rules of the chat tools; Why words the reason when not.
	Cancellable bool
	Why         string
	// Withdrawable says the request awaits staff, and its guest may
	// withdraw it from the page.
	Withdrawable bool
}

// GuestTokenBytes is the entropy of a guest token: its random part.
const GuestTokenBytes = 32

// ValidGuestToken reports whether t has the shape of a guest token, so a
// door refuses anything else before it reaches the store: a located
// token (business.SplitToken) whose random part is GuestTokenBytes in
// base64url, or such a random part alone, as tokens were minted before
// they named their location.
func ValidGuestToken(t string) bool {
	if _, random, ok := business.SplitToken(t); ok {
		t = random
	}
	return validGuestRandom(t)
}

// GuestTokenFor reports whether a location l may take t as its booking
// form's token: a guest token naming l, or one of the earlier form that
// names no location. A token naming another location is refused, as its
// page would be routed there.
func GuestTokenFor(t string, l business.Location) bool {
	if prefix, random, ok := business.SplitToken(t); ok {
		return prefix == l.Prefix && validGuestRandom(random)
	}
	return validGuestRandom(t)
}

func validGuestRandom(t string) bool {
	if len(t) != base64.RawURLEncoding.EncodedLen(GuestTokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil
}

// Caller is the deployment evidence of one call, taken from the runtime
// and the request itself, never from a tool argument.
type Caller struct {
	// Host is the request's actual Host header (host[:port]).
	Host string
	// Local is true for the stdio server, which has no host: the process
	// was started by the person at the machine.
	Local bool
}

// CancelResult answers either step: the first fills the code fields, the
// second the reservation's current state.
type CancelResult struct {
	CancelID          string `json:"cancel_id,omitempty"`
	CodeExpiresAt     string `json:"code_expires_at,omitempty"`
	CodeExpiresLocal  string `json:"code_expires_local,omitempty"`
	CodeSentTo        string `json:"code_sent_to,omitempty"`
	Channel           string `json:"channel,omitempty"`
	ReservationNumber string `json:"reservation_number,omitempty"`
	Status            string `json:"status,omitempty"`
	Property          string `json:"property,omitempty"`
	RoomType          string `json:"roomtype,omitempty"`
	Checkin           string `json:"checkin,omitempty"`
	Checkout          string `json:"checkout,omitempty"`
	Message           string `json:"message"`
}
