package payment_test

import (
	"context"
	"testing"
	"time"

	"frontdesk/internal/random"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/store"
)

// lostEvents is stripe-mock's provider whose pages read back as paid
// for amount: stripe-mock keeps no state, so a page paid on the
// provider's side while its event was lost is this.
type lostEvents struct {
	payment.Provider
	amount int64
}

func (l lostEvents) Checkout(ctx context.Context, id string) (payment.Checkout, error) {
	co, err := l.Provider.Checkout(ctx, id)
	co.ID, co.Status, co.Paid, co.Payment, co.Amount, co.Currency = id, payment.CheckoutComplete, true, "pi_lost", l.amount, "usd"
	return co, err
}

// TestSweepRecordsAPagePaidWhoseEventWasLost: a page past its expiry
// that the provider reports paid is recorded paid, not expired; one
// paid a different amount is left for a person, neither.
func TestSweepRecordsAPagePaidWhoseEventWasLost(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		for _, tc := range []struct {
			name   string
			amount int64
			state  string
		}{{"the amount asked", 4000, payment.StatePaid}, {"another amount", 3999, payment.StateOpen}} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				w := newWorld(t, st, api)
				sp, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_ledger"), WebhookSecret: payment.NewSecret(whsec), API: api})
				if err != nil {
					t.Fatal(err)
				}
				l := payment.NewLedger(payment.Options{Records: st, Provider: lostEvents{sp, tc.amount}, Clock: w.clock, Rand: random.Seeded([32]byte{byte(tc.amount)})})
				c := deposit()
				c.Reference, c.ExpiresAt = "APS-"+tc.name, w.clock.Now().Add(time.Hour)
				p, err := l.Begin(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				w.clock.Advance(time.Hour + payment.ExpiryGrace + time.Minute)
				_, err = l.Sweep(ctx)
				if (err != nil) != (tc.state == payment.StateOpen) {
					t.Fatalf("sweep = %v", err)
				}
				if p, err = l.Get(ctx, p.ID); err != nil || p.State != tc.state {
					t.Fatalf("payment = %+v, %v; want %s", p, err, tc.state)
				}
				if tc.state == payment.StatePaid && (p.ProviderPayment != "pi_lost" || !p.PaidAt.Equal(w.clock.Now())) {
					t.Fatalf("paid = %+v", p)
				}
			})
		}
	})
}
