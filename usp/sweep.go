package usp

import (
	"context"
	"fmt"
	"io"

	"frontdesk/internal/clock"
	"frontdesk/store"
	"frontdesk/usp/pop"
	"frontdesk/usp/webhook"
)

// Sweep applies payments whose booking write did not follow, ends what
// is past its deadline and forgets idempotency keys and ended waitlist
// entries past their keep.
func (b *Business) Sweep(ctx context.Context) (expired, purged, waitPurged int, err error) {
	if err = b.SettlePayments(ctx); err != nil {
		return 0, 0, 0, err
	}
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

// PrintDeliverySweep is one pass of what serve does in the background
// for delivery: a webhook pass of box, and the proof and credential
// records that can no longer be used, with their counts printed.
func PrintDeliverySweep(ctx context.Context, box *webhook.Outbox, records store.Records, creds *BookingCredentials, clk clock.Clock, out io.Writer) error {
	res, err := box.Deliver(ctx)
	if err != nil {
		return err
	}
	proofs, err := pop.StoreReplay{Records: records}.Sweep(ctx, clk.Now())
	if err != nil {
		return err
	}
	removed, err := creds.Sweep(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sweep: usp webhooks delivered=%d retrying=%d given_up=%d dropped=%d; proofs forgotten=%d credentials removed=%d\n",
		res.Delivered, res.Retrying, res.Dead, res.Dropped, proofs, removed)
	return nil
}
