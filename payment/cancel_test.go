package payment_test

import (
	"context"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/payment"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/store"
)

// TestSettle: inside the free window all that was paid goes back; after
// it, paid less the late fee; a fee larger than what was paid returns
// nothing and leaves the rest owed.
func TestSettle(t *testing.T) {
	start := time.Date(2027, 3, 10, 15, 0, 0, 0, time.UTC)
	terms := business.Terms{Timing: business.PayDeposit, DepositKind: business.DepositFixed, DepositValue: 5000, FreeCancel: 48 * time.Hour, LateCancelFee: 2000}
	big := terms
	big.LateCancelFee = 8000
	tests := []struct {
		name  string
		terms business.Terms
		now   time.Time
		want  payment.CancelSettlement
	}{
		{"inside the window", terms, start.Add(-49 * time.Hour), payment.CancelSettlement{Paid: 5000, Refund: 5000}},
		{"at the window's edge", terms, start.Add(-48 * time.Hour), payment.CancelSettlement{Paid: 5000, Refund: 3000, Kept: 2000}},
		{"outside the window", terms, start.Add(-time.Hour), payment.CancelSettlement{Paid: 5000, Refund: 3000, Kept: 2000}},
		{"a fee above the deposit", big, start.Add(-time.Hour), payment.CancelSettlement{Paid: 5000, Kept: 5000, Owed: 3000}},
	}
	for _, tt := range tests {
		if got := payment.Settle(tt.terms, 5000, start, tt.now); got != tt.want {
			t.Errorf("%s: Settle = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestRefundOnce: a refund made for a reason is made once, whatever is
// asked again; other refunds are not counted as it.
func TestRefundOnce(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		body, sig := completed(t, w, "evt_paid", p, 4000, w.clock.Now())
		if out, err := w.ledger.Receive(ctx, sig, body); err != nil || !out.Applied {
			t.Fatalf("receive = %+v, %v", out, err)
		}
		if _, err := w.ledger.Refund(ctx, p.ID, 500); err != nil {
			t.Fatal(err)
		}
		r, err := w.ledger.RefundOnce(ctx, p.ID, payment.ReasonCancellation, 1500)
		if err != nil || r.Refunded() != 2000 || r.Refunds[1].Reason != payment.ReasonCancellation || r.Refunds[1].State != payment.RefundDone {
			t.Fatalf("refund once = %+v, %v", r.Refunds, err)
		}
		before := version(t, st, p.ID)
		if r, err = w.ledger.RefundOnce(ctx, p.ID, payment.ReasonCancellation, 1500); err != nil || r.Refunded() != 2000 {
			t.Fatalf("asked again = %+v, %v", r.Refunds, err)
		}
		if v := version(t, st, p.ID); v != before {
			t.Fatalf("asking again wrote the payment: version %d, was %d", v, before)
		}
		if paid, got, err := w.ledger.Paid(ctx, "APS-1001"); err != nil || paid != 4000 || got.ID != p.ID {
			t.Fatalf("paid = %d %+v, %v", paid, got, err)
		}
		if paid, _, err := w.ledger.Paid(ctx, "APS-9999"); err != nil || paid != 0 {
			t.Fatalf("paid for nothing = %d, %v", paid, err)
		}
	})
}
