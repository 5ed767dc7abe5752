package usp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"frontdesk/store"
)

// kindBinding records, per principal, the platform profile URI it
// presented first (key: the Principal.ID).
const kindBinding = "usp-principal"

// Bindings is trust-on-first-use identity binding (§10.1.6): the first
// profile URI a principal presents is recorded, and a later different one
// from the same principal is refused. Many principals presenting one URI
// is the normal case for a shared platform profile and is never refused.
type Bindings struct {
	st store.Records
	// known remembers bindings already read or written: a binding never
	// changes, so a repeat caller costs no read. It is emptied when it
	// reaches maxKnown.
	mu    sync.Mutex
	known map[string]string
}

// maxKnown bounds the bindings kept in memory.
const maxKnown = 10000

// NewBindings keeps the bindings in st.
func NewBindings(st store.Records) *Bindings { return &Bindings{st: st, known: map[string]string{}} }

func (b *Bindings) remember(principal, profile string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.known) >= maxKnown {
		clear(b.known)
	}
	b.known[principal] = profile
}

var errRebound = fail(CodeProfileNotTrusted, "These credentials are bound to another platform profile; one principal may present only the profile URI it first presented.")

// Check refuses principal presenting profile when it is bound to another
// URI; an unbound principal passes, and nothing is recorded.
func (b *Bindings) Check(ctx context.Context, principal, profile string) error {
	if b == nil || b.st == nil {
		return &Error{Code: CodeServerError, Message: "The business could not process the request.", Err: errors.New("usp: no store for identity bindings")}
	}
	b.mu.Lock()
	bound, ok := b.known[principal]
	b.mu.Unlock()
	if !ok {
		r, err := b.st.Get(ctx, kindBinding, principal)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read identity binding: %w", err)
		}
		bound = string(r.Value)
		b.remember(principal, bound)
	}
	if bound != profile {
		return errRebound
	}
	return nil
}

// Bind records or checks principal's profile URI.
func (b *Bindings) Bind(ctx context.Context, principal, profile string, now time.Time) error {
	if b == nil || b.st == nil {
		return &Error{Code: CodeServerError, Message: "The business could not process the request.", Err: errors.New("usp: no store for identity bindings")}
	}
	b.mu.Lock()
	bound, ok := b.known[principal]
	b.mu.Unlock()
	if ok {
		if bound != profile {
			return errRebound
		}
		return nil
	}
	// Of first contacts of one principal at once, one records its
	// profile and the others compare with it.
	r, err := store.Ensure(ctx, b.st, kindBinding, principal, now, func() ([]byte, error) { return []byte(profile), nil })
	if err != nil {
		return fmt.Errorf("record identity binding: %w", err)
	}
	b.remember(principal, string(r.Value))
	if string(r.Value) != profile {
		return errRebound
	}
	return nil
}
