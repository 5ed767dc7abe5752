package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"frontdesk/booking"
)

// bookingSweepEvery is the cadence of the booking sweep inside serve
// (direct-booking.md §14).
const bookingSweepEvery = 15 * time.Minute

// startBookingSweep runs the booking sweep every 15 minutes until ctx
// ends. It returns a function that stops it and waits for a pass in
// flight.
func (m *Main) startBookingSweep(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(bookingSweepEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := m.bookings.Sweep(ctx); err != nil && !errors.Is(err, context.Canceled) {
					m.Logger.Error("booking sweep", "err", err)
				}
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// printBookingSweep runs one booking sweep pass and prints its counts.
func printBookingSweep(ctx context.Context, b *booking.Service, out io.Writer) error {
	res, err := b.Sweep(ctx)
	if res.Skipped {
		fmt.Fprintln(out, "sweep: booking pass skipped (another instance is running one)")
		return err
	}
	fmt.Fprintf(out, "sweep: booking notices=%d exhausted=%d purged=%d released=%d repaired=%d flagged=%d failed=%d\n",
		res.Notices, res.Exhausted, res.Purged, res.Released, res.Repaired, res.Flagged, res.Failed)
	return err
}
