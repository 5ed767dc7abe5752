package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
)

// newTestProvider is Stripe's provider against a fresh stripe-mock.
func newTestProvider(t *testing.T) payment.Provider {
	t.Helper()
	p, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_serve"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: stripemock.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sweepTwice runs the payment sweep twice, as a restarted server would,
// and returns the payment after it.
func sweepTwice(t *testing.T, m *Main, p payment.Payment) payment.Payment {
	t.Helper()
	for range 2 {
		if _, err := m.payments.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return reread(t, m, p)
}

// paid delivers the provider's signed event that p's page was paid.
func paid(t *testing.T, m *Main, p payment.Payment, event string) {
	t.Helper()
	body, sig := stripemock.Event(t, testWebhookSecret, event, payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_reconcile",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, m.Clock.Now())
	if out, err := m.payments.Receive(context.Background(), sig, body); err != nil || !out.Applied {
		t.Fatalf("paid event = %+v, %v", out, err)
	}
}

// TestSweepRefundsAChargeWithoutABooking: money taken for a reference no
// reservation has is left alone while its booking may still be written,
// then refunded in full, once, however often the sweep runs.
func TestSweepRefundsAChargeWithoutABooking(t *testing.T) {
	m, _, _, _ := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%"})
	ctx := context.Background()
	p, err := m.payments.Begin(ctx, payment.Charge{Reference: "RIV-NEVER", Amount: 3000, Currency: "USD", Description: "Deposit",
		SuccessURL: m.URL + "/", CancelURL: m.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	paid(t, m, p, "evt_orphan")
	if p = sweepTwice(t, m, p); len(p.Refunds) != 0 || p.Settled != nil {
		t.Fatalf("refunded inside the grace: %+v %+v", p.Settled, p.Refunds)
	}
	m.Clock.(*clock.Fixed).Advance(payment.NoBookingGrace + time.Minute)
	p = sweepTwice(t, m, p)
	if p.Settled == nil || p.Settled.Why != payment.SettledNoBooking || len(p.Refunds) != 1 || p.Refunds[0].Amount != 3000 ||
		p.Refunds[0].Reason != payment.ReasonNoBooking || p.Refunds[0].State != payment.RefundDone {
		t.Fatalf("after the grace: %+v %+v", p.Settled, p.Refunds)
	}
}

// TestSweepRefundsAPaymentAfterTheRequestEnded: a guest who withdraws
// the request and then pays on the page still open is refunded in full
// by the sweep; a late cancellation the outbox settled is not touched;
// a cancellation the outbox delivers only after the money arrived
// returns all of it too, and the sweep after it returns nothing more.
func TestSweepRefundsAPaymentAfterTheRequestEnded(t *testing.T) {
	t.Run("paid after the withdrawal", func(t *testing.T) {
		m := startPaid(t, newTestProvider(t))
		status, body := requestDouble(t, m)
		ref, link := findSent(body), stayLink.FindString(body)
		if status != http.StatusOK || ref == nil || link == "" {
			t.Fatalf("form post = %d: %s", status, body)
		}
		res, err := noRedirect.PostForm(m.URL+link+"/pay", url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		p, err := m.payments.Latest(context.Background(), ref[1])
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := postForm(t, m.URL+link+"/withdraw", url.Values{}, nil); status != http.StatusOK {
			t.Fatalf("withdraw = %d", status)
		}
		p = cancelled(t, m, p) // the cancellation finds nothing paid
		m.Clock.(*clock.Fixed).Advance(time.Minute)
		paid(t, m, p, "evt_after_withdrawal")
		if p = cancelled(t, m, p); len(p.Refunds) != 0 {
			t.Fatalf("refunded before the sweep: %+v", p.Refunds)
		}
		p = sweepTwice(t, m, p)
		if p.Settled == nil || p.Settled.Why != payment.SettledNoBooking || p.Refunded() != p.Amount || len(p.Refunds) != 1 {
			t.Fatalf("after the sweep: %+v %+v", p.Settled, p.Refunds)
		}
	})
	t.Run("paid before the outbox ran", func(t *testing.T) {
		m := startPaid(t, newTestProvider(t))
		_, body := requestDouble(t, m)
		ref, link := findSent(body), stayLink.FindString(body)
		res, err := noRedirect.PostForm(m.URL+link+"/pay", url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		p, err := m.payments.Latest(context.Background(), ref[1])
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := postForm(t, m.URL+link+"/withdraw", url.Values{}, nil); status != http.StatusOK {
			t.Fatalf("withdraw = %d", status)
		}
		m.Clock.(*clock.Fixed).Advance(time.Minute)
		paid(t, m, p, "evt_before_relay")
		p = cancelled(t, m, p)
		if p = sweepTwice(t, m, p); p.Settled == nil || p.Settled.Why != payment.SettledNoBooking || p.Refunded() != p.Amount || len(p.Refunds) != 1 {
			t.Fatalf("after the relay and sweep: %+v %+v", p.Settled, p.Refunds)
		}
	})
	t.Run("a late cancellation settled", func(t *testing.T) {
		m, ref, _, p := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20.00", FreeCancelHours: 1000, LateCancelFee: "80.00"})
		addStaff(t, m)
		olga := signIn(t, m, "olga")
		if status, _, _ := olga.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {olga.csrf}, "to": {"cancelled"}}); status != http.StatusSeeOther {
			t.Fatalf("cancel = %d", status)
		}
		p = cancelled(t, m, p)
		m.Clock.(*clock.Fixed).Advance(time.Hour)
		if p = sweepTwice(t, m, p); len(p.Refunds) != 0 || p.Settled.Why != payment.SettledCancellation {
			t.Fatalf("the sweep changed a settled late cancellation: %+v %+v", p.Settled, p.Refunds)
		}
	})
}

// TestSweepClosesAnAbandonedPage: a page left unpaid past its expiry is
// read back from the provider and closed, and the guest may pay again.
func TestSweepClosesAnAbandonedPage(t *testing.T) {
	m := startPaid(t, newTestProvider(t))
	_, body := requestDouble(t, m)
	ref, link := findSent(body), stayLink.FindString(body)
	res, err := noRedirect.PostForm(m.URL+link+"/pay", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	p, err := m.payments.Latest(context.Background(), ref[1])
	if err != nil || p.State != payment.StateOpen {
		t.Fatalf("payment = %+v, %v", p, err)
	}
	m.Clock.(*clock.Fixed).Advance(time.Hour)
	if p = sweepTwice(t, m, p); p.State != payment.StateOpen {
		t.Fatalf("closed before its expiry and grace: %s", p.State)
	}
	m.Clock.(*clock.Fixed).Advance(payment.ExpiryGrace + time.Minute)
	if p = sweepTwice(t, m, p); p.State != payment.StateExpired || p.URL != "" {
		t.Fatalf("after the expiry: %+v", p)
	}
	_, _, page := get(t, m.URL+link, "", nil)
	if !strings.Contains(page, `action="`+link+`/pay"`) {
		t.Fatalf("the guest cannot pay again: %s", page)
	}
}
