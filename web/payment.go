package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/money"
	"frontdesk/payment"
	"frontdesk/reservation"
)

// A unit whose policy takes money when booking (a deposit or the whole
// price) is paid from the guest's own page: it shows what is due now and
// later, and its button hands the guest to the provider's hosted page.
// The provider's signed event, not the guest's return, records the
// payment.

// payLines is what the guest's page says of a stay that takes money
// when booking; nil for one paid at the property.
type payLines struct {
	Deposit bool   // a deposit now, the rest at the property
	Now     string // due now, as people read it
	Later   string // due at the property; empty when nothing is
	Paid    bool   // the provider reported the payment taken
	// Payable says the button is shown: unpaid, and the stay neither
	// declined nor cancelled.
	Payable bool
	// Cancel is, once paid, what a cancellation does with the payment:
	// one now, or the one that cancelled the stay.
	Cancel *cancelLines
	due    int64
}

// cancelLines word a payment.CancelSettlement; Owed is empty when the
// late fee is covered by what was paid.
type cancelLines struct {
	Done                     bool // the stay is cancelled
	Paid, Refund, Kept, Owed string
	refund, kept, owed       int64
}

// payCheckoutWindow is how long the provider's page stays open.
const payCheckoutWindow = time.Hour

// payLines reads the stay's terms and its latest payment.
func (s *Site) payLines(ctx context.Context, g reservation.GuestStay, u business.Unit) *payLines {
	t, err := u.Policy.Terms(s.Config.Business.Currency)
	if err != nil || !t.TakesMoney() {
		return nil
	}
	cur := s.Config.Business.Currency
	total := g.Reservation.Total
	due := t.DueNow(total)
	p := &payLines{Deposit: t.Timing == business.PayDeposit, Now: money.Display(due, cur), due: due}
	if total > due {
		p.Later = money.Display(total-due, cur)
	}
	var paid int64
	var pay payment.Payment
	if s.Payments != nil {
		paid, pay, _ = s.Payments.Paid(ctx, g.Reservation.Reference) // unreadable: shown as unpaid
		p.Paid = paid > 0
	}
	state := g.Reservation.State
	p.Payable = !p.Paid && state != reservation.Declined && state != reservation.Cancelled
	if p.Paid && state != reservation.Declined {
		p.Cancel = s.cancelLines(g, u, t, pay, paid)
	}
	return p
}

// cancelLines is what cancelling g now, or when it was cancelled, does
// with paid; nil when the stay's start cannot be read.
func (s *Site) cancelLines(g reservation.GuestStay, u business.Unit, t business.Terms, pay payment.Payment, paid int64) *cancelLines {
	start, err := g.Location.StartOf(u, g.Reservation.FirstSlot())
	if err != nil {
		return nil
	}
	at, done := s.Clock.Now(), g.Reservation.State == reservation.Cancelled
	var withdrawn bool
	if done {
		at, withdrawn = cancelledAt(g.Reservation)
	}
	st := payment.SettlePayment(t, pay, paid, start, at)
	if withdrawn || g.Reservation.State == reservation.Requested {
		// A request withdrawn before staff answered held nothing; all
		// of it goes back.
		st = payment.CancelSettlement{Paid: paid, Refund: paid}
	}
	cur := s.Config.Business.Currency
	c := &cancelLines{Done: done, Paid: money.Display(paid, cur), Refund: money.Display(st.Refund, cur), Kept: money.Display(st.Kept, cur),
		refund: st.Refund, kept: st.Kept, owed: st.Owed}
	if st.Owed > 0 {
		c.Owed = money.Display(st.Owed, cur)
	}
	return c
}

// cancelledAt is when r was cancelled: its last audit entry into the
// cancelled state, or its last change; withdrawn says it was cancelled
// as a request staff had not answered.
func cancelledAt(r reservation.Reservation) (at time.Time, withdrawn bool) {
	for i := len(r.Audit) - 1; i >= 0; i-- {
		if strings.HasSuffix(r.Audit[i].What, "→"+string(reservation.Cancelled)) {
			return r.Audit[i].At, r.Audit[i].What == string(reservation.Requested)+"→"+string(reservation.Cancelled)
		}
	}
	return r.UpdatedAt, false
}

// cancelledNext says, of a paid stay that was cancelled, what became of
// the payment, in place of "Nothing is owed." when money was kept.
func (c *cancelLines) cancelledNext() string {
	const done = "This reservation is cancelled and its room released."
	switch {
	case c.kept == 0:
		return done + " The " + c.Paid + " paid is refunded to your card. Nothing is owed."
	case c.refund == 0 && c.owed == 0:
		return done + " Under the cancellation policy, the " + c.Paid + " paid is kept as the late cancellation fee."
	case c.refund == 0:
		return done + " Under the cancellation policy, the " + c.Paid + " paid is kept, and the rest of the late cancellation fee, " +
			c.Owed + ", is owed; it is not charged to your card."
	}
	return done + " Under the cancellation policy, " + c.Kept + " of the " + c.Paid + " paid is kept as the late cancellation fee, and " +
		c.Refund + " is refunded to your card."
}

// paymentMissing is the refusal of a request for a unit that takes money
// when booking while no payment provider is configured: the sentence
// naming the missing setting; "" when the request may go on.
func (s *Site) paymentMissing(l business.Location, roomType string) string {
	u, ok := l.Unit(roomType)
	if !ok || s.Payments == nil {
		return ""
	}
	if t, err := u.Policy.Terms(s.Config.Business.Currency); err != nil || !t.TakesMoney() {
		return ""
	}
	if err := s.Payments.Ready(); err != nil {
		return payMessage(err, l.Phone) + " Call " + l.Phone + " to book it."
	}
	return ""
}

// payResults word the provider's return to the guest's page.
var payResults = map[string]string{
	"1":    "Thank you. The payment provider is confirming your payment; this page shows it as paid once it has.",
	"back": "The payment was not completed. You can pay with the button below.",
}

// StayPay hands the guest to the provider's hosted page for what is due
// now: a page still open for the same amount is reused, otherwise a new
// payment is recorded and its page opened. Without a configured
// provider the page says which setting is missing.
func (s *Site) StayPay(w http.ResponseWriter, r *http.Request) {
	p, ok := s.stayPage(w, r)
	if !ok {
		return
	}
	if s.Payments == nil || p.Pay == nil || !p.Pay.Payable {
		http.Redirect(w, r, "/stay/"+url.PathEscape(p.Token), http.StatusSeeOther)
		return
	}
	ref := p.Stay.Reservation.Reference
	if last, err := s.Payments.Latest(r.Context(), ref); err == nil && last.State == payment.StateOpen && last.Amount == p.Pay.due && last.URL != "" && s.stillOpen(last) {
		http.Redirect(w, r, last.URL, http.StatusSeeOther)
		return
	}
	back := s.origin(r) + "/stay/" + url.PathEscape(p.Token)
	what := "Payment"
	if p.Pay.Deposit {
		what = "Deposit"
	}
	c := payment.Charge{
		Reference: ref, Amount: p.Pay.due, Currency: s.Config.Business.Currency,
		Description: what + " for reservation " + ref + " at " + p.Stay.Location.Name,
		SuccessURL:  back + "?paid=1", CancelURL: back + "?paid=back",
	}
	if s.Clock != nil {
		c.ExpiresAt = s.Clock.Now().Add(payCheckoutWindow)
	}
	pay, err := s.Payments.Begin(r.Context(), c)
	if err == nil && pay.URL == "" {
		err = &payment.Error{Code: payment.CodeUnavailable, Message: "The payment page could not be opened; try again in a moment.", Err: errors.New("the provider gave no page address")}
	}
	if err != nil {
		if payment.ErrorCode(err) == payment.CodeInternal || payment.ErrorCode(err) == payment.CodeUnavailable {
			s.Logger.ErrorContext(r.Context(), "payment page", "err", err)
		}
		p.Problem = payMessage(err, p.Stay.Location.Phone)
		s.renderStatus(w, r, http.StatusServiceUnavailable, "stay.html", p)
		return
	}
	http.Redirect(w, r, pay.URL, http.StatusSeeOther)
}

// stillOpen reports whether p's page is open for a while yet: a page
// about to close is not reused.
func (s *Site) stillOpen(p payment.Payment) bool {
	return p.ExpiresAt.IsZero() || s.Clock == nil || s.Clock.Now().Add(5*time.Minute).Before(p.ExpiresAt)
}

// payMessage words a payment error for the guest.
func payMessage(err error, phone string) string {
	if e, ok := payment.AsError(err); ok && e.Code != payment.CodeInternal {
		return e.Message
	}
	return "The payment page could not be opened just now. Try again in a few minutes, or call " + phone + "."
}

// maxEventBody caps a provider event; Stripe's are a few kilobytes.
const maxEventBody = 256 << 10

// PaymentEvent takes the provider's signed webhook events. A forged,
// stale or unreadable event answers 400 and changes nothing; a storage
// problem answers 503, so the provider sends it again; anything else,
// applied or not (a replay is not), answers 200 with what it did.
func (s *Site) PaymentEvent(w http.ResponseWriter, r *http.Request) {
	if s.Payments == nil {
		s.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBody))
	if err != nil {
		http.Error(w, "The event could not be read.", http.StatusBadRequest)
		return
	}
	out, err := s.Payments.Receive(r.Context(), r.Header.Get("Stripe-Signature"), body)
	status := http.StatusOK
	var answer any = out
	if err != nil {
		switch payment.ErrorCode(err) {
		case payment.CodeForged, payment.CodeStale, payment.CodeInvalid:
			status = http.StatusBadRequest
		case payment.CodeNoProvider:
			status = http.StatusNotFound
		default:
			status = http.StatusServiceUnavailable
			s.Logger.ErrorContext(r.Context(), "payment event", "err", err)
		}
		msg := "The event could not be recorded just now; send it again."
		if e, ok := payment.AsError(err); ok && e.Code != payment.CodeInternal {
			msg = e.Message
		}
		answer = map[string]string{"error": string(payment.ErrorCode(err)), "message": msg}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(answer) // a client gone away is not an error here
}
