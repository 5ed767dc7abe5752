// Package message is the email that frontdesk sends, as the domain sees
// it: who it goes to, what it says, and whether sending it is known to
// have failed or is merely uncertain. Drivers in mail/ deliver it.
//
// It imports only the standard library.
package message

import (
	"context"
	"errors"
	"time"
)

// Email is one message. ID is stable: a retried send carries the same ID,
// and drivers use it as the Message-ID so a provider can drop duplicates.
type Email struct {
	ID      string   // stable identifier, such as "notice-RIV-0123ABCD-guest"
	From    string   // the authenticated sender
	To      []string // delivery addresses, as the guest typed them
	ReplyTo string   // optional
	Subject string
	Text    string // plain text, lines joined with "\n"
	Date    time.Time
}

// Sender delivers email. Send returns nil once the provider accepted the
// message. An error wrapping ErrNotSent means the message certainly did not
// leave (the connection was refused, the provider rejected it before
// accepting the data); any other error leaves delivery uncertain.
type Sender interface {
	Send(ctx context.Context, e Email) error
}

// ErrNotSent marks a failure after which the message is known not to have
// been sent, so a charge for it may be refunded.
var ErrNotSent = errors.New("message: not sent")

// NotSent reports whether err says the message certainly was not sent.
func NotSent(err error) bool { return errors.Is(err, ErrNotSent) }

// ErrRecipientRefused marks the one failure that says the address itself
// was not accepted: the provider permanently refused the recipient. It
// always comes with ErrNotSent. A connection, TLS or login failure is
// ErrNotSent without it: an outage, never a reason to tell a guest that
// their address was refused.
var ErrRecipientRefused = errors.New("message: recipient refused")

// RecipientRefused reports whether err says the provider refused the
// recipient's address.
func RecipientRefused(err error) bool { return errors.Is(err, ErrRecipientRefused) }

// Addresses are the business's own mail addresses: the authenticated
// sender of what it sends, and the mailbox its staff read.
type Addresses struct {
	From  string `toml:"from"`
	Staff string `toml:"staff"`
}
