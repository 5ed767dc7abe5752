package usp

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/money"
	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Payments in Standalone Mode (§8.5). A booking of a service that takes
// money when booking (payment_timing at_booking or deposit_required)
// is created in requires_action: it holds its places until its payment
// action's expires_at, and its one action carries the payment_context
// (the deposit or the whole price due now) and a continue_url, the
// business-hosted page that hands the buyer to this business's payment
// provider (redirect). The money then arrives one of two ways: the
// provider's signed event through payment.Ledger.Receive, whose hook
// (paymentPaid) confirms the booking, or the platform's own checkout
// (embedded, ACP), reported with confirm-payment. Either way the booking
// leaves requires_action for confirmed, or for pending staff
// confirmation on a manual service. A payment the sweep finds paid for a
// booking still waiting is applied then (a crash between the charge and
// the booking write); one paid for a booking that no longer waits is
// refunded.

// PaymentWindow is how long a paid booking holds its places waiting for
// its payment, at most until the slot starts.
const PaymentWindow = 30 * time.Minute

// pageWindow is how long the provider's page stays open: Stripe's
// shortest. A page opened late in the PaymentWindow outlives the
// booking; a payment made on it after the booking ended is refunded.
const pageWindow = 30 * time.Minute

// Who took a booking's money.
const (
	// takerBusiness is this business's own provider, through the
	// continue_url page: the ledger holds the payment and refunds it.
	takerBusiness = "business"
	// takerPlatform is the platform's checkout (embedded, ACP), reported
	// with confirm-payment: that checkout refunds (§5.5.1), and this
	// business states the amount.
	takerPlatform = "platform"
)

// kindPayToken maps a payment action's continue_url token to its booking.
const kindPayToken = "usp-pay-token"

// payDetail is a paid booking's payment as the booking records it.
type payDetail struct {
	Timing   string `json:"timing"`
	Amount   int64  `json:"amount"` // the price before tax
	Tax      int64  `json:"tax,omitempty"`
	Due      int64  `json:"due"` // due when booking: the deposit or the whole price
	Deposit  int64  `json:"deposit,omitempty"`
	Currency string `json:"currency"`
	// Expires ends the payment action; Token names its continue_url.
	Expires time.Time `json:"expires"`
	Token   string    `json:"token"`
	// Status is "pending", "paid", "deposit_paid" or "expired".
	Status         string `json:"status"`
	Paid           int64  `json:"paid,omitempty"`
	Taker          string `json:"taker,omitempty"`
	Provider       string `json:"provider,omitempty"`
	TransactionID  string `json:"transaction_id,omitempty"`
	OrderReference string `json:"order_reference,omitempty"`
	// Return is where the hosted page sends the buyer back (§8.5.5).
	Return *PostPaymentReturnRequest `json:"return,omitempty"`
	// Via is viaCheckout for a booking a UCP checkout made (ucp_checkout.go):
	// its checkout takes the payment, so it has no continue_url page.
	Via string `json:"via,omitempty"`
}

// payPending reports whether d's booking waits for its payment.
func (d detail) payPending() bool { return d.Pay != nil && d.Pay.Status == "pending" }

// payLapsed is the payment status of a UCP checkout whose places went
// back unpaid while the checkout stays open (§7.5, flow vector 101).
const payLapsed = "lapsed"

// checkoutLapsed reports whether d's booking is such a checkout: it
// holds nothing, and a new hold of its slot lets it be completed.
func (d detail) checkoutLapsed() bool { return d.Pay != nil && d.Pay.Status == payLapsed }

// Action is a task the buyer completes before the booking is confirmed
// (booking.json Action); this business's only one is the payment.
type Action struct {
	Type           string          `json:"type"`
	Status         string          `json:"status"`
	ContinueURL    string          `json:"continue_url"`
	ExpiresAt      string          `json:"expires_at"`
	Message        *Message        `json:"message,omitempty"`
	PaymentContext *PaymentContext `json:"payment_context,omitempty"`
}

// PaymentContext is what a checkout system needs to take the payment
// (§8.5.2).
type PaymentContext struct {
	AmountDue   int64             `json:"amount_due"`
	Currency    string            `json:"currency"`
	Description string            `json:"description"`
	LineItems   []LineItem        `json:"line_items"`
	Metadata    map[string]string `json:"metadata"`
}

// LineItem is one line of a payment_context.
type LineItem struct {
	Label    string `json:"label"`
	Amount   int64  `json:"amount"`
	Quantity int    `json:"quantity"`
	ItemID   string `json:"item_id"`
}

// takesPayment reports whether a booking of s waits for a payment.
func (b *Business) takesPayment(s Service) bool {
	return b.cfg.standalone() && s.terms.TakesMoney() && s.Pricing.Amount > 0
}

// newPay is the payment of a new booking of s at w for total, made at
// now, or nil when s takes none. via is viaCheckout when a UCP checkout
// books s (UCP-Native Mode), empty otherwise.
func (b *Business) newPay(s Service, w wantSlot, total int64, now time.Time, ret *PostPaymentReturnRequest, via string) (*payDetail, error) {
	if via == viaCheckout {
		if !b.checkoutPays(s) {
			return nil, nil
		}
	} else if !b.takesPayment(s) {
		return nil, nil
	}
	// The token names the service's location (business.Location.Token),
	// so a split deployment's hub forwards its page there.
	var raw [16]byte
	if _, err := io.ReadFull(b.rand, raw[:]); err != nil {
		return nil, fmt.Errorf("payment token: %w", err)
	}
	p := &payDetail{Timing: s.terms.Timing, Amount: total, Due: s.terms.DueNow(total), Currency: s.Pricing.Currency,
		Expires: now.Add(PaymentWindow), Token: s.loc.Token(hex.EncodeToString(raw[:])), Status: "pending", Return: ret, Via: via}
	if w.start.Before(p.Expires) {
		p.Expires = w.start
	}
	if s.unit.Kind == business.KindNight && b.pricer != nil {
		// A USP room booking counts one guest per room, as its total does.
		if pr := b.pricer.Price(*s.unit, s.nights, 1, total); len(pr.Lines) > 0 {
			p.Amount, p.Tax = pr.Subtotal+pr.FeeTotal, pr.Tax.Amount
		}
	}
	if p.Timing == business.PayDeposit {
		p.Deposit = p.Due
	}
	return p, nil
}

// tokenWrite records the continue_url token of a new paid booking.
func tokenWrite(p *payDetail, ref string, now time.Time) []store.Write {
	if p == nil || p.Via == viaCheckout {
		return nil
	}
	return []store.Write{{Op: store.OpCreate, Record: store.Record{Kind: kindPayToken, Key: p.Token, Value: []byte(ref), UpdatedAt: now}}}
}

// payView is the booking's payment and actions (§8.5.1), for a paid
// booking.
func (b *Business) payView(s Service, r reservation.Reservation, d detail) (*Payment, []Action) {
	p := d.Pay
	out := &Payment{Status: p.Status, Timing: p.Timing, Amount: p.Amount, Currency: p.Currency, TaxAmount: p.Tax,
		DepositAmount: p.Deposit, TransactionID: p.TransactionID, OrderReference: p.OrderReference}
	switch {
	case p.Status == "pending" && r.State == reservation.Reserved:
		out.AmountDue = p.Due
	case p.Status == "expired", p.Status == payLapsed:
		out.Status = "pending"
	}
	if c := d.Cancellation; c != nil && p.Paid > 0 {
		switch {
		case c.RefundAmount >= p.Paid:
			out.Status = "refunded"
		case c.RefundAmount > 0:
			out.Status = "partially_refunded"
		}
	}
	if p.Status != "pending" || r.State != reservation.Reserved || p.Via == viaCheckout {
		// A checkout's booking is paid through its checkout, never by a
		// payment action (§7.4).
		return out, nil
	}
	zone := s.zone
	if zone == nil {
		zone = time.UTC
	}
	what := "Payment"
	if p.Timing == business.PayDeposit {
		what = "Deposit"
	}
	desc := fmt.Sprintf("%s for %s, booking %s: %s due now.", what, s.Name, r.Reference, money.Display(p.Due, p.Currency))
	meta := map[string]string{"booking_id": r.Reference, "service_id": s.ID, "service_type": s.Type}
	if w, ok := b.resolveSlot(s, d.SlotID); ok {
		meta["slot_start"] = w.start.In(zone).Format(time.RFC3339)
	}
	return out, []Action{{
		Type: "payment", Status: "pending", ContinueURL: b.payURL(p.Token), ExpiresAt: p.Expires.In(zone).Format(time.RFC3339),
		Message: &Message{Type: "info", Code: "payment_required", Content: desc},
		PaymentContext: &PaymentContext{AmountDue: p.Due, Currency: p.Currency, Description: desc,
			LineItems: []LineItem{{Label: what + ": " + s.Name, Amount: p.Due, Quantity: 1, ItemID: s.ID}}, Metadata: meta},
	}}
}

// PayPath is where the business-hosted payment pages are served, under
// the origin: PayPath + token, and PayPath + token + "/return".
const PayPath = RESTPath + "/pay/"

func (b *Business) payURL(token string) string {
	return strings.TrimSuffix(b.origin, "/") + PayPath + token
}

// PaymentResult is the payment_result of confirm-payment (§5.3.7).
type PaymentResult struct {
	Status         string          `json:"status"`
	Provider       string          `json:"provider,omitempty"`
	TransactionID  string          `json:"transaction_id"`
	AmountPaid     json.RawMessage `json:"amount_paid"`
	Currency       string          `json:"currency"`
	OrderReference string          `json:"order_reference,omitempty"`
}

// ConfirmPaymentRequest is usp_bookings_confirm_payment / POST
// /bookings/{booking_id}/confirm-payment.
type ConfirmPaymentRequest struct {
	PaymentResult *PaymentResult `json:"payment_result"`
}

var amountPattern = regexp.MustCompile(`^"?-?[0-9]+"?$`)

func (p *PaymentResult) check() error {
	if p == nil || p.Status == "" || p.TransactionID == "" || len(p.AmountPaid) == 0 || p.Currency == "" {
		return fail(CodeInvalidRequest, "payment_result needs status, transaction_id, amount_paid and currency.")
	}
	switch {
	case p.Status != "paid" && p.Status != "deposit_paid":
		return fail(CodeValidation, "payment_result.status must be paid or deposit_paid.")
	case !amountPattern.Match(p.AmountPaid):
		return fail(CodeValidation, "payment_result.amount_paid must be an integer amount in minor units.")
	case !currencyPattern.MatchString(p.Currency):
		return fail(CodeValidation, "payment_result.currency must be an ISO 4217 code such as USD.")
	}
	return nil
}

func (p *PaymentResult) amount() int64 {
	n, err := strconv.ParseInt(strings.Trim(string(p.AmountPaid), `"`), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// ConfirmPayment is the platform's callback after its checkout took the
// payment (§5.3.7, §8.5.3): legal from requires_action only (§5.1.1).
// The amount and currency must be what the payment action asks; then
// the payment is recorded as the platform's (its checkout refunds, as
// §5.5.1 says) and the booking is confirmed, or waits for staff on a
// manual service. A booking whose payment expired answers
// payment_expired, one already paid answers unchanged with an info
// message, and any other invalid_transition.
func (b *Business) ConfirmPayment(ctx context.Context, call Call, id string, in ConfirmPaymentRequest) (*BookingResult, error) {
	if err := in.PaymentResult.check(); err != nil {
		return nil, err
	}
	pr := in.PaymentResult
	return b.change(ctx, call, "usp_bookings_confirm_payment", id, in, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		switch {
		case d.Pay == nil:
			return nil, d, outcomeMsg("invalid_transition", "This booking takes no payment: it is "+b.status(r, d)+", never requires_action, so there is no payment to confirm.", ""), nil
		case d.Pay.Status == "expired":
			return nil, d, outcomeMsg("payment_expired", "The payment action expired and the booking was cancelled; hold the slot and book again.", "recoverable"), nil
		case !d.payPending() && d.Pay.TransactionID == pr.TransactionID && r.State != reservation.Cancelled:
			return nil, d, &Message{Type: "info", Code: "payment_already_confirmed", Content: "This payment was confirmed already; the booking is unchanged."}, nil
		case !d.payPending() || r.State != reservation.Reserved:
			return nil, d, invalidTransition(b.status(r, d), "paid for"), nil
		case pr.amount() != d.Pay.Due || !strings.EqualFold(pr.Currency, d.Pay.Currency):
			return nil, d, outcomeMsg("payment_amount_mismatch", fmt.Sprintf("amount_paid must be the amount due, %d %s in minor units.", d.Pay.Due, d.Pay.Currency), "requires_buyer_input"), nil
		}
		nd := b.paidDetail(d, paidBy{taker: takerPlatform, amount: d.Pay.Due, provider: pr.Provider, txn: pr.TransactionID, order: pr.OrderReference})
		return func(a reservation.Addition) (reservation.Reservation, error) {
			return b.applyPaid(ctx, r, nd, "usp:"+p.Platform, now, a)
		}, nd, nil, nil
	})
}

// paidBy is a payment as it arrived.
type paidBy struct {
	taker, provider, txn, order string
	amount                      int64
}

// paidDetail is d once pb paid it: a manual booking then waits for
// staff until its slot starts, as any pending booking does.
func (b *Business) paidDetail(d detail, pb paidBy) detail {
	p := *d.Pay
	p.Status = "paid"
	if p.Timing == business.PayDeposit {
		p.Status = "deposit_paid"
	}
	p.Paid, p.Taker, p.Provider, p.TransactionID, p.OrderReference = pb.amount, pb.taker, pb.provider, pb.txn, pb.order
	d.Pay = &p
	if d.mode() == business.ConfirmManual {
		s, _ := b.catalog.get(d.ServiceID)
		if w, ok := b.resolveSlot(s, d.SlotID); ok {
			d.Expires = w.start
		}
	}
	return d
}

// applyPaid writes a paid booking: confirmed for an auto service, still
// pending (for staff) for a manual one.
func (b *Business) applyPaid(ctx context.Context, r reservation.Reservation, nd detail, by string, now time.Time, also ...reservation.Addition) (reservation.Reservation, error) {
	c := reservation.Change{Read: r, By: by, Note: "paid", At: now, Also: also, Edit: func(m *reservation.Reservation) { m.Detail = nd.raw() }}
	if nd.mode() == business.ConfirmAuto {
		return b.desk().Decide(ctx, c, reservation.Confirmed)
	}
	return b.desk().Update(ctx, c)
}

// paymentPaid is the ledger's hook: a payment the provider reported
// paid. A failure is logged; the sweep applies the payment again
// (reconcile).
func (b *Business) paymentPaid(ctx context.Context, p payment.Payment) {
	if err := b.settlePaid(ctx, p); err != nil {
		b.log.ErrorContext(ctx, "usp payment not applied", "reference", p.Reference, "payment", p.ID, "err", err)
	}
}

// settlePaid applies a paid payment of the ledger to its booking: a
// booking waiting for it is paid (§7.5 A2: the write is retried, by the
// sweep when not now); a booking that no longer waits, or was paid
// otherwise, has the money returned.
func (b *Business) settlePaid(ctx context.Context, p payment.Payment) error {
	if b.st == nil {
		return nil
	}
	return store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		r, err := reservation.Get(ctx, b.st, p.Reference)
		if errors.Is(err, store.ErrNotFound) {
			return nil // another door's payment
		}
		if err != nil {
			return store.Final(fmt.Errorf("read reservation: %w", err))
		}
		d, ok := detailOf(r)
		if !ok || d.Kind != "booking" || d.Pay == nil {
			return nil // another door's reservation
		}
		switch {
		case d.Pay.TransactionID != "" && d.Pay.TransactionID == p.ProviderPayment:
			return nil // applied already
		case d.payPending() && r.State == reservation.Reserved && p.Amount == d.Pay.Due && strings.EqualFold(p.Currency, d.Pay.Currency):
			nd := b.paidDetail(d, paidBy{taker: takerBusiness, amount: p.Amount, provider: p.Provider, txn: p.ProviderPayment})
			_, err := b.applyPaid(ctx, r, nd, "usp:payment", b.clock.Now())
			switch err := deskError("apply payment", err); {
			case errors.Is(err, errStale):
				return errStale
			case err != nil:
				return store.Final(err)
			}
			b.log.InfoContext(ctx, "usp booking paid", "reference", r.Reference)
			return nil
		}
		// Nothing waits for this money: it goes back.
		if b.payments == nil {
			return nil
		}
		if _, err := b.payments.RefundUnmatched(ctx, p.ID); err != nil {
			return store.Final(err)
		}
		b.log.InfoContext(ctx, "usp unmatched payment refunded", "reference", r.Reference, "payment", p.ID)
		return nil
	})
}

// reconcile applies a payment the ledger holds for a booking that still
// waits for it: the one the hook did not apply (a crash between the
// charge and the booking write, flow vector 104). It reports whether
// it changed the booking.
func (b *Business) reconcile(ctx context.Context, r reservation.Reservation, d detail) (bool, error) {
	if b.payments == nil || !d.payPending() || r.State != reservation.Reserved {
		return false, nil
	}
	paid, p, err := b.payments.Paid(ctx, r.Reference)
	if err != nil || paid == 0 {
		return false, err
	}
	return true, b.settlePaid(ctx, p)
}

// status is the booking status of r with its detail d (§5.1).
func (b *Business) status(r reservation.Reservation, d detail) string {
	if r.State == reservation.Reserved && d.payPending() {
		return "requires_action"
	}
	return Status(r.State)
}

// cancellation is how the buyer's cancellation of r at now ends it
// (§8.5.7, §5.5.1). A booking still waiting for its payment is an
// abandoned checkout: nothing was paid, nothing is charged. Otherwise
// the fee is the policy's late fee once the free window has closed,
// and the refund is what was paid less that fee: all of it inside the
// window. Money this business's provider took is refunded by the
// payment ledger's cancellation consumer at the same instant and by the
// same terms; money a platform's checkout took is refunded by that
// checkout, and the answer states the amount. A fee staff waived in
// advance on the ledger's payment is not taken.
func (b *Business) cancellation(ctx context.Context, r reservation.Reservation, d detail, reason string, now time.Time) (*Cancellation, error) {
	at := now.UTC().Format(time.RFC3339)
	if d.payPending() && r.State == reservation.Reserved || d.checkoutLapsed() {
		if reason == "" {
			reason = "The checkout was abandoned before the payment was made."
		}
		return &Cancellation{Reason: reason, ReasonCode: "checkout_abandoned", CanceledBy: "system", CanceledAt: at}, nil
	}
	c := &Cancellation{Reason: reason, CanceledBy: "buyer", CanceledAt: at}
	s, ok := b.catalog.get(d.ServiceID)
	w, found := b.resolveSlot(s, d.SlotID)
	if !ok || !found {
		return c, nil
	}
	var paid int64
	if d.Pay != nil {
		paid = d.Pay.Paid
	}
	var p payment.Payment
	if b.payments != nil && paid > 0 && d.Pay.Taker == takerBusiness {
		var err error
		if _, p, err = b.payments.Paid(ctx, r.Reference); err != nil {
			return nil, fmt.Errorf("read payment: %w", err)
		}
	}
	st := payment.SettlePayment(s.terms, p, paid, w.start, now)
	c.Fee, c.RefundAmount = payment.CancelFee(s.terms, p, w.start, now), st.Refund
	return c, nil
}

// settleLookback is how far back the sweep looks for payments the
// ledger's hook may not have applied: longer than any payment page and
// any interruption between a charge and its booking write.
const settleLookback = 24 * time.Hour

// SettlePayments applies, for the sweep, every payment the provider took
// in the last settleLookback whose hook may not have run (the process
// stopped between the charge and the booking write): a booking still
// waiting is paid, and money nothing waits for any more is refunded.
func (b *Business) SettlePayments(ctx context.Context) error {
	if b.payments == nil || b.st == nil {
		return nil
	}
	since, after := b.clock.Now().Add(-settleLookback), ""
	var failed error
	for {
		paid, next, err := b.payments.PaidSince(ctx, since, after, 200)
		if err != nil {
			return errors.Join(failed, err)
		}
		for _, p := range paid {
			failed = errors.Join(failed, b.settlePaid(ctx, p))
		}
		if next == "" {
			return failed
		}
		after = next
	}
}

// errAwaitsPayment refuses confirming by hand a booking still waiting
// for its payment: it confirms itself when paid (§5.1.1).
var errAwaitsPayment = &reservation.Error{Code: reservation.CodeIllegalTransition,
	Message: "The booking waits for its payment; it is confirmed when the payment arrives, not by hand."}

// errCheckoutLapsed refuses accepting by hand a UCP checkout whose
// places went back unpaid: only its completion books it.
var errCheckoutLapsed = &reservation.Error{Code: reservation.CodeIllegalTransition,
	Message: "The checkout's hold lapsed unpaid; it is booked only when the platform completes it."}

// DecisionGuard refuses the staff decisions the core must not take on
// this door's reservations, whichever page or command asks: confirming a
// booking still waiting for its payment. The core calls it
// (reservation.Core.GuardDecisions).
func (b *Business) DecisionGuard(r reservation.Reservation, to reservation.State) error {
	d, ok := detailOf(r)
	switch {
	case ok && to == reservation.Confirmed && d.payPending():
		return errAwaitsPayment
	case ok && to.HoldsUnits() && d.checkoutLapsed():
		return errCheckoutLapsed
	}
	return nil
}
