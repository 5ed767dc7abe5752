// Package credential issues and checks USP booking-scoped credentials
// (booking_scoped_credential, §10.1.6): bearer-looking values that open
// one booking, or one waitlist entry, and nothing else. Issued to a
// platform_key_pop caller a credential carries cnf.jkt and is
// sender-constrained: presented without a proof by that key it counts as
// absent, whatever mechanism the caller declares.
//
// Only a hash of each value is stored, under a key that starts with the
// resource it opens, so a credential is looked up only within its own
// booking and all of a booking's credentials are found for invalidation
// at a terminal status.
//
// It imports the store contracts, reservation for the record kind it
// shares with the core, usp/pop for the proof and the standard library.
package credential

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"frontdesk/internal/fault"
	"frontdesk/store"
	"frontdesk/usp/pop"
)

// Prefix starts every credential value, so it is told apart from other
// tokens on the wire and in leak searches.
const Prefix = "bsc_"

// randomBytes is the entropy after the prefix: 160 bits, above the 128
// the specification requires.
const randomBytes = 20

// Kind is the record kind of issued credentials, keyed "<resource>/<hash
// of the value>". A booking's credentials die with it: the USP door
// hooks the reservation desk's terminal transitions with EndWrites, so
// the deletes commit in the write that ends the booking.
const Kind = "usp-credential"

// Credential is the issued form, returned once in the creation response
// and never on reads.
type Credential struct {
	Value     string `json:"value"`
	ExpiresAt string `json:"expires_at"` // RFC 3339, UTC
	CNF       *CNF   `json:"cnf,omitempty"`
}

// CNF is the confirmation binding to the platform's key.
type CNF struct {
	JKT string `json:"jkt"`
}

// stored is what the store keeps: no value, only what checking needs.
type stored struct {
	Resource  string    `json:"resource"`
	JKT       string    `json:"jkt,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	IssuedAt  time.Time `json:"issued_at"`
}

// Code is a credential failure with its USP protocol error code.
type Code = fault.Code

// CodeAuthenticationRequired is returned for a credential that is unknown,
// expired, invalidated, or issued for another resource: from outside they
// are the same, so the caller learns nothing about other bookings.
const CodeAuthenticationRequired fault.Code = "authentication_required"

// Error is a refused credential, the module's one error type
// (internal/fault) spelled with USP's code. Message is safe to show; Err
// is for logs.
type Error = fault.Error

func absent(format string, args ...any) *Error {
	return &Error{Code: CodeAuthenticationRequired, Message: "The credential does not open this booking.", Err: fmt.Errorf(format, args...)}
}

// Issuer issues and checks credentials on the store's records.
type Issuer struct {
	Records store.Records
	Rand    io.Reader // crypto/rand.Reader in production
}

// key returns the record key of a value for a resource. Resource ids are
// the business's own and contain no "/".
func key(resource, value string) string {
	sum := sha256.Sum256([]byte(value))
	return resource + "/" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// New makes a credential for resource, bound to jkt when it is not empty,
// and the record to create for it. The caller creates the record in the
// same Apply that creates the booking, so a credential never outlives a
// failed creation.
func (is Issuer) New(resource, jkt string, expires, now time.Time) (Credential, store.Record, error) {
	if resource == "" || strings.Contains(resource, "/") {
		return Credential{}, store.Record{}, fmt.Errorf("credential: bad resource id %q", resource)
	}
	if !expires.After(now) {
		return Credential{}, store.Record{}, errors.New("credential: expiry is not in the future")
	}
	b := make([]byte, randomBytes)
	if _, err := io.ReadFull(is.Rand, b); err != nil {
		return Credential{}, store.Record{}, fmt.Errorf("credential: random: %w", err)
	}
	value := Prefix + base64.RawURLEncoding.EncodeToString(b)
	v, err := json.Marshal(stored{Resource: resource, JKT: jkt, ExpiresAt: expires.UTC(), IssuedAt: now.UTC()})
	if err != nil {
		return Credential{}, store.Record{}, fmt.Errorf("credential: %w", err)
	}
	c := Credential{Value: value, ExpiresAt: expires.UTC().Format(time.RFC3339)}
	if jkt != "" {
		c.CNF = &CNF{JKT: jkt}
	}
	return c, store.Record{Kind: Kind, Key: key(resource, value), Value: v, UpdatedAt: now}, nil
}

// Issue makes a credential and stores it on its own, for a creation path
// that does not batch its writes. Credentials are issued at creation only,
// never on reads.
func (is Issuer) Issue(ctx context.Context, resource, jkt string, expires, now time.Time) (Credential, error) {
	c, r, err := is.New(resource, jkt, expires, now)
	if err != nil {
		return Credential{}, err
	}
	if _, err := is.Records.Create(ctx, r); err != nil {
		return Credential{}, fmt.Errorf("credential: store: %w", err)
	}
	return c, nil
}

// Presentation is what a caller presented on a call addressing Resource.
type Presentation struct {
	Resource   string
	Credential string
	// Proof is the proof-of-possession request, Proof.Proof "" when none
	// came with the credential. Its Credential and BoundJKT are filled in
	// here from the stored credential.
	Proof pop.Request
}

// Grant is an accepted presentation.
type Grant struct {
	Resource string
	// JKT is the platform key the credential is bound to, "" for an
	// unbound credential; the caller checks it against the profile URI
	// it has on record for that key.
	JKT string
}

// Authorize runs the §10.1.6 verification order for a presented
// credential: (1) known and unexpired, (2) a cnf-bound credential needs a
// proof, (3) it opens the addressed resource, then the proof's own steps
// in pop. An unknown, expired or other booking's credential is an *Error;
// a proof failure is a *pop.Error. A caller must not fall back to another
// mechanism after either.
func (is Issuer) Authorize(ctx context.Context, now time.Time, v *pop.Verifier, p Presentation) (Grant, error) {
	if !strings.HasPrefix(p.Credential, Prefix) || p.Resource == "" || strings.Contains(p.Resource, "/") {
		return Grant{}, absent("not a credential for a resource")
	}
	// 1 and 3 at once: the key holds the resource, so a credential for
	// another booking is as unknown as a made-up one.
	r, err := is.Records.Get(ctx, Kind, key(p.Resource, p.Credential))
	if errors.Is(err, store.ErrNotFound) {
		return Grant{}, absent("no credential for resource %s", p.Resource)
	}
	if err != nil {
		return Grant{}, fmt.Errorf("credential: %w", err)
	}
	var s stored
	if err := json.Unmarshal(r.Value, &s); err != nil {
		return Grant{}, fmt.Errorf("credential: decode: %w", err)
	}
	if !now.Before(s.ExpiresAt) {
		return Grant{}, absent("credential expired at %s", s.ExpiresAt.Format(time.RFC3339))
	}
	if s.Resource != p.Resource {
		return Grant{}, absent("credential for %s presented for %s", s.Resource, p.Resource)
	}
	if s.JKT == "" {
		return Grant{Resource: s.Resource}, nil
	}
	// 2 and 4–12: sender-constrained, so its proof decides.
	req := p.Proof
	req.Credential, req.BoundJKT = p.Credential, s.JKT
	if _, err := v.Verify(ctx, now, req); err != nil {
		return Grant{}, err
	}
	return Grant{Resource: s.Resource, JKT: s.JKT}, nil
}

// InvalidationWrites returns the deletes that invalidate every credential
// of resource, to apply in the same transaction as the status change that
// makes the resource terminal.
func (is Issuer) InvalidationWrites(ctx context.Context, resource string) ([]store.Write, error) {
	if resource == "" || strings.Contains(resource, "/") {
		return nil, fmt.Errorf("credential: bad resource id %q", resource)
	}
	var writes []store.Write
	after := ""
	for {
		page, err := is.Records.List(ctx, Kind, resource+"/", after, 100)
		if err != nil {
			return nil, fmt.Errorf("credential: list: %w", err)
		}
		for _, r := range page {
			writes = append(writes, store.Write{Op: store.OpDelete, Record: r})
			after = r.Key
		}
		if len(page) < 100 {
			return writes, nil
		}
	}
}

// Invalidate deletes every credential of resource on its own.
func (is Issuer) Invalidate(ctx context.Context, resource string) error {
	writes, err := is.InvalidationWrites(ctx, resource)
	if err != nil {
		return err
	}
	if _, err := is.Records.Apply(ctx, writes); err != nil {
		return fmt.Errorf("credential: invalidate: %w", err)
	}
	return nil
}

// Sweep deletes the credentials that can open nothing any more: those
// past their expiry, and those whose resource ended reports as ended (a
// booking at a terminal status, where Authorize's caller already refuses
// them). It returns how many it deleted; one that changed or went
// meanwhile is skipped.
func (is Issuer) Sweep(ctx context.Context, now time.Time, ended func(ctx context.Context, resource string) (bool, error)) (int, error) {
	deleted, after := 0, ""
	for {
		page, err := is.Records.List(ctx, Kind, "", after, 100)
		if err != nil {
			return deleted, fmt.Errorf("credential: list: %w", err)
		}
		for _, r := range page {
			after = r.Key
			var s stored
			if err := json.Unmarshal(r.Value, &s); err != nil {
				return deleted, fmt.Errorf("credential: decode: %w", err)
			}
			gone := !now.Before(s.ExpiresAt)
			if !gone {
				if gone, err = ended(ctx, s.Resource); err != nil {
					return deleted, err
				}
			}
			if !gone {
				continue
			}
			err := is.Records.Delete(ctx, Kind, r.Key, r.Version)
			switch {
			case err == nil:
				deleted++
			case !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound):
				return deleted, fmt.Errorf("credential: delete: %w", err)
			}
		}
		if len(page) < 100 {
			return deleted, nil
		}
	}
}
