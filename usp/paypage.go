package usp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"frontdesk/internal/money"
	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/store"
)

// The business-hosted page behind a payment action's continue_url
// (§8.5.5): the trusted surface where the buyer reviews the amount and
// is handed to this business's payment provider; no agent authorizes a
// charge. The provider's page returns the buyer to PayPath + token +
// "/return", which sends them on to the platform's
// post_payment_return_request when it gave one. The provider's signed
// event, not the buyer's return, records the payment.

// PayStep is what the page answers: a redirect (303), or a page with a
// status, a title and one sentence.
type PayStep struct {
	Redirect    string
	Status      int
	Title, Text string
}

// payReuseMargin is how long a provider page must still be open to be
// reused rather than a new one opened.
const payReuseMargin = 5 * time.Minute

// byToken reads the booking of a payment page's token, with a payment
// the ledger holds applied and its deadline settled.
func (b *Business) byToken(ctx context.Context, token string) (reservation.Reservation, detail, bool, error) {
	if b.st == nil || token == "" {
		return reservation.Reservation{}, detail{}, false, nil
	}
	rec, err := b.st.Get(ctx, kindPayToken, token)
	if errors.Is(err, store.ErrNotFound) {
		return reservation.Reservation{}, detail{}, false, nil
	}
	if err != nil {
		return reservation.Reservation{}, detail{}, false, fmt.Errorf("read payment token: %w", err)
	}
	read := func() (reservation.Reservation, detail, bool, error) {
		r, err := reservation.Get(ctx, b.st, string(rec.Value))
		if err != nil {
			return r, detail{}, false, fmt.Errorf("read reservation: %w", err)
		}
		d, ok := detailOf(r)
		return r, d, ok && d.Pay != nil && d.Pay.Token == token, nil
	}
	r, d, ok, err := read()
	if err != nil || !ok {
		return r, d, ok, err
	}
	if changed, err := b.reconcile(ctx, r, d); err != nil {
		return r, d, false, err
	} else if changed {
		if r, d, ok, err = read(); err != nil || !ok {
			return r, d, ok, err
		}
	}
	r, d, err = b.settle(ctx, r, d, b.clock.Now())
	return r, d, err == nil, err
}

var (
	payGone     = PayStep{Status: http.StatusNotFound, Title: "Payment page not found", Text: "This payment page does not exist. Go back to where you booked."}
	payBroken   = PayStep{Status: http.StatusServiceUnavailable, Title: "Payment unavailable", Text: "The payment page could not be opened just now; try again in a moment."}
	payExpired  = PayStep{Status: http.StatusGone, Title: "Payment time over", Text: "The time to pay for this booking has passed and the booking was cancelled. Go back to where you booked to choose a time again."}
	payNotTaken = PayStep{Status: http.StatusGone, Title: "Booking cancelled", Text: "This booking was cancelled, so there is nothing to pay. Go back to where you booked."}
)

// PayPage hands the buyer of a booking waiting for its payment to the
// provider's page for the amount due: a page still open for the same
// amount is reused, otherwise a payment is recorded and its page opened.
// After the payment action's expiry it explains that the time is over.
func (b *Business) PayPage(ctx context.Context, token string) PayStep {
	r, d, ok, err := b.byToken(ctx, token)
	switch {
	case err != nil:
		b.log.ErrorContext(ctx, "usp payment page", "err", err)
		return payBroken
	case !ok:
		return payGone
	case d.Pay.Status == "expired":
		return payExpired
	case r.State.Terminal() && d.payPending():
		return payNotTaken
	case !d.payPending():
		if d.Pay.Return != nil {
			return PayStep{Redirect: returnURL(d.Pay.Return)}
		}
		return PayStep{Status: http.StatusOK, Title: "Paid", Text: "This booking is paid. Nothing more is due now."}
	case b.payments == nil:
		return PayStep{Status: http.StatusServiceUnavailable, Title: "Payment unavailable", Text: "This business takes no payments online; go back to where you booked."}
	}
	if err := b.payments.Ready(); err != nil {
		return PayStep{Status: http.StatusServiceUnavailable, Title: "Payment unavailable", Text: payText(err)}
	}
	now := b.clock.Now()
	if last, err := b.payments.Latest(ctx, r.Reference); err == nil && last.State == payment.StateOpen && last.Amount == d.Pay.Due && last.URL != "" &&
		(last.ExpiresAt.IsZero() || now.Add(payReuseMargin).Before(last.ExpiresAt)) {
		return PayStep{Redirect: last.URL}
	}
	s, _ := b.catalog.get(d.ServiceID)
	back := b.payURL(token) + "/return"
	what := "Payment"
	if d.Pay.Deposit > 0 {
		what = "Deposit"
	}
	pay, err := b.payments.Begin(ctx, payment.Charge{
		Reference: r.Reference, Amount: d.Pay.Due, Currency: d.Pay.Currency,
		Description: fmt.Sprintf("%s for %s, booking %s (%s)", what, s.Name, r.Reference, money.Display(d.Pay.Due, d.Pay.Currency)),
		SuccessURL:  back + "?paid=1", CancelURL: back + "?paid=back", ExpiresAt: now.Add(pageWindow),
	})
	if err == nil && pay.URL == "" {
		err = errors.New("the provider gave no page address")
	}
	if err != nil {
		if e, ok := payment.AsError(err); !ok || e.Code == payment.CodeInternal || e.Code == payment.CodeUnavailable {
			b.log.ErrorContext(ctx, "usp payment page", "reference", r.Reference, "err", err)
			return payBroken
		}
		return PayStep{Status: http.StatusServiceUnavailable, Title: "Payment unavailable", Text: payText(err)}
	}
	return PayStep{Redirect: pay.URL}
}

// PayReturn is where the provider's page sends the buyer back, paid
// ("1") or not: on to the platform's return address when it gave one
// (§8.5.5: in both outcomes), otherwise a page saying what happens next.
func (b *Business) PayReturn(ctx context.Context, token, paid string) PayStep {
	_, d, ok, err := b.byToken(ctx, token)
	switch {
	case err != nil:
		b.log.ErrorContext(ctx, "usp payment return", "err", err)
		return payBroken
	case !ok:
		return payGone
	case d.Pay.Return != nil:
		return PayStep{Redirect: returnURL(d.Pay.Return)}
	case !d.payPending() && d.Pay.Status != "expired":
		return PayStep{Status: http.StatusOK, Title: "Paid", Text: "Thank you. The booking is paid; go back to where you booked."}
	case paid == "1":
		return PayStep{Status: http.StatusOK, Title: "Payment received", Text: "Thank you. The payment provider is confirming your payment; the booking is confirmed once it has."}
	}
	return PayStep{Status: http.StatusOK, Title: "Payment not completed", Text: "The payment was not completed. Open the payment link again to pay before it expires."}
}

// returnURL is the platform's return address with its params appended.
func returnURL(ret *PostPaymentReturnRequest) string {
	u, err := url.Parse(ret.URL)
	if err != nil {
		return ret.URL // checked when the booking was made
	}
	q := u.Query()
	for k, v := range ret.Params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// payText words a payment refusal for the buyer.
func payText(err error) string {
	if e, ok := payment.AsError(err); ok && e.Code != payment.CodeInternal {
		return e.Message
	}
	return payBroken.Text
}
