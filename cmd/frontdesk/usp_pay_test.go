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
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/usp"
)

// TestUSPRedirectPaymentEndToEnd: on the running server with the shuttle
// paid when booking, a platform's booking waits in requires_action; its
// continue_url hands the buyer to the provider's hosted page; the
// provider's signed event to POST /payments/stripe confirms the booking
// over USP, and the return sends the buyer back to the platform. The
// profile declares the checkout systems. On both engines.
func TestUSPRedirectPaymentEndToEnd(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkUSPRedirectPayment(t, "") })
	t.Run("postgres", func(t *testing.T) { checkUSPRedirectPayment(t, pgtest.Schema(t)) })
}

func checkUSPRedirectPayment(t *testing.T, database string) {
	provider, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_serve"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: stripemock.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, platform := startUSPDemo(t, database, func(m *Main) {
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

// TestUCPNativeCheckoutEndToEnd: the running server in UCP-native mode,
// on both engines, seen from a platform: /.well-known/ucp declares the
// checkout, the paid-bookings extension and UCP payment terms (the
// demo's studio takes a deposit) and /.well-known/usp is gone; the paid
// shuttle is refused by create_booking and booked through a checkout
// with the platform's hold. A checkout whose places lapsed reads
// incomplete and answers hold_expired, and once the platform holds the
// slot again the same checkout completes, confirming its booking (flow
// vector 101).
func TestUCPNativeCheckoutEndToEnd(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkUCPNativeCheckout(t, "") })
	t.Run("postgres", func(t *testing.T) { checkUCPNativeCheckout(t, pgtest.Schema(t)) })
}

func checkUCPNativeCheckout(t *testing.T, database string) {
	m, platform := startUSPDemo(t, database, func(m *Main) { m.Config.USP.Mode = config.USPUCPNative })
	status, _, body := send(t, "GET", m.URL+"/.well-known/ucp", nil, nil)
	for _, want := range []string{`"dev.ucp.shopping.checkout"`, `"dev.usp-protocol.services.paid_bookings"`, `"dev.ucp.common.payment.terms"`, `/ucp/v1"`} {
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("UCP profile lacks %s: %d %s", want, status, body)
		}
	}
	if status, _, _ := send(t, "GET", m.URL+"/.well-known/usp", nil, nil); status != http.StatusNotFound {
		t.Fatalf("/.well-known/usp in UCP-native mode = %d", status)
	}
	q, _ := json.Marshal(shuttleQuery14Days(1))
	_, _, body = post(t, m.URL+"/usp/availability/query", nil, string(q))
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)
	id := slot["id"].(string)
	buyer := `"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}`
	if status, _, body := post(t, m.URL+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,%s}`, id, buyer)); status != http.StatusUnprocessableEntity || !strings.Contains(body, "/ucp/v1/checkout-sessions") {
		t.Fatalf("create_booking of the paid shuttle = %d %s", status, body)
	}
	hold := func() string {
		t.Helper()
		status, _, body := post(t, m.URL+"/usp/availability/holds", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, id))
		if status != http.StatusCreated {
			t.Fatalf("hold: %d %s", status, body)
		}
		return decodeJSON(t, body)["hold"].(map[string]any)["id"].(string)
	}
	_, _, body = send(t, "GET", m.URL+"/usp/services/svc_airport_shuttle", nil, nil)
	price := decodeJSON(t, body)["service"].(map[string]any)["pricing"].(map[string]any)["amount"].(float64)
	status, _, body = post(t, m.URL+"/ucp/v1/checkout-sessions", platform, fmt.Sprintf(`{"line_items":[{"id":"li_1","item":{"id":"svc_airport_shuttle","price":%d},"quantity":1}],
		"currency":"USD",%s,"booking":{"service_id":"svc_airport_shuttle","service_type":"appointment","slot":{"id":%q},"hold_id":%q}}`, int64(price), buyer, id, hold()))
	if status != http.StatusCreated {
		t.Fatalf("create_checkout: %d %s", status, body)
	}
	co := decodeJSON(t, body)
	checkout := co["id"].(string)
	booking := co["booking"].(map[string]any)["booking_id"].(string)
	m.Clock.(*clock.Fixed).Advance(usp.PaymentWindow)
	complete := fmt.Sprintf(`{"payment":{"instruments":[{"id":"instr_1","handler_id":%q,"type":%q,"selected":true,
		"credential":{"type":%q,"status":"paid","provider":"stripe","transaction_id":"pi_e2e","amount_paid":%d,"currency":"USD"}}]}}`,
		usp.HandlerID, usp.InstrumentType, usp.InstrumentType, int64(price))
	status, _, body = post(t, m.URL+"/ucp/v1/checkout-sessions/"+checkout+"/complete", platform, complete)
	late := decodeJSON(t, body)
	if status != http.StatusOK || late["status"] != "incomplete" || !strings.Contains(body, `"hold_expired"`) || late["order"] != nil {
		t.Fatalf("completing a lapsed checkout = %d %s", status, body)
	}
	hold()
	status, _, body = post(t, m.URL+"/ucp/v1/checkout-sessions/"+checkout+"/complete", platform, complete)
	if done := decodeJSON(t, body); status != http.StatusOK || done["status"] != "completed" || done["booking"].(map[string]any)["booking_id"] != booking {
		t.Fatalf("completing with a new hold = %d %s", status, body)
	}
	status, _, body = send(t, "GET", m.URL+"/usp/bookings/"+booking, platform, nil)
	if b := decodeJSON(t, body)["booking"].(map[string]any); status != http.StatusOK || b["status"] != "confirmed" || b["payment"].(map[string]any)["transaction_id"] != "pi_e2e" {
		t.Fatalf("booking after the checkout = %d %s", status, body)
	}
}
