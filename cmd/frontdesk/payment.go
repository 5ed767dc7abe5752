package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"frontdesk/payment"
	"frontdesk/payment/stripe"
)

// The payment provider's settings, read from the environment (each
// secret also from the file its _FILE variable names), never from the
// config file and never logged.
const (
	envStripeKey     = "FRONTDESK_STRIPE_KEY"
	envStripeWebhook = "FRONTDESK_STRIPE_WEBHOOK_SECRET"
	// envStripeMock names a stripe-mock's address, such as
	// 127.0.0.1:12111, for the demo: the provider talks to it instead of
	// Stripe, with a test key.
	envStripeMock = "FRONTDESK_STRIPE_MOCK"
)

// paymentMissing is the refusal of a paid booking without a provider.
const paymentMissing = "Paying online is not set up here: the setting " + envStripeKey + " is missing, so this room cannot be booked on the site."

// stripeFromEnv builds the Stripe provider the environment configures,
// or nil when it configures none.
func stripeFromEnv(getenv func(string) string) (payment.Provider, error) {
	key, err := payment.ReadSecret(getenv, envStripeKey)
	if err != nil {
		return nil, err
	}
	hook, err := payment.ReadSecret(getenv, envStripeWebhook)
	if err != nil {
		return nil, err
	}
	mock := strings.TrimSpace(getenv(envStripeMock))
	if !key.Set() && mock == "" {
		if hook.Set() {
			return nil, fmt.Errorf("%s is set without %s (or %s)", envStripeWebhook, envStripeKey, envStripeMock)
		}
		return nil, nil
	}
	if !hook.Set() {
		with := envStripeKey
		if !key.Set() {
			with = envStripeMock
		}
		return nil, fmt.Errorf("%s (or %s_FILE) is required with %s: it verifies the provider's events", envStripeWebhook, envStripeWebhook, with)
	}
	o := stripe.Options{Key: key, WebhookSecret: hook}
	if mock != "" {
		if strings.HasPrefix(key.Reveal(), "sk_live_") || strings.HasPrefix(key.Reveal(), "rk_live_") {
			return nil, fmt.Errorf("%s is for test keys; a live %s would be sent to %s", envStripeMock, envStripeKey, mock)
		}
		if !key.Set() {
			o.Key = payment.NewSecret("sk_test_stripe_mock")
		}
		o.API = mock
		if !strings.Contains(mock, "://") {
			o.API = "http://" + mock
		}
	}
	p, err := stripe.New(o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return p, nil
}

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
