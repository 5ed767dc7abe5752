package direct

import (
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
)

// Intent states (§7).
const (
	stateSending    = "sending"
	stateOpen       = "open"
	stateCommitting = "committing" // a proved cancellation, before its transaction
	stateDone       = "done"
)

// intentData is what the guest supplied. It leaves the intent once the
// reservation holds it.
type intentData struct {
	Name     string `json:"name"`
	Email    string `json:"email"` // delivery address
	Phone    string `json:"phone"` // formatted
	Notes    string `json:"notes"`
	Guests   int    `json:"guests"`
	RoomType string `json:"roomtype"`
	Checkin  string `json:"checkin"`
	Checkout string `json:"checkout"`
}

// intentContact holds the normalized matching values.
type intentContact struct {
	Email string `json:"email"`
	Phone string `json:"phone"`
}

type intentPrice struct {
	Nights    int    `json:"nights"`
	Subtotal  int64  `json:"subtotal"`
	Tax       int64  `json:"tax"`
	Total     int64  `json:"total"`
	RateBasis string `json:"rate_basis"`
}

// intent is an unproved booking request, then its proof receipt.
type intent struct {
	ID          string         `json:"id"`
	Location    string         `json:"location"`
	Data        *intentData    `json:"data,omitempty"`
	Contact     *intentContact `json:"contact,omitempty"`
	Price       intentPrice    `json:"price"`
	Salt        string         `json:"salt,omitempty"`
	Digest      string         `json:"digest,omitempty"`
	Expires     time.Time      `json:"expires"`
	Wrong       int            `json:"wrong"`
	Resends     int            `json:"resends"`
	SentAt      []time.Time    `json:"sent_at"`
	State       string         `json:"state"`
	Fingerprint string         `json:"fingerprint"` // keyed
	Mailbox     string         `json:"mailbox"`     // keyed normalized email
	Ref         string         `json:"ref,omitempty"`
	Proof       string         `json:"proof,omitempty"`
	KeepUntil   time.Time      `json:"keep_until,omitzero"`
}

// live reports whether an unproved intent can still be used.
func (in intent) live(now time.Time) bool {
	return (in.State == stateSending || in.State == stateOpen) && now.Before(in.Expires)
}

// formFor is the requested stay's booking form, when the intent still
// knows it.
func (s *Service) formFor(l business.Location, d *intentData) string {
	if d == nil {
		return ""
	}
	return s.pricer.FormURL(l, d.RoomType, d.Checkin, d.Checkout)
}

func (d *intentData) dates() (civil.Date, civil.Date) {
	in, _ := civil.Parse(d.Checkin)
	out, _ := civil.Parse(d.Checkout)
	return in, out
}
