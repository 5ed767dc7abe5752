package stripe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
)

const whsec = "whsec_test_frontdesk"

func provider(t *testing.T, api string) *stripe.Provider {
	t.Helper()
	p, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_frontdesk"), WebhookSecret: payment.NewSecret(whsec), API: api})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckoutAndRefundOnStripeMock(t *testing.T) {
	p := provider(t, stripemock.Start(t))
	ctx := context.Background()
	co, err := p.CreateCheckout(ctx, payment.CheckoutRequest{
		Amount: 4000, Currency: "USD", Description: "Deposit for APS-1001",
		SuccessURL: "https://sample.example/stay/x?paid=1", CancelURL: "https://sample.example/stay/x",
		ExpiresAt:      time.Now().Add(time.Hour),
		Metadata:       map[string]string{payment.MetadataPayment: "pay_1", "reference": "APS-1001"},
		IdempotencyKey: "pay_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if co.ID == "" {
		t.Fatalf("checkout = %+v, want an id", co)
	}
	got, err := p.Checkout(ctx, co.ID)
	if err != nil || got.ID == "" {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	r, err := p.Refund(ctx, payment.RefundRequest{Payment: "pi_123", Amount: 1500, IdempotencyKey: "pay_1_r1"})
	if err != nil || r.ID == "" {
		t.Fatalf("refund = %+v, %v", r, err)
	}
}

// TestProviderErrorsAreUnavailable: an API that does not answer is
// CodeUnavailable, and the error names no key.
func TestProviderErrorsAreUnavailable(t *testing.T) {
	p := provider(t, "http://127.0.0.1:1")
	_, err := p.CreateCheckout(context.Background(), payment.CheckoutRequest{Amount: 100, Currency: "USD", Description: "x", SuccessURL: "https://a.example/", CancelURL: "https://a.example/"})
	if payment.ErrorCode(err) != payment.CodeUnavailable {
		t.Fatalf("error = %v, want unavailable", err)
	}
	if s := err.Error(); strings.Contains(s, "sk_test_frontdesk") {
		t.Fatalf("error %q carries the key", s)
	}
}

func session(id string) map[string]any {
	return map[string]any{
		"id": id, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": 4000, "currency": "usd", "payment_intent": "pi_123",
		"metadata": map[string]string{payment.MetadataPayment: "pay_1"},
	}
}

func TestVerify(t *testing.T) {
	p := provider(t, "http://127.0.0.1:1")
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	body, sig := stripemock.Event(t, whsec, "evt_1", payment.EventCheckoutCompleted, session("cs_1"), now.Add(-time.Minute))
	ev, err := p.Verify(sig, body, now)
	if err != nil {
		t.Fatal(err)
	}
	want := payment.Checkout{ID: "cs_1", Status: "complete", Paid: true, Payment: "pi_123", Amount: 4000, Currency: "USD", Metadata: map[string]string{payment.MetadataPayment: "pay_1"}}
	if ev.ID != "evt_1" || ev.Type != payment.EventCheckoutCompleted || ev.Checkout.ID != want.ID || ev.Checkout.Paid != want.Paid ||
		ev.Checkout.Payment != want.Payment || ev.Checkout.Amount != want.Amount || ev.Checkout.Currency != want.Currency || ev.Checkout.Metadata[payment.MetadataPayment] != "pay_1" {
		t.Fatalf("event = %+v, want checkout %+v", ev, want)
	}

	tampered := append([]byte{}, body...)
	tampered[len(tampered)-2] = ' '
	for _, tc := range []struct {
		name string
		sig  string
		body []byte
		want payment.Code
	}{
		{"other secret", stripemock.Sign(body, "whsec_other", now), body, payment.CodeForged},
		{"changed body", sig, tampered, payment.CodeForged},
		{"no signature", "", body, payment.CodeForged},
		{"signed six minutes ago", stripemock.Sign(body, whsec, now.Add(-6*time.Minute)), body, payment.CodeStale},
		{"signed six minutes ahead", stripemock.Sign(body, whsec, now.Add(6*time.Minute)), body, payment.CodeStale},
	} {
		if _, err := p.Verify(tc.sig, tc.body, now); payment.ErrorCode(err) != tc.want {
			t.Errorf("%s: Verify = %v, want %s", tc.name, err, tc.want)
		}
	}
}

func TestNewNeedsBothSecrets(t *testing.T) {
	if _, err := stripe.New(stripe.Options{WebhookSecret: payment.NewSecret(whsec)}); err == nil {
		t.Error("New accepted no API key")
	}
	if _, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_x")}); err == nil {
		t.Error("New accepted no webhook secret")
	}
}

// TestMockWithoutAKey: FRONTDESK_STRIPE_MOCK alone (with the webhook
// secret) reaches stripe-mock, which accepts the key sent in place of
// the missing one.
func TestMockWithoutAKey(t *testing.T) {
	api := stripemock.Start(t)
	p, err := stripe.FromEnv(func(k string) string {
		return map[string]string{stripe.EnvMock: strings.TrimPrefix(api, "http://"), stripe.EnvWebhookSecret: "whsec_mock"}[k]
	})
	if err != nil || p == nil {
		t.Fatalf("FromEnv = %v, %v", p, err)
	}
	co, err := p.CreateCheckout(context.Background(), payment.CheckoutRequest{Amount: 2380, Currency: "USD", Description: "Deposit",
		SuccessURL: "http://127.0.0.1/stay/t?paid=1", CancelURL: "http://127.0.0.1/stay/t", IdempotencyKey: "pay_mock"})
	if err != nil || co.ID == "" || co.URL == "" {
		t.Fatalf("checkout = %+v, %v", co, err)
	}
}
