package orp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"frontdesk/store"
)

// maxAttempts bounds how often one change is decided again on fresh
// reads after losing a race.
const maxAttempts = 8

// busy is the answer when contention outlasts every attempt: retryable,
// with Retry-After, never internal, because nothing failed and the same
// message sent again will apply.
func busy(cause error) *Error {
	return &Error{Code: RateLimited, Message: "Other changes to the same records won every attempt. Send the same message again; nothing was applied.", RetryAfter: 1, Err: cause}
}

// retry runs try with store.Retrier until it succeeds, fails for another
// reason than a lost race, or loses maxAttempts races, waiting a jittered
// and growing backoff between attempts so that racing writers spread out
// instead of colliding again at once. try must decide everything on
// fresh reads.
func (h *Host) retry(ctx context.Context, try func() error) error {
	err := store.Retrier{Attempts: maxAttempts, Wait: h.backoff}.Run(ctx, try)
	if lost, ok := errors.AsType[*store.LostRaces](err); ok {
		return busy(lost.Last)
	}
	return err
}

// backoff waits a random time below 2^attempt milliseconds, at most 64.
func (h *Host) backoff(ctx context.Context, attempt int) error {
	ceiling := uint64(time.Millisecond << min(attempt, 6))
	var b [8]byte
	h.randMu.Lock()
	_, err := io.ReadFull(h.rand, b[:])
	h.randMu.Unlock()
	if err != nil {
		return fmt.Errorf("backoff: %w", err)
	}
	t := time.NewTimer(time.Duration(binary.BigEndian.Uint64(b[:]) % ceiling))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
