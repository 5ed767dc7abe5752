package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
)

// TestUSPRedirectPaymentEndToEnd: on the running server with the shuttle
// paid when booking, a platform's booking waits in requires_action; its
// continue_url hands the buyer to the provider's hosted page; the
// provider's signed event to POST /payments/stripe confirms the booking
// over USP, and the return sends the buyer back to the platform. The
// profile declares the checkout systems.
func TestUSPRedirectPaymentEndToEnd(t *testing.T) {
	provider, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_serve"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: stripemock.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, platform := startUSPDemo(t, "", func(m *Main) {
		m.Payment = provider
		for i := range m.Config.Locations {
			for j := range m.Config.Locations[i].Units {
				if u := &m.Config.Locations[i].Units[j]; u.Type == "shuttle" {
					u.Policy = business.Policy{Payment: business.PayAtBooking}
				}
			}
		}
	})
	_, _, body := send(t, "GET", m.URL+"/.well-known/usp", nil, nil)
	if !strings.Contains(body, `"checkout_systems": [`) || !strings.Contains(body, `"redirect"`) {
		t.Fatalf("profile without checkout systems: %s", body)
	}
	q, _ := json.Marshal(shuttleQuery14Days(1))
	_, _, body = post(t, m.URL+"/usp/availability/query", nil, string(q))
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, _, body := post(t, m.URL+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},
		"post_payment_return_request":{"url":"https://platform.example/return","params":{"s":"1"}}}`, slot))
	if status != http.StatusCreated {
		t.Fatalf("book: %d %s", status, body)
	}
	booking := decodeJSON(t, body)["booking"].(map[string]any)
	ref := booking["id"].(string)
	actions, _ := booking["actions"].([]any)
	if booking["status"] != "requires_action" || len(actions) != 1 {
		t.Fatalf("booking = %s", body)
	}
	cont, err := url.Parse(actions[0].(map[string]any)["continue_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(m.URL + cont.Path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "https://checkout.stripe.com/") {
		t.Fatalf("payment page = %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	p, err := m.payments.Latest(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	event, sig := stripemock.Event(t, testWebhookSecret, "evt_usp_serve", payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_usp_serve",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, m.Clock.Now())
	if status, _, body := send(t, "POST", m.URL+"/payments/stripe", map[string]string{"Stripe-Signature": sig, "Content-Type": "application/json"}, strings.NewReader(string(event))); status != http.StatusOK {
		t.Fatalf("event = %d %s", status, body)
	}
	_, _, body = send(t, "GET", m.URL+"/usp/bookings/"+ref, platform, nil)
	got := decodeJSON(t, body)["booking"].(map[string]any)
	if pay := got["payment"].(map[string]any); got["status"] != "confirmed" || pay["status"] != "paid" || pay["transaction_id"] != "pi_usp_serve" {
		t.Fatalf("after the event: %s", body)
	}
	res, err = noFollow.Get(m.URL + cont.Path + "/return?paid=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "https://platform.example/return?s=1" {
		t.Fatalf("return = %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
}
