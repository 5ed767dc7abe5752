package usp

import (
	"context"
	"fmt"
	"io"
)

// Sweep ends what is past its deadline and forgets idempotency keys
// and ended waitlist entries past their keep.
func (b *Business) Sweep(ctx context.Context) (expired, purged, waitPurged int, err error) {
	expired, err = b.Expire(ctx)
	if err != nil {
		return expired, 0, 0, err
	}
	if purged, err = b.PurgeIdempotency(ctx); err != nil {
		return expired, purged, 0, err
	}
	waitPurged, err = b.PurgeWaitlist(ctx)
	return expired, purged, waitPurged, err
}

// PrintSweep runs one Sweep and prints its counts, as `frontdesk sweep`
// does; a nil Business (USP off) prints nothing.
func (b *Business) PrintSweep(ctx context.Context, out io.Writer) error {
	if b == nil {
		return nil
	}
	expired, purged, waitPurged, err := b.Sweep(ctx)
	fmt.Fprintf(out, "sweep: usp expired=%d idempotency_purged=%d waitlist_purged=%d\n", expired, purged, waitPurged)
	return err
}
