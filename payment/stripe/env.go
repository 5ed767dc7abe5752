package stripe

import (
	"fmt"
	"strings"

	"frontdesk/payment"
)

// The payment provider's settings, read from the environment (each
// secret also from the file its _FILE variable names), never from the
// config file and never logged.
const (
	EnvKey           = "FRONTDESK_STRIPE_KEY"
	EnvWebhookSecret = "FRONTDESK_STRIPE_WEBHOOK_SECRET"
	// EnvMock names a stripe-mock's address, such as
	// 127.0.0.1:12111, for the demo: the provider talks to it instead of
	// Stripe, with a test key.
	EnvMock = "FRONTDESK_STRIPE_MOCK"
)

// MockKey is the test key sent to stripe-mock when no key is set.
const MockKey = "sk_test_stripemock"

// Missing is the refusal of a paid booking without a provider.
const Missing = "Paying online is not set up here: the setting " + EnvKey + " is missing, so this room cannot be booked on the site."

// FromEnv builds the Stripe provider the environment configures,
// or nil when it configures none.
func FromEnv(getenv func(string) string) (payment.Provider, error) {
	key, err := payment.ReadSecret(getenv, EnvKey)
	if err != nil {
		return nil, err
	}
	hook, err := payment.ReadSecret(getenv, EnvWebhookSecret)
	if err != nil {
		return nil, err
	}
	mock := strings.TrimSpace(getenv(EnvMock))
	if !key.Set() && mock == "" {
		if hook.Set() {
			return nil, fmt.Errorf("%s is set without %s (or %s)", EnvWebhookSecret, EnvKey, EnvMock)
		}
		return nil, nil
	}
	if !hook.Set() {
		with := EnvKey
		if !key.Set() {
			with = EnvMock
		}
		return nil, fmt.Errorf("%s (or %s_FILE) is required with %s: it verifies the provider's events", EnvWebhookSecret, EnvWebhookSecret, with)
	}
	o := Options{Key: key, WebhookSecret: hook}
	if mock != "" {
		if strings.HasPrefix(key.Reveal(), "sk_live_") || strings.HasPrefix(key.Reveal(), "rk_live_") {
			return nil, fmt.Errorf("%s is for test keys; a live %s would be sent to %s", EnvMock, EnvKey, mock)
		}
		if !key.Set() {
			// stripe-mock refuses a key that is not three parts joined
			// by underscores.
			o.Key = payment.NewSecret(MockKey)
		}
		o.API = mock
		if !strings.Contains(mock, "://") {
			o.API = "http://" + mock
		}
	}
	p, err := New(o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return p, nil
}
