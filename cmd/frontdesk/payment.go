package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// paymentSweepEvery is how often serve finishes payments a crash left
// mid-way (a page not opened, a refund not sent).
const paymentSweepEvery = 5 * time.Minute

func (m *Main) paymentSweepJob() job {
	return job{name: "payment sweep", every: paymentSweepEvery, atStart: true, run: func(ctx context.Context) error {
		_, err := m.payments.Sweep(ctx)
		return err
	}}
}

// printPaymentSweep runs one payment sweep pass and prints its count,
// when a provider is configured.
func (m *Main) printPaymentSweep(ctx context.Context, out io.Writer) error {
	if m.Payment == nil {
		return nil
	}
	n, err := m.payments.Sweep(ctx)
	fmt.Fprintf(out, "sweep: payments finished=%d\n", n)
	return err
}
