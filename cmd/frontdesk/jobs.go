package main

import (
	"context"
	"io"
	"sync"
	"time"
)

// job is work serve repeats on a fixed interval.
type job struct {
	name  string // the log message of a failed pass
	every time.Duration
	run   func(context.Context) error
	// atStart runs a first pass as soon as serve starts, for work that a
	// server restarted more often than every would otherwise never do.
	atStart bool
}

// passDeadline bounds every pass of a scheduled job: the sweep's 24-second
// work deadline (direct-booking.md §14), within a scheduler's 30 seconds,
// holds for every job, so a hung store cannot keep a pass running.
const passDeadline = 24 * time.Second

// startJobs runs each job every interval until ctx ends, each pass under
// passDeadline, recording each pass's duration and last success in the
// metrics (label: the job's name) and logging a failed pass under the
// job's name (a pass cut short by the end of ctx is not a failure). The
// returned function stops them and waits for passes in flight.
func (m *Main) startJobs(ctx context.Context, jobs ...job) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			t := time.NewTicker(j.every)
			defer t.Stop()
			// pass reports false when shutdown cut it short.
			pass := func() bool {
				passCtx, cancelPass := context.WithTimeout(ctx, passDeadline)
				defer cancelPass()
				start := time.Now()
				err := j.run(passCtx)
				if ctx.Err() != nil {
					return false // cut short by shutdown: neither a success nor a failure
				}
				m.metrics.Job(j.name, time.Since(start).Seconds(), err == nil, float64(m.Clock.Now().Unix()))
				if err != nil {
					m.Logger.Error(j.name, "err", err)
				}
				return true
			}
			if j.atStart && !pass() {
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

// closing closes c as a command ends; its error becomes the command's
// when nothing failed before it, so a store that could not finish its
// writes is reported, not lost.
func closing(err *error, c io.Closer) {
	if cerr := c.Close(); *err == nil {
		*err = cerr
	}
}
