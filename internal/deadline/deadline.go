// Package deadline bounds a command's work against the database, naming
// the database's silence when it outlives the bound.
package deadline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// errDatabaseSilent is the error of a command whose database did not
// answer within its deadline.
type errDatabaseSilent struct {
	cmd string
	d   time.Duration
}

func (e errDatabaseSilent) Error() string {
	return fmt.Sprintf("%s: the database did not answer within %s s", e.cmd, strconv.FormatFloat(e.d.Seconds(), 'f', -1, 64))
}

// Run runs f under a deadline of d and returns by then, whatever
// f is waiting on: a driver cancelling a statement, or a pool closing,
// can take seconds beyond the context's end on a hung database, and the
// command states its deadline. A deadline that passes is reported as the
// database's silence, not as whatever step (a migration, a read) it
// ended; f is left to end on its own, and the process exits meanwhile.
func Run(ctx context.Context, cmd string, d time.Duration, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	silent := errDatabaseSilent{cmd: cmd, d: d}
	select {
	case err := <-done:
		if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return silent
		}
		return err
	case <-ctx.Done():
		if ctx.Err() == context.Canceled {
			// The caller gave up (an interrupt): f ends with its own
			// error shortly.
			return <-done
		}
		return silent
	}
}

// Bounded runs f and returns when it ends or after d, whichever is first;
// f goes on in the background when it outlives d.
func Bounded(d time.Duration, f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
