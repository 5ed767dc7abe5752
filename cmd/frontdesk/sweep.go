package main

import (
	"context"
	"time"
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
