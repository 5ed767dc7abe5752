package main

import (
	"context"
	"sync"
	"time"
)

// job is work serve repeats on a fixed interval.
type job struct {
	name  string // the log message of a failed pass
	every time.Duration
	run   func(context.Context) error
}

// startJobs runs each job every interval until ctx ends, recording each
// pass's duration and last success in the metrics (label: the job's
// name) and logging a failed pass under the job's name (a pass cut short by the end of ctx is not a
// failure). The returned function stops them and waits for passes in
// flight.
func (m *Main) startJobs(ctx context.Context, jobs ...job) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			t := time.NewTicker(j.every)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					start := time.Now()
					err := j.run(ctx)
					if ctx.Err() != nil {
						return // cut short by shutdown: neither a success nor a failure
					}
					m.metrics.Job(j.name, time.Since(start).Seconds(), err == nil, float64(m.Clock.Now().Unix()))
					if err != nil {
						m.Logger.Error(j.name, "err", err)
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
