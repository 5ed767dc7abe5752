package relay

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/fault"
)

// Kind is what a relayed call does, which sets its deadline.
type Kind int

// The kinds of call, with the worksheet's subrequest limits.
const (
	Mutation  Kind = iota // a booking tool's call at its target location: 40 s
	Lookup                // an ordinary lookup: 5 s
	Quote                 // the location's quote: 6 s
	Inventory             // an inventory read: 3 s
)

// Limit is the kind's deadline, before clipping to the caller's.
func (k Kind) Limit() time.Duration {
	switch k {
	case Mutation:
		return 40 * time.Second
	case Quote:
		return 6 * time.Second
	case Inventory:
		return 3 * time.Second
	}
	return 5 * time.Second
}

// ClientOptions configure a Client.
type ClientOptions struct {
	// Origins are the locations' origins by slug ("http://127.0.0.1:8091"),
	// from the hub's config only: no public argument selects one.
	Origins map[string]string
	Keys    []Key
	Clock   clock.Clock
	Rand    io.Reader
	// HTTP sends the calls; nil is a client with no timeout of its own,
	// since every call carries its deadline.
	HTTP *http.Client
}

// Client is the hub's end of the relay.
type Client struct{ o ClientOptions }

// NewClient returns a Client.
func NewClient(o ClientOptions) (*Client, error) {
	if len(o.Keys) == 0 {
		return nil, errors.New("relay client: no key")
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	return &Client{o: o}, nil
}

// Call runs operation op at the location slug with args, under the
// kind's deadline clipped to what remains of ctx's, and decodes the
// result into out. A location's refusal returns as the *fault.Error or
// *pricing.Refusal it sent. A location that took no connection is
// CodeUnreachable; a mutation with no answer in time is CodeUncertain,
// never a rollback; a read with none is CodeUnavailable.
func (c *Client) Call(ctx context.Context, slug, op string, kind Kind, args any, out any) error {
	origin, ok := c.o.Origins[slug]
	if !ok {
		return &Error{Code: CodeUnreachable, Err: fmt.Errorf("no origin for location %q", slug)}
	}
	var raw json.RawMessage
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("relay %s: %w", op, err)
		}
		raw = b
	}
	body, err := json.Marshal(Call{Slug: slug, Args: raw})
	if err != nil {
		return fmt.Errorf("relay %s: %w", op, err)
	}
	if len(body) > MaxBody {
		return &Error{Code: CodeTooLarge, Err: fmt.Errorf("relay %s: %d bytes", op, len(body))}
	}
	ctx, cancel := context.WithTimeout(ctx, kind.Limit())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin+PathPrefix+op, bytes.NewReader(body))
	if err != nil {
		return &Error{Code: CodeUnreachable, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	nonce := make([]byte, 16)
	if _, err := io.ReadFull(c.o.Rand, nonce); err != nil {
		return fmt.Errorf("relay %s: nonce: %w", op, err)
	}
	Sign(req, body, c.o.Keys, c.o.Clock.Now(), hex.EncodeToString(nonce))
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		return c.failed(kind, op, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return c.failed(kind, op, err)
	}
	var a answer
	if len(b) > MaxBody || json.Unmarshal(b, &a) != nil {
		return c.failed(kind, op, fmt.Errorf("HTTP %d without a relay answer", resp.StatusCode))
	}
	switch {
	case a.Refusal != nil:
		w := a.Refusal
		return &fault.Error{Code: w.Code, Message: w.Message, Field: w.Field, RetryAfter: w.RetryAfter,
			Phone: w.Phone, Form: w.Form, Values: w.Values}
	case a.Quote != nil:
		return a.Quote
	case a.Failed || resp.StatusCode != http.StatusOK:
		return c.failed(kind, op, fmt.Errorf("the location failed the call (HTTP %d)", resp.StatusCode))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(a.Result, out); err != nil {
		return c.failed(kind, op, err)
	}
	return nil
}

// failed names a call that got no answer: unreachable when nothing was
// sent, else uncertain for a mutation and unavailable for a read.
func (c *Client) failed(kind Kind, op string, err error) error {
	var op2 *net.OpError
	if errors.As(err, &op2) && op2.Op == "dial" {
		return &Error{Code: CodeUnreachable, Err: fmt.Errorf("relay %s: %w", op, err)}
	}
	if kind == Mutation {
		return &Error{Code: CodeUncertain, Err: fmt.Errorf("relay %s: %w", op, err)}
	}
	return &Error{Code: CodeUnavailable, Err: fmt.Errorf("relay %s: %w", op, err)}
}
