package payment_test

import (
	"context"
	"testing"
	"time"

	"frontdesk/payment"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/store"
)

// A door waiting on its payments hears of each one paid once, after the
// ledger recorded it, and not of a replay; an unmatched payment is
// refunded in full, once.
func TestPaidHookAndUnmatchedRefund(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		var heard []payment.Payment
		w.ledger.OnPaid(func(ctx context.Context, q payment.Payment) { heard = append(heard, q) })
		body, sig := completed(t, w, "evt_hook", p, p.Amount, w.clock.Now())
		if _, err := w.ledger.Receive(ctx, sig, body); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ledger.Receive(ctx, sig, body); err != nil {
			t.Fatal(err)
		}
		if len(heard) != 1 || heard[0].ID != p.ID || heard[0].State != payment.StatePaid {
			t.Fatalf("heard %+v, want the paid payment once", heard)
		}
		if got, _, err := w.ledger.PaidSince(ctx, w.clock.Now().Add(-time.Hour), "", 10); err != nil || len(got) != 1 || got[0].ID != p.ID {
			t.Fatalf("paid since = %+v, %v", got, err)
		}
		if got, _, _ := w.ledger.PaidSince(ctx, w.clock.Now().Add(time.Second), "", 10); len(got) != 0 {
			t.Fatalf("paid since later = %+v", got)
		}
		for range 2 {
			got, err := w.ledger.RefundUnmatched(ctx, p.ID)
			if err != nil || got.Refunded() != p.Amount || len(got.Refunds) != 1 || got.Refunds[0].Reason != payment.ReasonNoBooking {
				t.Fatalf("unmatched refund = %+v, %v", got, err)
			}
		}
		if got, _, _ := w.ledger.PaidSince(ctx, w.clock.Now().Add(-time.Hour), "", 10); len(got) != 0 {
			t.Fatalf("a payment refunded in full is still listed: %+v", got)
		}
	})
}
