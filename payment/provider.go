package payment

import (
	"context"
	"time"
)

// Provider is a payment service: it hosts the page the guest pays on,
// refunds, and signs the events it sends about both.
type Provider interface {
	// Name is the provider's short name, such as "stripe"; event ids are
	// unique per provider.
	Name() string
	// CreateCheckout opens a hosted page for one payment. The provider
	// treats two calls with the same IdempotencyKey as one.
	CreateCheckout(ctx context.Context, in CheckoutRequest) (Checkout, error)
	// Checkout reads a hosted page's state back.
	Checkout(ctx context.Context, id string) (Checkout, error)
	// Refund returns part or all of a completed payment.
	Refund(ctx context.Context, in RefundRequest) (Refund, error)
	// Verify checks an event's signature and that it was signed within
	// the provider's replay window of now, and reads it. A forged or
	// stale event is an *Error with CodeForged or CodeStale.
	Verify(signature string, body []byte, now time.Time) (Event, error)
}

// CheckoutRequest is one payment to take on a hosted page.
type CheckoutRequest struct {
	Amount      int64  // minor units, more than zero
	Currency    string // ISO 4217, such as "USD"
	Description string // what the guest pays for, shown on the page
	// SuccessURL is where the page returns the guest once paid; CancelURL
	// where it returns a guest who gives up.
	SuccessURL, CancelURL string
	// ExpiresAt closes the page; zero leaves the provider's default.
	ExpiresAt time.Time
	// Metadata travels with the payment and comes back on its events.
	// It holds ids, never guest data.
	Metadata       map[string]string
	IdempotencyKey string
}

// Checkout states.
const (
	CheckoutOpen     = "open"
	CheckoutComplete = "complete"
	CheckoutExpired  = "expired"
)

// Checkout is a hosted payment page.
type Checkout struct {
	ID  string
	URL string // where the guest pays; empty once the page is closed
	// Status is CheckoutOpen, CheckoutComplete or CheckoutExpired; Paid
	// says the money was taken.
	Status string
	Paid   bool
	// Payment is the provider's id of the money taken (a payment
	// intent), which refunds name; empty until paid.
	Payment  string
	Amount   int64
	Currency string
	Metadata map[string]string
}

// RefundRequest returns Amount of the provider's payment Payment.
type RefundRequest struct {
	Payment        string
	Amount         int64
	Metadata       map[string]string
	IdempotencyKey string
}

// Refund is the provider's answer to a refund.
type Refund struct {
	ID     string
	Amount int64
	Status string // the provider's word, such as "succeeded" or "pending"
}

// Event types the ledger applies; others are acknowledged and change
// nothing.
const (
	EventCheckoutCompleted = "checkout.session.completed"
	EventCheckoutExpired   = "checkout.session.expired"
)

// Event is a verified provider event about a hosted page.
type Event struct {
	ID       string
	Type     string
	Created  time.Time
	Checkout Checkout // the page the event is about, when it is one
}
