package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
)

const testWebhookSecret = "whsec_test_frontdesk_serve"

// depositOnDoubles is the demo with a 20% deposit on Riverside's doubles.
func depositOnDoubles(c *config.Config) {
	for i := range c.Locations {
		if c.Locations[i].Slug != "riverside" {
			continue
		}
		for j := range c.Locations[i].Units {
			if c.Locations[i].Units[j].Type == "double" {
				c.Locations[i].Units[j].Policy = business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "50.00"}
			}
		}
	}
}

// startPaid runs the demo with depositOnDoubles and provider (nil: none
// configured).
func startPaid(t *testing.T, provider payment.Provider) *Main {
	t.Helper()
	c := config.Demo()
	depositOnDoubles(&c)
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{}), Payment: provider}
	runMain(t, m)
	return m
}

func requestDouble(t *testing.T, m *Main) (int, string) {
	t.Helper()
	form := url.Values{
		"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
	}
	return postForm(t, m.URL+"/book/riverside", form, nil)
}

// TestGuestPaysADeposit: a request for a unit that takes a deposit shows
// the amount due now and at the property and hands the guest to the
// provider's hosted page (stripe-mock's); the guest's return alone
// records nothing; the provider's signed checkout.session.completed
// marks it paid, once: a replay, a forged and a stale event change
// nothing.
func TestGuestPaysADeposit(t *testing.T) {
	provider, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_serve"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: stripemock.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := startPaid(t, provider)
	status, body := requestDouble(t, m)
	ref, link := findSent(body), stayLink.FindString(body)
	if status != http.StatusOK || ref == nil || link == "" {
		t.Fatalf("form post = %d: %s", status, body)
	}
	for _, want := range []string{`<dt>Deposit due now</dt><dd id="due-now">$`, `<dt>Due at the property</dt><dd id="due-later">$`, `action="` + link + `/pay"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the stay page lacks %q: %s", want, body)
		}
	}
	if !strings.Contains(body, "Nothing is charged unless you pay below.") {
		t.Fatal("the next steps do not say when the deposit is charged")
	}
	if strings.Contains(body, "paid at the property</dd>") {
		t.Fatal("the total still says it is all paid at the property")
	}

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	pay := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, m.URL+link+"/pay", strings.NewReader(""))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("pay = %d", res.StatusCode)
		}
		return res.Header.Get("Location")
	}
	hosted := pay()
	if !strings.HasPrefix(hosted, "https://checkout.stripe.com/") {
		t.Fatalf("pay redirects to %q, want the provider's hosted page", hosted)
	}
	if again := pay(); again != hosted {
		t.Fatalf("a second click opened another page: %q, then %q", hosted, again)
	}
	ctx := context.Background()
	p, err := m.payments.Latest(ctx, ref[1])
	if err != nil {
		t.Fatal(err)
	}
	view, err := m.office.StaffView(ctx, ref[1], func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if want := (business.Terms{Timing: business.PayDeposit, DepositKind: business.DepositPercent, DepositValue: 20}).DueNow(view.Total); p.Amount != want || p.State != payment.StateOpen {
		t.Fatalf("payment = %+v, want %d open (20%% of %d)", p, want, view.Total)
	}

	// The provider's return, straight to the return URL, records nothing.
	_, _, body = get(t, m.URL+link+"?paid=1", "", nil)
	if !strings.Contains(body, `id="pay-result"`) || !strings.Contains(body, `id="pay-now"`) {
		t.Fatalf("the page after the return: %s", body)
	}

	event, sig := stripemock.Event(t, testWebhookSecret, "evt_serve_1", payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_serve",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, m.Clock.Now())
	deliver := func(signature string) (int, payment.Outcome) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, m.URL+"/payments/stripe", strings.NewReader(string(event)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Stripe-Signature", signature)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out payment.Outcome
		_ = json.NewDecoder(res.Body).Decode(&out) // an error answer decodes to the zero Outcome
		return res.StatusCode, out
	}
	if status, _ := deliver(stripemock.Sign(event, "whsec_forged", m.Clock.Now())); status != http.StatusBadRequest {
		t.Fatalf("forged event = %d", status)
	}
	if status, _ := deliver(stripemock.Sign(event, testWebhookSecret, m.Clock.Now().Add(-10*time.Minute))); status != http.StatusBadRequest {
		t.Fatalf("stale event = %d", status)
	}
	if p, _ := m.payments.Latest(ctx, ref[1]); p.State != payment.StateOpen {
		t.Fatalf("a refused event changed the payment: %+v", p)
	}
	if status, out := deliver(sig); status != http.StatusOK || !out.Applied {
		t.Fatalf("event = %d %+v", status, out)
	}
	if status, out := deliver(sig); status != http.StatusOK || out.Applied {
		t.Fatalf("replayed event = %d %+v", status, out)
	}
	_, _, body = get(t, m.URL+link, "", nil)
	if !strings.Contains(body, `<dd id="due-now">`+paidAmount(body)+`, paid</dd>`) || strings.Contains(body, `id="pay-now"`) {
		t.Fatalf("the paid stay's page: %s", body)
	}
}

// paidAmount is the figure the page shows as due now.
func paidAmount(page string) string {
	_, after, _ := strings.Cut(page, `<dd id="due-now">`)
	amount, _, _ := strings.Cut(after, ",")
	amount, _, _ = strings.Cut(amount, "<")
	return amount
}

// TestPaidRequestWithoutProvider: with no provider configured, a request
// for a unit that takes a deposit is refused with the sentence naming the
// missing setting, and nothing is saved; other units book as before.
func TestPaidRequestWithoutProvider(t *testing.T) {
	m := startPaid(t, nil)
	status, body := requestDouble(t, m)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "the setting FRONTDESK_STRIPE_KEY is missing") || findSent(body) != nil {
		t.Fatalf("form post = %d: %s", status, body)
	}
	res, err := http.Post(m.URL+"/payments/stripe", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("events without a provider = %d, want 404", res.StatusCode)
	}
}
