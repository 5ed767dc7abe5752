package usp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/usphttp"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

const payWhsec = "whsec_test_usp_payments"

// payConfig is the demo with paid timed services at the airport: the
// shuttle paid in full when booking (free to cancel until 24 hours
// before, then a 10.00 fee), an auto "install" slot with a fixed 10.00
// deposit on a 100.00 price, and a manual "consult" slot with a 20%
// deposit on 200.00 (free until 48 hours before, then 30.00).
func payConfig() config.Config {
	cfg := usptest.WithPlatform(config.Demo())
	locs := append([]business.Location(nil), cfg.Locations...)
	for i := range locs {
		if locs[i].Slug != "airport" {
			continue
		}
		units := append([]business.Unit(nil), locs[i].Units...)
		for j := range units {
			if units[j].Type != "shuttle" {
				continue
			}
			units[j].Policy = business.Policy{Payment: business.PayAtBooking, FreeCancelHours: 24, LateCancelFee: "10.00"}
			install, consult := units[j], units[j]
			install.Type, install.Name, install.Price = "install", "Install visit", "100.00"
			install.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "10.00"}
			consult.Type, consult.Name, consult.Price = "consult", "Consultation", "200.00"
			consult.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "30.00"}
			consult.ConfirmationMode = business.ConfirmManual
			units = append(units, install, consult)
			break
		}
		locs[i].Units = units
	}
	cfg.Locations = locs
	return cfg
}

// payWorld is a business with paid services, its payment ledger on
// stripe-mock, and the REST binding with the payment pages on loopback.
type payWorld struct {
	*bench
	ledger *payment.Ledger
	api    string // stripe-mock
	srv    *httptest.Server
	client *http.Client
}

func newPayWorld(t *testing.T, st store.Store, api string) *payWorld {
	t.Helper()
	return newPayWorldIn(t, st, api, "")
}

// noProvider is the refusal of a ledger without a payment provider.
const noProvider = "Paid bookings need a payment provider: set payment.stripe_key."

// newPayWorldIn is a payWorld in the USP mode mode; without api (no
// stripe-mock), its ledger has no provider.
func newPayWorldIn(t *testing.T, st store.Store, api, mode string) *payWorld {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	clk := clock.NewFixed(usptest.Now)
	ledger := payment.NewLedger(payment.Options{Records: st, Missing: noProvider, Clock: clk, Rand: random.Seeded([32]byte{9})})
	if api != "" {
		ledger = payLedger(t, st, api, clk)
	}
	biz := usptest.On(t, payConfig(), st, clk, plat, nil, "", func(o *usp.Options) {
		o.Payments, o.Rand, o.Config.Mode = ledger, random.Seeded([32]byte{3}), mode
	})
	core := biz.Bookings.Core()
	ledger.AttachCancellations(core.Desk(), payConfig().Portfolio.Unit, "USD")
	mux := http.NewServeMux()
	for _, r := range (&usphttp.Handler{Business: biz.Business}).Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &payWorld{bench: &bench{Business: biz, plat: plat, call: platformCall(plat)}, ledger: ledger, api: api, srv: srv, client: client}
}

// payLedger is a payment ledger on st through stripe-mock at api.
func payLedger(t *testing.T, st store.Store, api string, clk clock.Clock) *payment.Ledger {
	t.Helper()
	prov, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_usp"), WebhookSecret: payment.NewSecret(payWhsec), API: api})
	if err != nil {
		t.Fatal(err)
	}
	return payment.NewLedger(payment.Options{Records: st, Provider: prov, Clock: clk, Rand: random.Seeded([32]byte{9})})
}

// onEngines runs f on a fresh world of each engine, sharing stripe-mock.
func onEngines(t *testing.T, f func(t *testing.T, w *payWorld)) {
	api := stripemock.Start(t)
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			st := engine(t)()
			t.Cleanup(func() { st.Close() })
			f(t, newPayWorld(t, st, api))
		})
	}
}

// book creates a booking of service's first slot on day.
func (w *payWorld) book(t *testing.T, service, day string, ret *usp.PostPaymentReturnRequest) *usp.Booking {
	t.Helper()
	s := w.slot(t, service, day)
	res, err := w.CreateBooking(context.Background(), w.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada, PostPaymentReturnRequest: ret})
	if err != nil || res.Booking == nil {
		t.Fatalf("create: %+v, %v", res, err)
	}
	return res.Booking
}

func (w *payWorld) get(t *testing.T, id string) *usp.Booking {
	t.Helper()
	res, err := w.GetBooking(context.Background(), w.call, id)
	if err != nil {
		t.Fatal(err)
	}
	return res.Booking
}

// open is a GET of a path of the business's own pages, not followed.
func (w *payWorld) open(t *testing.T, path string) *http.Response {
	t.Helper()
	res, err := w.client.Get(w.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// pay delivers the provider's signed event that the latest payment of
// booking id was paid, through ledger.
func (w *payWorld) pay(t *testing.T, ledger *payment.Ledger, event, id string) payment.Outcome {
	t.Helper()
	ctx := context.Background()
	p, err := w.ledger.Latest(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	body, sig := stripemock.Event(t, payWhsec, event, payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_" + event,
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, w.Clock.Now())
	out, err := ledger.Receive(ctx, sig, body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// webhook is the data of the booking event typ queued for booking id,
// as the platform receives it.
func (w *payWorld) webhook(t *testing.T, id, typ string) usp.Booking {
	t.Helper()
	ctx := context.Background()
	recs, err := w.Store.List(ctx, webhook.Kind, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		var e webhook.Event
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			t.Fatal(err)
		}
		if e.Reference != id || e.Type != typ {
			continue
		}
		body, err := w.EventBody(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Data usp.Booking `json:"data"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Data
	}
	t.Fatalf("no %s webhook for %s", typ, id)
	return usp.Booking{}
}

func continuePath(t *testing.T, b *usp.Booking) string {
	t.Helper()
	if len(b.Actions) != 1 {
		t.Fatalf("actions = %+v, want the payment action", b.Actions)
	}
	u, err := url.Parse(b.Actions[0].ContinueURL)
	if err != nil || u.Scheme != "https" || u.Host != "stays.example" || u.RawQuery != "" {
		t.Fatalf("continue_url = %q: want an https page of the business with no query", b.Actions[0].ContinueURL)
	}
	return u.Path
}

// A booking of a service paid when booking waits in requires_action with
// its payment action (§8.5, §5.1.1), holding its slot; staff cannot
// confirm it. The buyer pays on the business-hosted page, which hands
// them to the provider; the provider's signed event confirms the
// booking, and the return sends the buyer back to the platform.
func TestRedirectPaymentConfirmsTheBooking(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		ret := &usp.PostPaymentReturnRequest{URL: "https://platform.example/booking/return", Params: map[string]string{"session_id": "plat-sess-abc123"}}
		b := w.book(t, "svc_airport_shuttle", "2026-03-02", ret)
		check(t, "Booking", b)
		deadline := usptest.Now.Add(usp.PaymentWindow)
		if b.Status != "requires_action" || b.ExpiresAt == "" || !mustTime(t, b.ExpiresAt).Equal(deadline) {
			t.Fatalf("booking = %s until %s, want requires_action until %s", b.Status, b.ExpiresAt, deadline)
		}
		if p := b.Payment; p == nil || p.Status != "pending" || p.Timing != "at_booking" || p.Amount != 2500 || p.AmountDue != 2500 || p.Currency != "USD" {
			t.Fatalf("payment = %+v", b.Payment)
		}
		a := b.Actions[0]
		pc := a.PaymentContext
		if a.Type != "payment" || a.Status != "pending" || !mustTime(t, a.ExpiresAt).Equal(deadline) || pc == nil || pc.AmountDue != 2500 || pc.Currency != "USD" ||
			pc.Metadata["booking_id"] != b.ID || pc.Metadata["service_id"] != "svc_airport_shuttle" || len(pc.LineItems) != 1 || pc.LineItems[0].Amount != 2500 {
			t.Fatalf("action = %+v, context %+v", a, pc)
		}
		if got := w.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID == b.Slot.ID {
			t.Fatal("the slot of a booking waiting for its payment is offered again")
		}
		conf, err := w.ConfirmBooking(ctx, w.staff(), b.ID)
		if err != nil || outcome(t, conf.Messages) != "invalid_transition" || conf.Booking.Status != "requires_action" {
			t.Fatalf("staff confirm of requires_action = %+v, %v", conf, err)
		}

		page := continuePath(t, b)
		res := w.open(t, page)
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "https://") {
			t.Fatalf("payment page = %d to %q, want 303 to the provider", res.StatusCode, res.Header.Get("Location"))
		}
		p, err := w.ledger.Latest(ctx, b.ID)
		if err != nil || p.Amount != 2500 || p.State != payment.StateOpen {
			t.Fatalf("payment = %+v, %v", p, err)
		}
		// The page again reuses the open checkout.
		if again := w.open(t, page); again.Header.Get("Location") != res.Header.Get("Location") {
			t.Fatal("a second visit opened another checkout")
		}
		back := w.open(t, page+"/return?paid=1")
		if got, want := back.Header.Get("Location"), "https://platform.example/booking/return?session_id=plat-sess-abc123"; back.StatusCode != http.StatusSeeOther || got != want {
			t.Fatalf("return = %d to %q, want 303 to %q", back.StatusCode, got, want)
		}
		if got := w.get(t, b.ID); got.Status != "requires_action" {
			t.Fatalf("the buyer's return confirmed the booking (%s); only the provider's event does", got.Status)
		}

		if out := w.pay(t, w.ledger, "evt_shuttle", b.ID); !out.Applied {
			t.Fatalf("event = %+v", out)
		}
		got := w.get(t, b.ID)
		check(t, "Booking", got)
		if got.Status != "confirmed" || got.Payment.Status != "paid" || got.Payment.AmountDue != 0 || got.Payment.TransactionID != "pi_evt_shuttle" || len(got.Actions) != 0 || got.ExpiresAt != "" {
			t.Fatalf("paid booking = %s, payment %+v, actions %v, expires %q", got.Status, got.Payment, got.Actions, got.ExpiresAt)
		}
		if out := w.pay(t, w.ledger, "evt_shuttle", b.ID); out.Applied {
			t.Fatal("a replayed event was applied again")
		}
		// Confirm-payment on a booking paid through the page is not a
		// second payment.
		cp, err := w.ConfirmPayment(ctx, w.call, b.ID, usp.ConfirmPaymentRequest{PaymentResult: &usp.PaymentResult{Status: "paid", TransactionID: "txn_other", AmountPaid: []byte("2500"), Currency: "USD"}})
		if err != nil || outcome(t, cp.Messages) != "invalid_transition" || cp.Booking.Status != "confirmed" {
			t.Fatalf("confirm-payment after the page = %+v, %v", cp, err)
		}
		// The page of a paid booking sends the buyer back.
		if res := w.open(t, page); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "https://platform.example/") {
			t.Fatalf("page of a paid booking = %d %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
}

// The embedded and ACP paths (§8.5.3, §8.5.6): the platform's checkout
// takes the deposit and reports it with confirm-payment. A wrong amount
// is payment_amount_mismatch and changes nothing; the right one confirms
// an auto booking and leaves a manual one pending for staff. A repeat
// answers the booking unchanged.
func TestConfirmPaymentRecordsThePlatformsPayment(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_install", "2026-03-03", nil)
		if p := b.Payment; b.Status != "requires_action" || p.Timing != "deposit_required" || p.Amount != 10000 || p.AmountDue != 1000 || p.DepositAmount != 1000 {
			t.Fatalf("fixed deposit booking = %s, %+v", b.Status, b.Payment)
		}
		wrong := &usp.PaymentResult{Status: "deposit_paid", TransactionID: "txn_1", AmountPaid: []byte("10000"), Currency: "USD"}
		res, err := w.ConfirmPayment(ctx, w.call, b.ID, usp.ConfirmPaymentRequest{PaymentResult: wrong})
		if err != nil || outcome(t, res.Messages) != "payment_amount_mismatch" || res.Booking.Status != "requires_action" || res.Booking.Revision != b.Revision {
			t.Fatalf("wrong amount = %+v, %v", res, err)
		}
		right := &usp.PaymentResult{Status: "deposit_paid", Provider: "stripe", TransactionID: "txn_abc123", AmountPaid: []byte("1000"), Currency: "USD", OrderReference: "ord_xyz789"}
		res, err = w.ConfirmPayment(ctx, w.call, b.ID, usp.ConfirmPaymentRequest{PaymentResult: right})
		if err != nil {
			t.Fatal(err)
		}
		check(t, "Booking", res.Booking)
		if p := res.Booking.Payment; res.Booking.Status != "confirmed" || p.Status != "deposit_paid" || p.AmountDue != 0 || p.TransactionID != "txn_abc123" || p.OrderReference != "ord_xyz789" {
			t.Fatalf("paid = %s, %+v", res.Booking.Status, res.Booking.Payment)
		}
		again, err := w.ConfirmPayment(ctx, w.call, b.ID, usp.ConfirmPaymentRequest{PaymentResult: right})
		if err != nil || again.Booking.Status != "confirmed" || len(again.Messages) != 1 || again.Messages[0].Type != "info" {
			t.Fatalf("repeat = %+v, %v", again, err)
		}

		m := w.book(t, "svc_airport_consult", "2026-03-04", nil)
		if m.Payment.AmountDue != 4000 || m.Payment.Amount != 20000 || m.ConfirmationMode != "manual" {
			t.Fatalf("percentage deposit = %+v", m.Payment)
		}
		res, err = w.ConfirmPayment(ctx, w.call, m.ID, usp.ConfirmPaymentRequest{PaymentResult: &usp.PaymentResult{Status: "deposit_paid", TransactionID: "txn_m", AmountPaid: []byte("4000"), Currency: "usd"}})
		if err != nil || res.Booking.Status != "pending" || res.Booking.Payment.Status != "deposit_paid" {
			t.Fatalf("manual paid = %+v, %v", res, err)
		}
		conf, err := w.ConfirmBooking(ctx, w.staff(), m.ID)
		if err != nil || conf.Booking.Status != "confirmed" {
			t.Fatalf("staff confirm of a paid manual booking = %+v, %v", conf, err)
		}
	})
}

// A payment action that expires unpaid cancels the booking and frees its
// slot (§8.5.4, the sweep); a late confirm-payment answers
// payment_expired with the cancelled booking, and the page explains.
func TestUnpaidBookingExpires(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
		w.Clock.Advance(usp.PaymentWindow)
		if n, _, _, err := w.Sweep(ctx); err != nil || n != 1 {
			t.Fatalf("sweep = %d, %v", n, err)
		}
		got := w.get(t, b.ID)
		if got.Status != "canceled" || got.Cancellation == nil || got.Cancellation.ReasonCode != "payment_expired" || len(got.Actions) != 0 {
			t.Fatalf("expired = %s, %+v", got.Status, got.Cancellation)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID != b.Slot.ID {
			t.Fatal("the expired booking's slot is not free again")
		}
		res, err := w.ConfirmPayment(ctx, w.call, b.ID, usp.ConfirmPaymentRequest{PaymentResult: &usp.PaymentResult{Status: "paid", TransactionID: "txn_late", AmountPaid: []byte("2500"), Currency: "USD"}})
		if err != nil || outcome(t, res.Messages) != "payment_expired" || res.Booking.Status != "canceled" {
			t.Fatalf("late confirm-payment = %+v, %v", res, err)
		}
		if page := w.open(t, continuePath(t, b)); page.StatusCode != http.StatusGone {
			t.Fatalf("page after expiry = %d, want 410", page.StatusCode)
		}
	})
}

// Cancellation answers state the fee and refund (§8.5.7, §5.5.1). A
// payment the platform's checkout took is refunded by that checkout:
// inside the free window the answer states all of it, and frontdesk
// refunds nothing. A payment frontdesk's provider took is refunded by
// the ledger after the free window less the late fee.
func TestCancellationStatesFeeAndRefund(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		m := w.book(t, "svc_airport_consult", "2026-03-04", nil)
		if _, err := w.ConfirmPayment(ctx, w.call, m.ID, usp.ConfirmPaymentRequest{PaymentResult: &usp.PaymentResult{Status: "deposit_paid", TransactionID: "txn_m", AmountPaid: []byte("4000"), Currency: "USD"}}); err != nil {
			t.Fatal(err)
		}
		res, err := w.CancelBooking(ctx, w.call, m.ID, usp.CancelRequest{Reason: "plans changed"})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Booking.Cancellation; c == nil || c.Fee != 0 || c.RefundAmount != 4000 || res.Booking.Payment.Status != "refunded" {
			t.Fatalf("free cancellation = %+v, payment %+v", c, res.Booking.Payment)
		}

		b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
		w.open(t, continuePath(t, b))
		w.pay(t, w.ledger, "evt_late", b.ID)
		w.Clock.Advance(2 * time.Hour) // the 06:00 slot is now less than 24 hours away
		res, err = w.CancelBooking(ctx, w.call, b.ID, usp.CancelRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Booking.Cancellation; c == nil || c.Fee != 1000 || c.RefundAmount != 1500 || res.Booking.Payment.Status != "partially_refunded" {
			t.Fatalf("late cancellation = %+v, payment %+v", c, res.Booking.Payment)
		}
		if got := w.webhook(t, b.ID, "booking.canceled"); got.Cancellation == nil || got.Cancellation.Fee != 1000 || got.Cancellation.RefundAmount != 1500 {
			t.Fatalf("booking.canceled data = %+v", got.Cancellation)
		}
		if got := w.webhook(t, b.ID, "booking.confirmed"); got.Payment.Status != "paid" {
			t.Fatalf("booking.confirmed data payment = %+v", got.Payment)
		}
		if err := w.Bookings.Core().Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
		p, err := w.ledger.Latest(ctx, b.ID)
		if err != nil || p.Refunded() != 1500 {
			t.Fatalf("ledger refunded %d of %+v (%v), want 1500", p.Refunded(), p, err)
		}
		if p, _ := w.ledger.Latest(ctx, m.ID); p.ID != "" {
			t.Fatalf("the platform's payment reached the ledger: %+v", p)
		}
	})
}

// A late fee staff waived in advance is not taken when the platform
// cancels late: the answer and the booking.canceled webhook state no fee
// and all of the payment refunded, and the ledger returns all of it.
func TestCancellationAfterAnAdvanceWaiverTakesNoFee(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
		w.open(t, continuePath(t, b))
		w.pay(t, w.ledger, "evt_waived", b.ID)
		p, err := w.ledger.Latest(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.ledger.WaiveFee(ctx, payment.Waive{Payment: p.ID, Note: "regular guest", By: "olga"}); err != nil {
			t.Fatal(err)
		}
		w.Clock.Advance(2 * time.Hour) // inside the late window, as above
		res, err := w.CancelBooking(ctx, w.call, b.ID, usp.CancelRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Booking.Cancellation; c == nil || c.Fee != 0 || c.RefundAmount != 2500 || res.Booking.Payment.Status != "refunded" {
			t.Fatalf("late cancellation after a waiver = %+v, payment %+v", c, res.Booking.Payment)
		}
		if got := w.webhook(t, b.ID, "booking.canceled"); got.Cancellation == nil || got.Cancellation.Fee != 0 || got.Cancellation.RefundAmount != 2500 {
			t.Fatalf("booking.canceled data = %+v", got.Cancellation)
		}
		if err := w.Bookings.Core().Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err = w.ledger.Latest(ctx, b.ID); err != nil || p.Refunded() != 2500 || p.Settled == nil || p.Settled.Kept != 0 || p.Owed() != 0 {
			t.Fatalf("ledger after the waived cancellation = %+v %+v (%v)", p.Settled, p.Refunds, err)
		}
	})
}

// Without a payment provider a paid booking still waits for a platform's
// checkout (embedded, ACP), the profile offers no redirect, and the
// payment page says which setting is missing. A booking waiting for its
// payment is not rescheduled (§5.1.1's MAY, declined).
func TestPaymentPageWithoutProvider(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := newPayWorldIn(t, st, "", "")
	if got := w.Profile().USP.CheckoutSystems; !slices.Equal(got, []string{"acp", "embedded"}) {
		t.Fatalf("checkout_systems = %v", got)
	}
	b := w.book(t, "svc_airport_shuttle", "2026-03-02", nil)
	status, body := w.fetch(t, continuePath(t, b))
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), noProvider) {
		t.Fatalf("page = %d %s", status, body)
	}
	other := w.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := w.RescheduleBooking(ctx, w.call, b.ID, usp.RescheduleRequest{SlotID: other.ID})
	if err != nil || outcome(t, res.Messages) != "invalid_transition" || res.Booking.Slot.ID != b.Slot.ID {
		t.Fatalf("reschedule of requires_action = %+v, %v", res, err)
	}
}

// A create of a paid booking sent again with its idempotency key answers
// the same booking with the same payment action: one booking, one
// payment to take (§9.1.1).
func TestPaidBookingReplayedByItsKey(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := newPayWorldIn(t, st, "", "")
	s := w.slot(t, "svc_airport_install", "2026-03-03")
	call := w.call
	call.IdempotencyKey = "6f1c2a9e-8a4b-4d57-9f6e-0c1d2e3f4a5b"
	in := usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada}
	first, err := w.CreateBooking(ctx, call, in)
	if err != nil || first.Booking == nil {
		t.Fatal(err)
	}
	again, err := w.CreateBooking(ctx, call, in)
	if err != nil || again.Booking == nil || again.Booking.ID != first.Booking.ID || again.Booking.Actions[0].ContinueURL != first.Booking.Actions[0].ContinueURL {
		t.Fatalf("replay = %+v, %v", again, err)
	}
}

// Staff cannot confirm by hand a booking still waiting for its payment,
// on any page or command (they all decide through the core, which asks
// the door's guard); declining it stays open to them, and once paid the
// manual booking is theirs to confirm.
func TestStaffCannotConfirmABookingAwaitingPayment(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		core := w.Bookings.Core()
		core.GuardDecisions(w.DecisionGuard)
		m := w.book(t, "svc_airport_consult", "2026-03-04", nil)
		before, err := reservation.Get(ctx, w.Store, m.ID)
		if err != nil || m.Status != "requires_action" {
			t.Fatalf("booking = %s, %v", m.Status, err)
		}
		if core.Refused(before, reservation.Confirmed) == nil || core.Refused(before, reservation.Declined) != nil {
			t.Fatal("the guard does not refuse confirming alone")
		}
		_, _, err = core.Decide(ctx, reservation.Decision{Reference: m.ID, To: reservation.Confirmed, By: "olga"})
		if reservation.ErrorCode(err) != reservation.CodeIllegalTransition {
			t.Fatalf("staff confirm of an unpaid booking: %v, want illegal_transition", err)
		}
		if after, _ := reservation.Get(ctx, w.Store, m.ID); after.State != before.State || after.Version != before.Version {
			t.Fatalf("the refused confirm changed the booking: %s v%d", after.State, after.Version)
		}
		paid := &usp.PaymentResult{Status: "deposit_paid", TransactionID: "txn_g", AmountPaid: []byte("4000"), Currency: "USD"}
		if res, err := w.ConfirmPayment(ctx, w.call, m.ID, usp.ConfirmPaymentRequest{PaymentResult: paid}); err != nil || res.Booking.Status != "pending" {
			t.Fatalf("payment = %+v, %v", res, err)
		}
		if r, _, err := core.Decide(ctx, reservation.Decision{Reference: m.ID, To: reservation.Confirmed, By: "olga"}); err != nil || r.State != reservation.Confirmed {
			t.Fatalf("staff confirm once paid = %s, %v", r.State, err)
		}
	})
}

// A paid manual booking staff never confirmed lapses at its slot's start:
// the business let it go, so all of what was paid goes back, whatever the
// late-cancellation fee would keep of a guest's cancellation, and the
// answer and the ledger agree.
func TestUnconfirmedPaidBookingLapsesWithAFullRefund(t *testing.T) {
	onEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		m := w.book(t, "svc_airport_consult", "2026-03-02", nil)
		w.open(t, continuePath(t, m))
		w.pay(t, w.ledger, "evt_consult", m.ID)
		if b := w.get(t, m.ID); b.Status != "pending" || b.Payment.Status != "deposit_paid" {
			t.Fatalf("paid manual booking = %s, %+v", b.Status, b.Payment)
		}
		w.Clock.Advance(48 * time.Hour) // past the slot's start, no one confirmed
		if _, _, _, err := w.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		b := w.get(t, m.ID)
		if c := b.Cancellation; b.Status != "canceled" || c == nil || c.Fee != 0 || c.RefundAmount != 4000 {
			t.Fatalf("lapsed booking = %s, %+v", b.Status, b.Cancellation)
		}
		if err := w.Bookings.Core().Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := w.ledger.Latest(ctx, m.ID); err != nil || p.Refunded() != 4000 {
			t.Fatalf("ledger refunded %d (%v), want all 4000", p.Refunded(), err)
		}
	})
}
