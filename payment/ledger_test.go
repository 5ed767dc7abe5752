package payment_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

const whsec = "whsec_test_ledger"

// engines runs f on a fresh SQLite file and a fresh PostgreSQL schema.
func engines(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
}

type world struct {
	ledger *payment.Ledger
	clock  *clock.Fixed
	st     store.Store
}

func newWorld(t *testing.T, st store.Store, api string) world {
	t.Helper()
	p, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_ledger"), WebhookSecret: payment.NewSecret(whsec), API: api})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFixed(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC))
	return world{
		ledger: payment.NewLedger(payment.Options{Records: st, Provider: p, Clock: clk, Rand: random.Seeded([32]byte{7})}),
		clock:  clk, st: st,
	}
}

// begun is a world on st with one deposit's page open.
func begun(t *testing.T, st store.Store, api string) (world, payment.Payment) {
	t.Helper()
	w := newWorld(t, st, api)
	p, err := w.ledger.Begin(context.Background(), deposit())
	if err != nil {
		t.Fatal(err)
	}
	return w, p
}

func deposit() payment.Charge {
	return payment.Charge{
		Reference: "APS-1001", Amount: 4000, Currency: "USD", Description: "Deposit for reservation APS-1001",
		SuccessURL: "https://sample.example/stay/t?paid=1", CancelURL: "https://sample.example/stay/t",
	}
}

// completed is the provider's event that p's page was paid.
func completed(t *testing.T, w world, id string, p payment.Payment, amount int64, at time.Time) ([]byte, string) {
	t.Helper()
	return stripemock.Event(t, whsec, id, payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": amount, "currency": "usd", "payment_intent": "pi_ledger",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, at)
}

func TestLedgerPaysOnceAndRefunds(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		if p.State != payment.StateOpen || p.Checkout == "" || p.Amount != 4000 || p.Provider != "stripe" {
			t.Fatalf("begun = %+v", p)
		}
		if latest, err := w.ledger.Latest(ctx, "APS-1001"); err != nil || latest.ID != p.ID {
			t.Fatalf("latest = %+v, %v", latest, err)
		}
		if _, err := w.ledger.Latest(ctx, "APS-9999"); payment.ErrorCode(err) != payment.CodeNotFound {
			t.Fatalf("latest of nothing = %v", err)
		}
		if _, err := w.ledger.Refund(ctx, p.ID, 100); payment.ErrorCode(err) != payment.CodeState {
			t.Fatalf("refund of an unpaid payment = %v, want state", err)
		}

		body, sig := completed(t, w, "evt_paid", p, 4000, w.clock.Now())
		out, err := w.ledger.Receive(ctx, sig, body)
		if err != nil || !out.Applied || out.Payment != p.ID {
			t.Fatalf("receive = %+v, %v", out, err)
		}
		paid, _ := w.ledger.Get(ctx, p.ID)
		if paid.State != payment.StatePaid || paid.ProviderPayment != "pi_ledger" || !paid.PaidAt.Equal(w.clock.Now()) {
			t.Fatalf("paid = %+v", paid)
		}

		// The same event again, even freshly signed, changes nothing.
		before := version(t, st, p.ID)
		w.clock.Advance(time.Minute)
		again := stripemock.Sign(body, whsec, w.clock.Now())
		out, err = w.ledger.Receive(ctx, again, body)
		if err != nil || out.Applied || out.Reason != "This event was already received." {
			t.Fatalf("replay = %+v, %v", out, err)
		}
		if v := version(t, st, p.ID); v != before {
			t.Fatalf("the replay wrote the payment: version %d, was %d", v, before)
		}

		r, err := w.ledger.Refund(ctx, p.ID, 1500)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Refunds) != 1 || r.Refunds[0].State != payment.RefundDone || r.Refunds[0].Provider == "" || r.Refunded() != 1500 {
			t.Fatalf("refunded = %+v", r.Refunds)
		}
		if _, err := w.ledger.Refund(ctx, p.ID, 2501); payment.ErrorCode(err) != payment.CodeInvalid {
			t.Fatalf("refund above what is left = %v, want invalid", err)
		}
		if r, err = w.ledger.Refund(ctx, p.ID, 2500); err != nil || r.Refunded() != 4000 {
			t.Fatalf("refund of the rest = %+v, %v", r, err)
		}
	})
}

// version is the stored version of payment id.
func version(t *testing.T, st store.Store, id string) int64 {
	t.Helper()
	rec, err := st.Get(context.Background(), "payment", id)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Version
}

// TestForgedStaleAndWrongEventsChangeNothing: an event under another
// secret, one signed outside the window, one for another amount and one
// naming no payment leave the payment open.
func TestForgedStaleAndWrongEventsChangeNothing(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		now := w.clock.Now()
		body, _ := completed(t, w, "evt_1", p, 4000, now)
		for _, tc := range []struct {
			name string
			sig  string
			want payment.Code
		}{
			{"forged", stripemock.Sign(body, "whsec_attacker", now), payment.CodeForged},
			{"stale", stripemock.Sign(body, whsec, now.Add(-10*time.Minute)), payment.CodeStale},
		} {
			if _, err := w.ledger.Receive(ctx, tc.sig, body); payment.ErrorCode(err) != tc.want {
				t.Errorf("%s: Receive = %v, want %s", tc.name, err, tc.want)
			}
		}
		if _, err := w.st.Get(ctx, "payment-event", "stripe evt_1"); err == nil {
			t.Fatal("a refused event's id was recorded; the genuine event would be refused as a replay")
		}
		short, sig := completed(t, w, "evt_2", p, 100, now)
		if out, err := w.ledger.Receive(ctx, sig, short); err != nil || out.Applied {
			t.Fatalf("wrong amount = %+v, %v", out, err)
		}
		other := p
		other.ID = "pay_unknown"
		stray, sig := completed(t, w, "evt_3", other, 4000, now)
		if out, err := w.ledger.Receive(ctx, sig, stray); err != nil || out.Applied {
			t.Fatalf("unknown payment = %+v, %v", out, err)
		}
		if got, _ := w.ledger.Get(ctx, p.ID); got.State != payment.StateOpen || version(t, st, p.ID) != 2 {
			t.Fatalf("payment = %+v, want still open, written twice (begun, opened)", got)
		}
		// A checkout of another system, with no metadata of ours, is
		// acknowledged and changes nothing.
		foreign, sig := stripemock.Event(t, whsec, "evt_4", payment.EventCheckoutCompleted, map[string]any{
			"id": "cs_other", "object": "checkout.session", "status": "complete", "payment_status": "paid", "amount_total": 4000, "currency": "usd",
		}, now)
		if out, err := w.ledger.Receive(ctx, sig, foreign); err != nil || out.Applied || out.Reason != "The event names no payment of this business." {
			t.Fatalf("a foreign checkout = %+v, %v", out, err)
		}
		// The genuine event, signed in the window, still applies.
		genuine := stripemock.Sign(body, whsec, now)
		if out, err := w.ledger.Receive(ctx, genuine, body); err != nil || !out.Applied {
			t.Fatalf("genuine = %+v, %v", out, err)
		}
	})
}

// TestInterruptedStartIsClosed: a page the provider could not open
// leaves the written-ahead record of the attempt; once StartGrace has
// passed, the sweep closes it as expired (no guest ever had its page).
func TestInterruptedStartIsClosed(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w := newWorld(t, st, "http://127.0.0.1:1")
		p, err := w.ledger.Begin(ctx, deposit())
		if payment.ErrorCode(err) != payment.CodeUnavailable || p.State != payment.StateStarting {
			t.Fatalf("begin with the provider down = %+v, %v", p, err)
		}
		if ids, _, err := w.ledger.Unfinished(ctx, "", 100); err != nil || len(ids) != 0 {
			t.Fatalf("unfinished inside the grace = %v, %v", ids, err)
		}
		w.clock.Advance(payment.StartGrace)
		ids, next, err := w.ledger.Unfinished(ctx, "", 100)
		if err != nil || len(ids) != 1 || ids[0] != p.ID || next != "" {
			t.Fatalf("unfinished = %v %q %v", ids, next, err)
		}
		if n, err := w.ledger.Sweep(ctx); n != 1 || err != nil {
			t.Fatalf("sweep = %d, %v", n, err)
		}
		if q, err := w.ledger.Get(ctx, p.ID); err != nil || q.State != payment.StateExpired {
			t.Fatalf("closed = %+v, %v", q, err)
		}
		if ids, _, _ := w.ledger.Unfinished(ctx, "", 100); len(ids) != 0 {
			t.Fatalf("still unfinished: %v", ids)
		}
	})
}

// TestPendingRefundIsSentAgain: a refund the provider did not answer
// stays pending in the record, and the sweep sends it again under the
// same idempotency key.
func TestPendingRefundIsSentAgain(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		body, sig := completed(t, w, "evt_paid", p, 4000, w.clock.Now())
		if out, err := w.ledger.Receive(ctx, sig, body); err != nil || !out.Applied {
			t.Fatalf("receive = %+v, %v", out, err)
		}
		down := newWorld(t, st, "http://127.0.0.1:1")
		r, err := down.ledger.Refund(ctx, p.ID, 1000)
		if payment.ErrorCode(err) != payment.CodeUnavailable {
			t.Fatalf("refund with the provider down = %v", err)
		}
		got, _ := w.ledger.Get(ctx, p.ID)
		if len(got.Refunds) != 1 || got.Refunds[0].State != payment.RefundPending || got.Refunded() != 1000 {
			t.Fatalf("the pending refund = %+v (%+v)", got.Refunds, r.Refunds)
		}
		if _, err := w.ledger.Refund(ctx, p.ID, 3001); payment.ErrorCode(err) != payment.CodeInvalid {
			t.Fatalf("a pending refund does not count against what is left: %v", err)
		}
		if n, err := w.ledger.Sweep(ctx); n != 1 || err != nil {
			t.Fatalf("sweep = %d, %v", n, err)
		}
		got, _ = w.ledger.Get(ctx, p.ID)
		if got.Refunds[0].State != payment.RefundDone || got.Refunds[0].Provider == "" {
			t.Fatalf("after the sweep = %+v", got.Refunds)
		}
	})
}

func TestNoProviderNamesTheSetting(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const missing = "Paid bookings need FRONTDESK_STRIPE_KEY (or FRONTDESK_STRIPE_MOCK for the demo)."
	l := payment.NewLedger(payment.Options{Records: st, Missing: missing, Clock: clock.NewFixed(time.Unix(0, 0)), Rand: random.Seeded([32]byte{})})
	_, err = l.Begin(context.Background(), deposit())
	if e, ok := err.(*payment.Error); !ok || e.Code != payment.CodeNoProvider || e.Message != missing {
		t.Fatalf("Begin = %v, want the missing setting", err)
	}
}

func TestBadChargesAreRefused(t *testing.T) {
	api := stripemock.Start(t)
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := newWorld(t, st, api)
	for _, change := range []func(*payment.Charge){
		func(c *payment.Charge) { c.Amount = 0 },
		func(c *payment.Charge) { c.Currency = "XYZ" },
		func(c *payment.Charge) { c.SuccessURL = "/stay/t" },
		func(c *payment.Charge) { c.Reference = "" },
	} {
		c := deposit()
		change(&c)
		if _, err := w.ledger.Begin(context.Background(), c); payment.ErrorCode(err) != payment.CodeInvalid {
			t.Errorf("%+v: Begin = %v, want invalid", c, err)
		}
	}
	if recs, _ := st.List(context.Background(), "payment", "", "", 10); len(recs) != 0 {
		t.Fatalf("refused charges left %d records", len(recs))
	}
}

// TestExpiredThenPaid: an expired page closes an open payment; a
// completed event for it afterwards still marks it paid, since the money
// was taken and must be accounted for; another expiry then changes
// nothing.
func TestExpiredThenPaid(t *testing.T) {
	api := stripemock.Start(t)
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		w, p := begun(t, st, api)
		expired := func(id string) payment.Outcome {
			t.Helper()
			body, sig := stripemock.Event(t, whsec, id, payment.EventCheckoutExpired, map[string]any{
				"id": p.Checkout, "object": "checkout.session", "status": "expired", "payment_status": "unpaid",
				"metadata": map[string]string{payment.MetadataPayment: p.ID},
			}, w.clock.Now())
			out, err := w.ledger.Receive(ctx, sig, body)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		if out := expired("evt_exp"); !out.Applied {
			t.Fatalf("expiry = %+v", out)
		}
		if got, _ := w.ledger.Get(ctx, p.ID); got.State != payment.StateExpired || got.URL != "" {
			t.Fatalf("expired = %+v", got)
		}
		body, sig := completed(t, w, "evt_late", p, 4000, w.clock.Now())
		if out, err := w.ledger.Receive(ctx, sig, body); err != nil || !out.Applied {
			t.Fatalf("late payment = %+v, %v", out, err)
		}
		if out := expired("evt_exp2"); out.Applied {
			t.Fatalf("expiry of a paid payment = %+v", out)
		}
		if got, _ := w.ledger.Get(ctx, p.ID); got.State != payment.StatePaid {
			t.Fatalf("paid = %+v", got)
		}
	})
}
