package usp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/credential"
	"frontdesk/usp/pop"
)

// MechanismCredential is the booking_scoped_credential mechanism
// (§10.1.6).
const MechanismCredential = "booking_scoped_credential"

// BookingCredentials issues booking-scoped credentials when a platform
// creates a booking, and authenticates calls that present one: in
// _meta.usp.authorization.credential over MCP, or as "Authorization: DPoP
// <value>" (bound) or "Authorization: Bearer <value>" (unbound) over REST.
// A credential opens the booking it was issued for and nothing else, and
// none at all once that booking reached a terminal status. One bound to a
// key (cnf.jkt) needs a proof by that key: presented without one it is
// refused as absent, whatever mechanism the caller declares, and never
// handed on to another mechanism.
type BookingCredentials struct {
	Issuer       credential.Issuer
	Verifier     *pop.Verifier
	Reservations store.Reservations
	Origin       string // the business's public origin, for a REST proof's htu
	Clock        clock.Clock
}

var _ Authenticator = (*BookingCredentials)(nil)

// Mechanisms implements Authenticator.
func (c *BookingCredentials) Mechanisms() []string { return []string{MechanismCredential} }

// Authenticate implements Authenticator.
func (c *BookingCredentials) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	value, proof, err := c.presented(m, call)
	if err != nil || value == "" {
		return Principal{}, err
	}
	resource := addressedBooking(call)
	if resource == "" {
		return Principal{}, fail(CodeAuthenticationRequired, "A booking-scoped credential opens one booking; %s names none.", m.Name)
	}
	now := c.Clock.Now()
	grant, err := c.Issuer.Authorize(ctx, now, c.Verifier, credential.Presentation{Resource: resource, Credential: value, Proof: proof})
	if err != nil {
		// usp/credential and usp/pop spell their refusals with this
		// protocol's codes; AsError words them.
		return Principal{}, err
	}
	r, err := reservation.Get(ctx, c.Reservations, grant.Resource)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, fail(CodeAuthenticationRequired, "The credential does not open this booking.")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("read reservation: %w", err)
	}
	platform, isUSP := r.Source.Platform()
	if !isUSP || r.State.Terminal() {
		// A credential dies with its booking's terminal status.
		return Principal{}, fail(CodeAuthenticationRequired, "The credential does not open this booking.")
	}
	p := Principal{ID: "bsc:" + grant.Resource, Platform: platform, Mechanism: MechanismCredential, Booking: grant.Resource}
	if grant.JKT != "" {
		p.ID = "jkt:" + grant.JKT
	}
	return p, nil
}

// presented finds a credential on the call and the proof that came with
// it; value is "" when there is none.
func (c *BookingCredentials) presented(m Method, call Call) (value string, proof pop.Request, err error) {
	a, declared, err := call.Credentials.MCPAuth()
	if err != nil {
		return "", proof, err
	}
	if declared {
		if !strings.HasPrefix(a.Credential, credential.Prefix) {
			return "", proof, ErrNoCredential
		}
		return a.Credential, pop.Request{Binding: pop.MCP, Proof: a.Proof, Method: m.Name, Arguments: call.Credentials.Params}, nil
	}
	r := call.Credentials.Request
	if r == nil {
		return "", proof, ErrNoCredential
	}
	scheme, v, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	v = strings.TrimSpace(v)
	if (!strings.EqualFold(scheme, "DPoP") && !strings.EqualFold(scheme, "Bearer")) || !strings.HasPrefix(v, credential.Prefix) {
		return "", proof, ErrNoCredential
	}
	return v, pop.Request{Binding: pop.REST, Proof: r.Header.Get("DPoP"), Method: r.Method, URL: strings.TrimSuffix(c.Origin, "/") + r.URL.EscapedPath()}, nil
}

// addressedBooking is the booking id a call addresses: the booking_id of
// the REST path or of the MCP arguments.
func addressedBooking(call Call) string {
	if r := call.Credentials.Request; r != nil {
		return r.PathValue("booking_id")
	}
	var args struct {
		BookingID string `json:"booking_id"`
	}
	_ = json.Unmarshal(call.Credentials.Params, &args) // checked or written by this code already; what does not decode reads as empty
	return args.BookingID
}

// credentialLife is how long a credential outlives its booking's slot:
// the booking stays actionable (cancel, read) until then.
const credentialLife = 7 * 24 * time.Hour

// New makes the credential for a booking p is creating, bound to the key
// p proved it holds, if any, and the write that stores it; slotEnd is when
// the booked slot ends. The write goes in the Apply that creates the
// booking, so a credential exists exactly when its booking does.
func (c *BookingCredentials) New(p Principal, bookingID string, slotEnd time.Time) (*credential.Credential, store.Write, error) {
	now := c.Clock.Now()
	expires := slotEnd.Add(credentialLife)
	if !expires.After(now) {
		expires = now.Add(credentialLife)
	}
	cred, rec, err := c.Issuer.New(bookingID, p.KeyThumbprint(), expires, now)
	if err != nil {
		return nil, store.Write{}, err
	}
	return &cred, store.Write{Op: store.OpCreate, Record: rec}, nil
}

// credentialFor gives the booking-scoped credential of a booking a
// platform is creating and the writes that store it, to commit with the
// booking. A staff caller gets none, nor does a creation whose credential
// cannot be made (logged): the booking still exists, and its platform
// reaches it with the mechanism that created it.
func (b *Business) credentialFor(ctx context.Context, p Principal, bookingID string, slotEnd time.Time) (*credential.Credential, []store.Write) {
	if b.creds == nil || p.Staff != "" {
		return nil, nil
	}
	cred, w, err := b.creds.New(p, bookingID, slotEnd)
	if err != nil {
		b.log.ErrorContext(ctx, "usp credential not issued", "platform", p.Platform, "err", err)
		return nil, nil
	}
	return cred, []store.Write{w}
}

// Sweep deletes the credentials that open nothing any more: expired ones
// and those of bookings that are gone or terminal. The write that ends a
// booking deletes its credentials already (the door's end hook on the
// reservation desk); the sweep
// catches one issued while that write was being made.
func (c *BookingCredentials) Sweep(ctx context.Context) (int, error) {
	return c.Issuer.Sweep(ctx, c.Clock.Now(), func(ctx context.Context, ref string) (bool, error) {
		r, err := reservation.Get(ctx, c.Reservations, ref)
		if errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return r.State.Terminal(), nil
	})
}
