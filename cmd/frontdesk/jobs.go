package main

import (
	"context"
	"io"
	"time"

	"frontdesk/internal/schedule"
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

// startJobs runs each job every interval until ctx ends (schedule.Start),
// each pass under passDeadline, recording each pass in the metrics and
// logging a failed one. The returned function stops them and waits for
// passes in flight.
func (m *Main) startJobs(ctx context.Context, jobs ...job) (stop func()) {
	js := make([]schedule.Job, len(jobs))
	for i, j := range jobs {
		js[i] = schedule.Job{Name: j.name, Every: j.every, Run: j.run, AtStart: j.atStart}
	}
	return schedule.Start(ctx, passDeadline, func(name string, seconds float64, err error) {
		m.metrics.Job(name, seconds, err == nil, float64(m.Clock.Now().Unix()))
		if err != nil {
			m.Logger.Error(name, "err", err)
		}
	}, js...)
}

// closing closes c as a command ends; its error becomes the command's
// when nothing failed before it, so a store that could not finish its
// writes is reported, not lost.
func closing(err *error, c io.Closer) {
	if cerr := c.Close(); *err == nil {
		*err = cerr
	}
}
