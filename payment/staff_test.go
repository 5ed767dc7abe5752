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

// paidWorld is a world on st whose deposit of 4000 was paid.
func paidWorld(t *testing.T, st store.Store, api string) (world, payment.Payment) {
	t.Helper()
	w, p := begun(t, st, api)
	body, sig := completed(t, w, "evt_paid", p, 4000, w.clock.Now())
	if out, err := w.ledger.Receive(context.Background(), sig, body); err != nil || !out.Applied {
		t.Fatalf("receive = %+v, %v", out, err)
	}
	return w, p
}

// TestManualRefund: staff refund with their name and reason kept on the
// payment; the same form sent twice refunds once; bad input is refused
// and writes nothing.
func TestManualRefund(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := paidWorld(t, st, api)
		before := version(t, st, p.ID)
		for _, tc := range []struct {
			name string
			m    payment.ManualRefund
			code payment.Code
		}{
			{"no reason", payment.ManualRefund{Payment: p.ID, Amount: 100, Note: "  ", By: "olga"}, payment.CodeInvalid},
			{"no login", payment.ManualRefund{Payment: p.ID, Amount: 100, Note: "goodwill"}, payment.CodeInvalid},
			{"a card number", payment.ManualRefund{Payment: p.ID, Amount: 100, Note: "card 4242 4242 4242 4242", By: "olga"}, payment.CodeInvalid},
			{"more than paid", payment.ManualRefund{Payment: p.ID, Amount: 4001, Note: "goodwill", By: "olga"}, payment.CodeInvalid},
			{"nothing", payment.ManualRefund{Payment: p.ID, Amount: 0, Note: "goodwill", By: "olga"}, payment.CodeInvalid},
			{"no such payment", payment.ManualRefund{Payment: "pay_none", Amount: 100, Note: "goodwill", By: "olga"}, payment.CodeNotFound},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := w.ledger.ManualRefund(ctx, tc.m); payment.ErrorCode(err) != tc.code {
					t.Fatalf("refund = %v, want %s", err, tc.code)
				}
				if v := version(t, st, p.ID); v != before {
					t.Fatalf("a refused refund wrote the payment: version %d, was %d", v, before)
				}
			})
		}
		m := payment.ManualRefund{Payment: p.ID, Amount: 1500, Note: " the shower was broken ", By: "olga", Seen: 0}
		r, err := w.ledger.ManualRefund(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Refunds[0]
		if len(r.Refunds) != 1 || got.By != "olga" || got.Note != "the shower was broken" || got.State != payment.RefundDone || got.Amount != 1500 {
			t.Fatalf("refunds = %+v", r.Refunds)
		}
		if r, err = w.ledger.ManualRefund(ctx, m); err != nil || len(r.Refunds) != 1 {
			t.Fatalf("the same form again = %+v, %v", r.Refunds, err)
		}
		m.Seen, m.Amount = 1, 2500
		if r, err = w.ledger.ManualRefund(ctx, m); err != nil || r.Refunded() != 4000 {
			t.Fatalf("a second refund = %+v, %v", r.Refunds, err)
		}
		m.Seen, m.Amount = 2, 1
		if _, err := w.ledger.ManualRefund(ctx, m); payment.ErrorCode(err) != payment.CodeInvalid {
			t.Fatalf("a refund past the whole = %v, want invalid", err)
		}
		// Before the reservation ends, the fee is waived in advance, once,
		// with the owner's name and reason, and refunds nothing now.
		waived, err := w.ledger.WaiveFee(ctx, payment.Waive{Payment: p.ID, Note: "regular guest", By: "olga"})
		if err != nil || !waived.FeeWaivedInAdvance() || waived.Waiver.By != "olga" || waived.Waiver.Note != "regular guest" || waived.Refunded() != 4000 {
			t.Fatalf("waiving in advance = %+v, %v", waived.Waiver, err)
		}
		if _, err := w.ledger.WaiveFee(ctx, payment.Waive{Payment: p.ID, Note: "again", By: "olga"}); payment.ErrorCode(err) != payment.CodeState {
			t.Fatalf("waiving twice = %v, want state", err)
		}
	})
}

// TestSettleAfterAnAdvanceWaiver: a late cancellation of a booking
// whose fee was waived in advance takes no fee and returns all that was
// paid; without the waiver it keeps the fee.
func TestSettleAfterAnAdvanceWaiver(t *testing.T) {
	terms, err := business.Policy{Payment: business.PayDeposit, Deposit: "20.00", FreeCancelHours: 48, LateCancelFee: "80.00"}.Terms("USD")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 30, 15, 0, 0, 0, time.UTC)
	late := start.Add(-time.Hour)
	p := payment.Payment{State: payment.StatePaid, Amount: 2000}
	if got := payment.SettlePayment(terms, p, 2000, start, late); got.Kept != 2000 || got.Owed != 6000 || payment.CancelFee(terms, p, start, late) != 8000 {
		t.Fatalf("late cancellation without a waiver = %+v", got)
	}
	p.Waiver = &payment.Waiver{By: "olga", Note: "regular guest", Advance: true}
	if got := payment.SettlePayment(terms, p, 2000, start, late); got != (payment.CancelSettlement{Paid: 2000, Refund: 2000}) || payment.CancelFee(terms, p, start, late) != 0 {
		t.Fatalf("late cancellation after an advance waiver = %+v", got)
	}
}

// TestFeeFigures: what a settlement keeps as a fee, what it leaves owed,
// and what a waiver changes of both.
func TestFeeFigures(t *testing.T) {
	cancelled := func(kept, owed int64) payment.Payment {
		return payment.Payment{State: payment.StatePaid, Amount: 2000, Settled: &payment.Settlement{Why: payment.SettledCancellation, Kept: kept, Owed: owed}}
	}
	waived := cancelled(2000, 6000)
	waived.Waiver = &payment.Waiver{Refund: 2000, Owed: 6000}
	waived.Refunds = []payment.RefundEntry{{Amount: 2000, Reason: payment.ReasonWaiver}}
	manual := cancelled(1500, 0)
	manual.Refunds = []payment.RefundEntry{{Amount: 1000}}
	for _, tc := range []struct {
		name      string
		p         payment.Payment
		fee, owed int64
		waivable  bool
	}{
		{"nothing settled", payment.Payment{State: payment.StatePaid, Amount: 2000}, 0, 0, false},
		{"a fee inside the deposit", cancelled(1500, 0), 1500, 0, true},
		{"a fee above the deposit", cancelled(2000, 6000), 2000, 6000, true},
		{"waived", waived, 0, 0, false},
		{"refunded by hand below the fee", manual, 1000, 0, true},
		{"a free cancellation", cancelled(0, 0), 0, 0, false},
		{"a no-show", payment.Payment{State: payment.StatePaid, Amount: 2000, Settled: &payment.Settlement{Why: payment.SettledNoShow, Kept: 2000}}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.FeeKept(); got != tc.fee {
				t.Fatalf("FeeKept = %d, want %d", got, tc.fee)
			}
			if got := tc.p.Owed(); got != tc.owed {
				t.Fatalf("Owed = %d, want %d", got, tc.owed)
			}
			if got := tc.p.Waivable(); got != tc.waivable {
				t.Fatalf("Waivable = %v, want %v", got, tc.waivable)
			}
		})
	}
}

// TestTotalsByDateRange: the totals count a payment in the range it was
// paid in, with what was refunded of it since.
func TestTotalsByDateRange(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := paidWorld(t, st, api)
		paidAt := w.clock.Now()
		w.clock.Advance(48 * time.Hour)
		if _, err := w.ledger.ManualRefund(ctx, payment.ManualRefund{Payment: p.ID, Amount: 1500, Note: "goodwill", By: "olga"}); err != nil {
			t.Fatal(err)
		}
		open := deposit()
		open.Reference = "APS-1002"
		if _, err := w.ledger.Begin(ctx, open); err != nil {
			t.Fatal(err)
		}
		got, err := w.ledger.Totals(ctx, paidAt.Add(-time.Hour), paidAt.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want := payment.Totals{Payments: 1, Taken: 4000, Refunded: 1500, Kept: 2500, Currency: "USD"}
		if got != want {
			t.Fatalf("totals = %+v, want %+v", got, want)
		}
		if got, err = w.ledger.Totals(ctx, paidAt.Add(time.Hour), w.clock.Now().Add(time.Hour)); err != nil || got != (payment.Totals{Open: 1}) {
			t.Fatalf("totals after = %+v, %v", got, err)
		}
	})
}
