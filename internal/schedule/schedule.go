// Package schedule repeats jobs on fixed intervals, each pass under a
// deadline, until its context ends.
package schedule

import (
	"context"
	"sync"
	"time"
)

// Job is work repeated on a fixed interval.
type Job struct {
	Name  string
	Every time.Duration
	Run   func(context.Context) error
	// AtStart runs a first pass at once, for work that a process
	// restarted more often than Every would otherwise never do.
	AtStart bool
}

// Start runs each job every interval until ctx ends, each pass under
// deadline, and reports every finished pass to done with its duration
// (a pass cut short by the end of ctx is neither a success nor a failure,
// and is not reported). The returned function stops them and waits for
// passes in flight.
func Start(ctx context.Context, deadline time.Duration, done func(name string, seconds float64, err error), jobs ...Job) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			t := time.NewTicker(j.Every)
			defer t.Stop()
			// pass reports false when shutdown cut it short.
			pass := func() bool {
				passCtx, cancelPass := context.WithTimeout(ctx, deadline)
				defer cancelPass()
				start := time.Now()
				err := j.Run(passCtx)
				if ctx.Err() != nil {
					return false // cut short by shutdown: neither a success nor a failure
				}
				done(j.Name, time.Since(start).Seconds(), err)
				return true
			}
			if j.AtStart && !pass() {
				return
			}
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if !pass() {
						return
					}
				}
			}
		})
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
