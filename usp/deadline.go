package usp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/internal/fault"
	"frontdesk/store"
)

// DefaultDeadline is how long a USP call may take before it is answered
// service_unavailable: well inside the HTTP answer deadlines of both
// bindings (30 s on REST, 90 s on MCP), so an answer is always written.
const DefaultDeadline = 10 * time.Second

// RetryAfter is the Retry-After, in seconds, of an answer given while the
// store is out of service or too slow.
const RetryAfter = 5

// errUnknownOutcome answers a call that did not finish within its
// deadline: it may or may not have taken effect, so the platform retries,
// and a retry with the same idempotency key answers what happened.
var errUnknownOutcome = &Error{Code: CodeServiceUnavailable, RetryAfter: RetryAfter,
	Message: "The business could not finish the request in time; it may or may not have taken effect. Retry with the same idempotency key, which answers what happened."}

// Within runs one call of a binding under the business's deadline and
// answers within it, whatever the store does: past the deadline the
// caller gets errUnknownOutcome at once, while the call, whose context
// has ended, winds down alone; a result that arrives first is always
// answered, so a write that committed is never lost to a timeout. An
// error that says the store is out of service becomes
// service_unavailable with Retry-After (§9.4.3), never server_error.
func (b *Business) Within(ctx context.Context, call func(context.Context) (any, error)) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, b.deadline)
	defer cancel()
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("usp call panicked: %v", p)}
			}
		}()
		v, err := call(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, b.outage(r.err)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			b.log.WarnContext(ctx, "usp call passed its deadline", "deadline", b.deadline)
		}
		return nil, errUnknownOutcome
	}
}

// outage turns an error the store reports as an outage into
// service_unavailable; any other error is returned as it is.
func (b *Business) outage(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.Find(err, uspCode); ok {
		return err
	}
	o, ok := b.st.(store.Outages)
	if errors.Is(err, context.DeadlineExceeded) || (ok && o.IsOutage(err)) {
		return &Error{Code: CodeServiceUnavailable, RetryAfter: RetryAfter, Err: err,
			Message: "The business's records are unavailable for a moment. Retry after a few seconds, with the same idempotency key for a write."}
	}
	return err
}
