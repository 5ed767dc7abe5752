package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/payment"
)

// demoWith runs the built-in demo with provider (nil: none configured).
func demoWith(t *testing.T, provider payment.Provider) *Main {
	t.Helper()
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{}), Payment: provider}
	runMain(t, m)
	return m
}

// requestAirport files a booking-form request for a week of the airport's
// roomtype and returns the answer.
func requestAirport(t *testing.T, m *Main, roomtype string) (int, string) {
	t.Helper()
	form := url.Values{
		"roomtype": {roomtype}, "checkin": {"2027-01-04"}, "checkout": {"2027-01-11"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/airport")},
	}
	return postForm(t, m.URL+"/book/airport", form, nil)
}

// TestDemoStudioTakesADeposit: the demo's airport studio takes a 30%
// deposit: without a provider its request is refused with the sentence
// naming the missing setting while the airport double books as before;
// with one, the guest's page asks for the deposit.
func TestDemoStudioTakesADeposit(t *testing.T) {
	t.Run("no provider", func(t *testing.T) {
		m := demoWith(t, nil)
		status, body := requestAirport(t, m, "studio")
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, "the setting FRONTDESK_STRIPE_KEY is missing") || strings.Contains(body, `id="reference"`) {
			t.Fatalf("studio request = %d: %s", status, body)
		}
		if status, body := requestAirport(t, m, "double"); status != http.StatusOK || !strings.Contains(body, `<dd id="reference" class="ref">APS-`) {
			t.Fatalf("double request = %d: %s", status, body)
		}
	})
	t.Run("stripe-mock", func(t *testing.T) {
		m := demoWith(t, newTestProvider(t))
		status, body := requestAirport(t, m, "studio")
		if status != http.StatusOK || !strings.Contains(body, `<dd id="reference" class="ref">APS-`) {
			t.Fatalf("studio request = %d: %s", status, body)
		}
		// A week is $595.00 and its tax; 30% of it is due now.
		if !strings.Contains(body, `<dt>Deposit due now</dt><dd id="due-now">$`) || !strings.Contains(body, `<dt>Due at the property</dt>`) {
			t.Fatalf("the studio's page asks for no deposit: %s", body)
		}
	})
}
