package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"frontdesk/direct"
)

// bookingSweepEvery is the cadence of the booking sweep inside serve
// (direct-booking.md §14).
const bookingSweepEvery = 15 * time.Minute

// bookingSweepJob is the booking sweep as serve runs it.
func (m *Main) bookingSweepJob() job {
	// A pass at start retries the notices a killed or restarted server
	// left, and repairs what it interrupted.
	return job{name: "booking sweep", every: bookingSweepEvery, atStart: true, run: func(ctx context.Context) error {
		res, err := m.bookings.Sweep(ctx)
		m.metrics.DeadLetters.WithLabelValues("mail").Add(float64(res.Exhausted))
		return err
	}}
}

// printBookingSweep runs one booking sweep pass and prints its counts.
func printBookingSweep(ctx context.Context, b *direct.Service, out io.Writer) error {
	res, err := b.Sweep(ctx)
	if res.Skipped {
		fmt.Fprintln(out, "sweep: booking pass skipped (another instance is running one)")
		return err
	}
	fmt.Fprintf(out, "sweep: booking notices=%d exhausted=%d purged=%d released=%d repaired=%d flagged=%d failed=%d\n",
		res.Notices, res.Exhausted, res.Purged, res.Released, res.Repaired, res.Flagged, res.Failed)
	return err
}
