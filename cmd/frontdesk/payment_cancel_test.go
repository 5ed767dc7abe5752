package main

import (
	"context"
	"io"
	"log/slog"
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
	"frontdesk/reservation"
)

// paidStay is a confirmed request for Riverside's double under pol whose
// deposit was paid through stripe-mock: the running demo, the stay's
// reference and page, and the payment.
func paidStay(t *testing.T, pol business.Policy) (*Main, string, string, payment.Payment) {
	t.Helper()
	return paidStayOn(t, pol, "")
}

// onPaidEngines runs f on SQLite ("") and on a PostgreSQL schema.
func onPaidEngines(t *testing.T, f func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "") })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.Schema(t)) })
}

// paidStayIn is paidStayOn with the database first, as onPaidEngines
// hands it.
func paidStayIn(t *testing.T, database string, pol business.Policy) (*Main, string, string, payment.Payment) {
	t.Helper()
	return paidStayOn(t, pol, database)
}

// paidStayOn is paidStay on the database database ("" for SQLite).
func paidStayOn(t *testing.T, pol business.Policy, database string) (*Main, string, string, payment.Payment) {
	t.Helper()
	m, ref, link, p := paidRequestVia(t, pol, database, nil)
	if _, _, err := m.office.Decide(context.Background(), reservation.Decision{Reference: ref, To: reservation.Confirmed, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	return m, ref, link, p
}

// paidRequest is paidStay before staff answer the request.
func paidRequest(t *testing.T, pol business.Policy) (*Main, string, string, payment.Payment) {
	t.Helper()
	return paidRequestVia(t, pol, "", nil)
}

// paidRequestVia is paidRequest on the database database ("" for
// SQLite), with the Stripe provider wrapped by wrap, when given, as
// serve would use it.
func paidRequestVia(t *testing.T, pol business.Policy, database string, wrap func(payment.Provider) payment.Provider) (*Main, string, string, payment.Payment) {
	t.Helper()
	var provider payment.Provider
	provider, err := stripe.New(stripe.Options{Key: payment.NewSecret("sk_test_serve"), WebhookSecret: payment.NewSecret(testWebhookSecret), API: stripemock.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		provider = wrap(provider)
	}
	c := config.Demo()
	for j, u := range c.Locations[0].Units {
		if u.Type == "double" {
			c.Locations[0].Units[j].Policy = pol
		}
	}
	c.Store.DataDir = t.TempDir()
	c.Store.Database = database
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{}), Payment: provider}
	runMain(t, m)
	status, body := requestDouble(t, m)
	ref, link := findSent(body), stayLink.FindString(body)
	if status != http.StatusOK || ref == nil || link == "" {
		t.Fatalf("form post = %d: %s", status, body)
	}
	ctx := context.Background()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(m.URL+link+"/pay", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	p, err := m.payments.Latest(ctx, ref[1])
	if err != nil {
		t.Fatal(err)
	}
	event, sig := stripemock.Event(t, testWebhookSecret, "evt_cancel_paid", payment.EventCheckoutCompleted, map[string]any{
		"id": p.Checkout, "object": "checkout.session", "status": "complete", "payment_status": "paid",
		"amount_total": p.Amount, "currency": "usd", "payment_intent": "pi_serve",
		"metadata": map[string]string{payment.MetadataPayment: p.ID},
	}, m.Clock.Now())
	if out, err := m.payments.Receive(ctx, sig, event); err != nil || !out.Applied {
		t.Fatalf("paid event = %+v, %v", out, err)
	}
	if p, err = m.payments.Get(ctx, p.ID); err != nil || p.State != payment.StatePaid {
		t.Fatalf("payment = %+v, %v", p, err)
	}
	return m, ref[1], link, p
}

// cancelled relays the outbox, so the cancellation's refund is made, and
// returns the payment as it is then.
func cancelled(t *testing.T, m *Main, p payment.Payment) payment.Payment {
	t.Helper()
	ctx := context.Background()
	if err := m.bookings.Desk().Relay(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := m.payments.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cancelRefund is the one refund a cancellation made of p, or 0.
func cancelRefund(t *testing.T, p payment.Payment) int64 {
	t.Helper()
	var n int64
	for _, r := range p.Refunds {
		if r.Reason != payment.ReasonCancellation || r.State != payment.RefundDone || r.Provider == "" {
			t.Fatalf("refunds = %+v, want done cancellation refunds only", p.Refunds)
		}
		n += r.Amount
	}
	if len(p.Refunds) > 1 {
		t.Fatalf("refunds = %+v, want one", p.Refunds)
	}
	return n
}

// guestCancels cancels the stay from its page, with the emailed code,
// and returns the page after it.
func guestCancels(t *testing.T, m *Main, link string) string {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(m.URL+link+"/cancel", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	id := loc.Query().Get("cancel")
	if res.StatusCode != http.StatusSeeOther || id == "" {
		t.Fatalf("asking for a code = %d, %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, err = noRedirect.PostForm(m.URL+link+"/cancel", url.Values{"cancel_id": {id}, "code": {latestCode(t, m.URL, "grace@example.com")}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "?done=cancelled") {
		t.Fatalf("cancelling = %d, %q", res.StatusCode, res.Header.Get("Location"))
	}
	_, _, body := get(t, m.URL+link, "", nil)
	return body
}

func dd(page, id string) string {
	_, after, ok := strings.Cut(page, `<dd id="`+id+`">`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, "</dd>")
	return v
}

// TestGuestCancelsInsideTheFreeWindow: the page shows that a
// cancellation now refunds the whole deposit; the guest's cancellation
// refunds it through the provider once, however often the outbox is
// relayed, and the page says so.
func TestGuestCancelsInsideTheFreeWindow(t *testing.T) {
	onPaidEngines(t, func(t *testing.T, database string) {
		m, _, link, p := paidStayIn(t, database, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "50.00"})
		_, _, body := get(t, m.URL+link, "", nil)
		deposit := dd(body, "due-now")
		if want := strings.TrimSuffix(deposit, ", paid"); dd(body, "cancel-refund") != want || want == deposit {
			t.Fatalf("refund if cancelled now = %q, deposit %q", dd(body, "cancel-refund"), deposit)
		}
		if strings.Contains(body, "free of charge") || !strings.Contains(body, "What is refunded is shown above") {
			t.Fatal("the paid stay's page still says a cancellation is free of charge")
		}
		body = guestCancels(t, m, link)
		p = cancelled(t, m, p)
		if got := cancelRefund(t, p); got != p.Amount {
			t.Fatalf("refunded %d of %d inside the free window", got, p.Amount)
		}
		if again := cancelled(t, m, p); len(again.Refunds) != 1 {
			t.Fatalf("a second relay refunded again: %+v", again.Refunds)
		}
		if !strings.Contains(body, "is refunded to your card. Nothing is owed.") || dd(body, "kept") != "$0.00" {
			t.Fatalf("the cancelled page: %s", body)
		}
	})
}

// TestGuestCancelsOutsideTheFreeWindow: a month before the stay is
// inside the 1,000-hour window's fee: the deposit less the $50.00 fee
// is refunded, and the page no longer says nothing is owed.
func TestGuestCancelsOutsideTheFreeWindow(t *testing.T) {
	onPaidEngines(t, func(t *testing.T, database string) {
		m, _, link, p := paidStayIn(t, database, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 1000, LateCancelFee: "50.00"})
		body := guestCancels(t, m, link)
		p = cancelled(t, m, p)
		if got := cancelRefund(t, p); got != p.Amount-5000 {
			t.Fatalf("refunded %d of %d with a $50.00 late fee", got, p.Amount)
		}
		if strings.Contains(body, "Nothing is owed") || dd(body, "kept") != "$50.00" || !strings.Contains(body, "$50.00 of the ") {
			t.Fatalf("the cancelled page: %s", body)
		}
		mail := ""
		for _, msg := range devMessages(t, m.URL) {
			if strings.HasPrefix(msg.Text, "Reservation ") && strings.Contains(msg.Text, " is cancelled.") {
				mail = msg.Text
			}
		}
		if !strings.Contains(mail, "What was paid is refunded as the cancellation policy says") || strings.Contains(mail, "No payment was taken") {
			t.Fatalf("the guest's cancellation mail: %q", mail)
		}
	})
}

// TestStaffDeclinesAPaidRequest: a request whose deposit was paid and
// that staff decline is refunded in full, whatever the late fee, and
// its mail says so.
func TestStaffDeclinesAPaidRequest(t *testing.T) {
	m, ref, _, p := paidRequest(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 1000, LateCancelFee: "50.00"})
	if _, _, err := m.office.Decide(context.Background(), reservation.Decision{Reference: ref, To: reservation.Declined, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	if p = cancelled(t, m, p); cancelRefund(t, p) != p.Amount {
		t.Fatalf("refunds = %+v, want all of %d", p.Refunds, p.Amount)
	}
	found := false
	for _, msg := range devMessages(t, m.URL) {
		found = found || strings.Contains(msg.Text, "Anything paid for this request is refunded in full.")
	}
	if !found {
		t.Fatal("no mail says the declined request's payment is refunded")
	}
}

// TestStaffCancelsAPaidStay: staff cancelling inside the free window
// refund it all; outside it, a late fee larger than the deposit keeps
// the deposit, refunds nothing and shows the rest owed, uncharged. The
// first runs on PostgreSQL, the second on SQLite.
func TestStaffCancelsAPaidStay(t *testing.T) {
	ctx := context.Background()
	t.Run("inside the window", func(t *testing.T) {
		m, ref, _, p := paidStayOn(t, business.Policy{Payment: business.PayAtBooking, FreeCancelHours: 48, LateCancelFee: "50.00"}, pgtest.Schema(t))
		if _, _, err := m.office.Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Cancelled, By: "olga"}); err != nil {
			t.Fatal(err)
		}
		if p = cancelled(t, m, p); cancelRefund(t, p) != p.Amount {
			t.Fatalf("refunds = %+v, want all of %d", p.Refunds, p.Amount)
		}
	})
	t.Run("a fee above the deposit", func(t *testing.T) {
		m, ref, link, p := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20.00", FreeCancelHours: 1000, LateCancelFee: "80.00"})
		_, _, body := get(t, m.URL+link, "", nil)
		if dd(body, "cancel-refund") != "$0.00" || dd(body, "cancel-owed") != "$60.00, not charged to your card" {
			t.Fatalf("the page before cancelling: %s", body)
		}
		if _, _, err := m.office.Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Cancelled, By: "olga"}); err != nil {
			t.Fatal(err)
		}
		if p = cancelled(t, m, p); len(p.Refunds) != 0 {
			t.Fatalf("refunds = %+v, want none", p.Refunds)
		}
		_, _, body = get(t, m.URL+link, "", nil)
		if strings.Contains(body, "Nothing is owed") || !strings.Contains(body, "$60.00, is owed; it is not charged to your card.") || dd(body, "kept") != "$20.00" {
			t.Fatalf("the cancelled page: %s", body)
		}
	})
}

// TestGuestWithdrawsAPaidRequest: a paid request the guest withdraws
// before staff answer held nothing, so it is refunded in full, late fee
// or not, and the page says so.
func TestGuestWithdrawsAPaidRequest(t *testing.T) {
	m, _, link, p := paidRequest(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 1000, LateCancelFee: "50.00"})
	_, _, body := get(t, m.URL+link, "", nil)
	if want := strings.TrimSuffix(dd(body, "due-now"), ", paid"); dd(body, "cancel-refund") != want {
		t.Fatalf("refund if withdrawn now = %q, want %q", dd(body, "cancel-refund"), want)
	}
	if status, _ := postForm(t, m.URL+link+"/withdraw", url.Values{}, nil); status != http.StatusOK {
		t.Fatalf("withdraw = %d", status)
	}
	if p = cancelled(t, m, p); cancelRefund(t, p) != p.Amount {
		t.Fatalf("refunds = %+v, want all of %d", p.Refunds, p.Amount)
	}
	_, _, body = get(t, m.URL+link, "", nil)
	if dd(body, "kept") != "$0.00" {
		t.Fatalf("the withdrawn page: %s", body)
	}
}
