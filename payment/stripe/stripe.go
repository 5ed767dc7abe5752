// Package stripe is the payment provider on Stripe: hosted Checkout
// Sessions, refunds of their payment intents, and webhook events checked
// by Stripe's signature scheme (a Stripe-Signature header of t=…,v1=…)
// within a replay window of the caller's clock. Options.API points it at
// a stripe-mock for tests and the demo.
//
// It is an adapter: it implements payment.Provider with
// github.com/stripe/stripe-go and imports only payment of this module.
package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	stripego "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"frontdesk/payment"
)

// DefaultTolerance is the replay window of a webhook event: its
// signature's timestamp must be this close to now.
const DefaultTolerance = 5 * time.Minute

// Options configure the provider.
type Options struct {
	Key           payment.Secret // the secret API key
	WebhookSecret payment.Secret // the endpoint's signing secret (whsec_…)
	// API is the API's base URL; empty is Stripe's. A stripe-mock is
	// "http://127.0.0.1:12111".
	API        string
	Tolerance  time.Duration // 0: DefaultTolerance
	HTTPClient *http.Client  // nil: a client with a 30-second timeout
}

// Provider is payment.Provider on Stripe.
type Provider struct {
	client    *stripego.Client
	webhook   payment.Secret
	tolerance time.Duration
}

var _ payment.Provider = (*Provider)(nil)

// New returns the provider. It needs the API key and the webhook secret.
func New(o Options) (*Provider, error) {
	if !o.Key.Set() {
		return nil, errors.New("stripe: the API key is not set")
	}
	if !o.WebhookSecret.Set() {
		return nil, errors.New("stripe: the webhook signing secret is not set")
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	cfg := &stripego.BackendConfig{
		HTTPClient: hc,
		// The library logs nothing: its lines could carry request
		// details, and errors come back to the caller anyway.
		LeveledLogger:   &stripego.LeveledLogger{Level: stripego.LevelNull},
		EnableTelemetry: stripego.Bool(false),
	}
	if o.API != "" {
		cfg.URL = stripego.String(strings.TrimRight(o.API, "/"))
	}
	tol := o.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	return &Provider{
		client:    stripego.NewClient(o.Key.Reveal(), stripego.WithBackends(stripego.NewBackendsWithConfig(cfg))),
		webhook:   o.WebhookSecret,
		tolerance: tol,
	}, nil
}

// Name is "stripe".
func (p *Provider) Name() string { return "stripe" }

// CreateCheckout creates a Checkout Session in payment mode with one
// line item of the amount; the metadata is set on the session and on
// its payment intent.
func (p *Provider) CreateCheckout(ctx context.Context, in payment.CheckoutRequest) (payment.Checkout, error) {
	params := &stripego.CheckoutSessionCreateParams{
		Mode:       stripego.String(string(stripego.CheckoutSessionModePayment)),
		SuccessURL: stripego.String(in.SuccessURL),
		CancelURL:  stripego.String(in.CancelURL),
		LineItems: []*stripego.CheckoutSessionCreateLineItemParams{{
			Quantity: stripego.Int64(1),
			PriceData: &stripego.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripego.String(strings.ToLower(in.Currency)),
				UnitAmount:  stripego.Int64(in.Amount),
				ProductData: &stripego.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripego.String(in.Description)},
			},
		}},
		Metadata:          in.Metadata,
		ClientReferenceID: stripego.String(in.Metadata[payment.MetadataPayment]),
		PaymentIntentData: &stripego.CheckoutSessionCreatePaymentIntentDataParams{Metadata: in.Metadata},
	}
	if !in.ExpiresAt.IsZero() {
		params.ExpiresAt = stripego.Int64(in.ExpiresAt.Unix())
	}
	if in.IdempotencyKey != "" {
		params.SetIdempotencyKey(in.IdempotencyKey)
	}
	s, err := p.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return payment.Checkout{}, wrap("create checkout session", err)
	}
	return checkoutOf(s), nil
}

// Checkout retrieves a Checkout Session.
func (p *Provider) Checkout(ctx context.Context, id string) (payment.Checkout, error) {
	s, err := p.client.V1CheckoutSessions.Retrieve(ctx, id, nil)
	if err != nil {
		return payment.Checkout{}, wrap("retrieve checkout session", err)
	}
	return checkoutOf(s), nil
}

// Refund refunds part or all of a payment intent.
func (p *Provider) Refund(ctx context.Context, in payment.RefundRequest) (payment.Refund, error) {
	params := &stripego.RefundCreateParams{
		PaymentIntent: stripego.String(in.Payment),
		Amount:        stripego.Int64(in.Amount),
		Metadata:      in.Metadata,
	}
	if in.IdempotencyKey != "" {
		params.SetIdempotencyKey(in.IdempotencyKey)
	}
	r, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return payment.Refund{}, wrap("create refund", err)
	}
	return payment.Refund{ID: r.ID, Amount: r.Amount, Status: string(r.Status)}, nil
}

// Verify checks the Stripe-Signature header over body with the webhook
// secret, then that its timestamp is within the replay window of now,
// and reads the event. The library checks the signature; the window is
// checked here, against the caller's clock.
func (p *Provider) Verify(signature string, body []byte, now time.Time) (payment.Event, error) {
	if err := webhook.ValidatePayloadIgnoringTolerance(body, signature, p.webhook.Reveal()); err != nil {
		return payment.Event{}, &payment.Error{Code: payment.CodeForged, Message: "The event's signature does not verify.", Err: err}
	}
	signed, ok := signedAt(signature)
	if d := now.Sub(signed); !ok || d > p.tolerance || d < -p.tolerance {
		return payment.Event{}, &payment.Error{Code: payment.CodeStale, Message: "The event was signed outside the replay window of " + p.tolerance.String() + "."}
	}
	var ev stripego.Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.Data == nil {
		return payment.Event{}, &payment.Error{Code: payment.CodeInvalid, Message: "The event is not a Stripe event.", Err: err}
	}
	out := payment.Event{ID: ev.ID, Type: string(ev.Type), Created: time.Unix(ev.Created, 0).UTC()}
	if strings.HasPrefix(out.Type, "checkout.session.") {
		var s stripego.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &s); err != nil {
			return payment.Event{}, &payment.Error{Code: payment.CodeInvalid, Message: "The event's checkout session cannot be read.", Err: err}
		}
		out.Checkout = checkoutOf(&s)
	}
	return out, nil
}

// signedAt reads the t= timestamp of a signature header that already
// verified.
func signedAt(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			sec, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(sec, 0), err == nil
		}
	}
	return time.Time{}, false
}

func checkoutOf(s *stripego.CheckoutSession) payment.Checkout {
	c := payment.Checkout{
		ID: s.ID, URL: s.URL, Status: string(s.Status), Paid: s.PaymentStatus == stripego.CheckoutSessionPaymentStatusPaid,
		Amount: s.AmountTotal, Currency: strings.ToUpper(string(s.Currency)), Metadata: s.Metadata,
	}
	if s.PaymentIntent != nil {
		c.Payment = s.PaymentIntent.ID
	}
	return c
}

// wrap makes a provider error a payment.Error the caller can word. An
// API error keeps its type, code, status, parameter name and request id
// for the log, not its message, which may quote what was sent (a return
// address carries a guest's page token).
func wrap(op string, err error) error {
	cause := err
	if se, ok := errors.AsType[*stripego.Error](err); ok {
		cause = fmt.Errorf("%s %s (HTTP %d, param %q, request %s)", se.Type, se.Code, se.HTTPStatusCode, se.Param, se.RequestID)
	}
	return &payment.Error{Code: payment.CodeUnavailable, Message: "The payment provider did not accept the request.", Err: fmt.Errorf("stripe %s: %w", op, cause)}
}
