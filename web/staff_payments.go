package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"frontdesk/internal/money"
	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/staff"
)

// StaffPayments is what the staff screen needs from the payment ledger:
// a reservation's payment, the owner's manual refund and fee waiver, and
// the owner's totals.
type StaffPayments interface {
	Latest(ctx context.Context, reference string) (payment.Payment, error)
	// Ready is nil when a provider is configured to refund through.
	Ready() error
	ManualRefund(ctx context.Context, m payment.ManualRefund) (payment.Payment, error)
	WaiveFee(ctx context.Context, w payment.Waive) (payment.Payment, error)
	Totals(ctx context.Context, from, to time.Time) (payment.Totals, error)
}

var _ StaffPayments = (*payment.Ledger)(nil)

// mayRefund reports whether u may refund and waive fees: owners only;
// clerks see the payment and what became of it.
func mayRefund(u staff.User) bool { return u.Role == staff.Owner }

// staffPay is a reservation's payment as the detail page shows it.
type staffPay struct {
	ID, State, Amount string
	PaidAt            time.Time // zero until paid
	Refunds           []staffRefund
	Refunded, Left    string
	// Settled words what the reservation's end did with the payment;
	// Owed is a late fee's part beyond it, never charged.
	Settled, Owed string
	Waiver        *payment.Waiver
	WaivedRefund  string
	// CanRefund and CanWaive offer the owner's forms only when they can
	// succeed now; Seen and MaxRefund fill the refund form.
	CanRefund, CanWaive bool
	Seen                int
	MaxRefund           string
	// NotReady names the missing provider setting when refunds cannot be
	// sent.
	NotReady string
}

type staffRefund struct {
	At                           time.Time
	Amount, State, Why, By, Note string
}

// payStates word the ledger's states for staff.
var payStates = map[string]string{
	payment.StateStarting: "checkout being opened",
	payment.StateOpen:     "checkout open, not paid yet",
	payment.StatePaid:     "paid",
	payment.StateExpired:  "checkout closed unpaid",
}

// settledWords word a settlement's cause.
var settledWords = map[string]string{
	payment.SettledCancellation: "Cancelled under the cancellation policy",
	payment.SettledReturned:     "Declined or withdrawn before staff answered: refunded in full",
	payment.SettledNoShow:       "Marked a no-show under the no-show rule",
	payment.SettledNoBooking:    "Paid without a booking to pay for: refunded in full",
}

// refundWhy words a refund's reason.
func refundWhy(reason string) string {
	switch {
	case reason == payment.ReasonCancellation:
		return "cancellation policy"
	case reason == payment.ReasonNoShow:
		return "no-show rule"
	case reason == payment.ReasonWaiver:
		return "late fee waived"
	case reason == payment.ReasonNoBooking:
		return "no booking for the payment"
	case strings.HasPrefix(reason, "manual "):
		return "manual refund"
	}
	return "refund"
}

// staffPay reads r's latest payment; nil when none was begun or the
// screen has no ledger.
func (s *StaffScreen) staffPay(ctx context.Context, r reservation.Reservation, u staff.User) (*staffPay, error) {
	if s.Payments == nil {
		return nil, nil
	}
	p, err := s.Payments.Latest(ctx, r.Reference)
	if payment.ErrorCode(err) == payment.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cur := p.Currency
	left := p.Amount - p.Refunded()
	d := &staffPay{ID: p.ID, State: payStates[p.State], Amount: money.Display(p.Amount, cur), PaidAt: p.PaidAt, Seen: len(p.Refunds),
		Refunded: money.Display(p.Refunded(), cur), Left: money.Display(left, cur), Waiver: p.Waiver}
	for _, rf := range p.Refunds {
		state := "sent"
		if rf.State == payment.RefundPending {
			state = "pending: will be sent again"
		}
		d.Refunds = append(d.Refunds, staffRefund{At: rf.At, Amount: money.Display(rf.Amount, cur), State: state, Why: refundWhy(rf.Reason), By: rf.By, Note: rf.Note})
	}
	if st := p.Settled; st != nil {
		d.Settled = settledWords[st.Why] + ": " + money.Display(st.Kept, cur) + " kept."
		if owed := p.Owed(); owed > 0 {
			d.Owed = money.Display(owed, cur)
		}
	}
	if p.Waiver != nil {
		d.WaivedRefund = money.Display(p.Waiver.Refund, cur)
	}
	if err := s.Payments.Ready(); err != nil {
		if e, ok := payment.AsError(err); ok {
			d.NotReady = e.Message
		}
	}
	may := mayRefund(u) && d.NotReady == ""
	d.CanRefund = may && p.State == payment.StatePaid && left > 0
	// A fee is waived once it was taken, or in advance while the
	// reservation still holds its room.
	d.CanWaive = may && (p.Waivable() || p.WaivableInAdvance() && r.State.HoldsUnits())
	d.MaxRefund = money.Format(left, cur)
	return d, nil
}

// payAction reads what a payment action needs: the user may act, the
// reservation is theirs to see, and its latest payment. It answers the
// request itself, and returns false, when one of these fails.
func (s *StaffScreen) payAction(w http.ResponseWriter, r *http.Request, v visit) (payment.Payment, bool) {
	if !mayRefund(v.User) || s.Payments == nil {
		http.Error(w, "Only an owner may refund or waive a fee.", http.StatusForbidden)
		return payment.Payment{}, false
	}
	if _, err := s.Core.StaffView(r.Context(), r.PathValue("ref"), v.User.CanSee); err != nil {
		if refusal(err) == refusedAbsent {
			http.NotFound(w, r)
		} else {
			s.fail(w, r, "read reservation", err)
		}
		return payment.Payment{}, false
	}
	p, err := s.Payments.Latest(r.Context(), r.PathValue("ref"))
	switch payment.ErrorCode(err) {
	case "":
		return p, true
	case payment.CodeNotFound:
		s.showDetail(w, r, v, http.StatusUnprocessableEntity, "Nothing was paid for this reservation, so there is nothing to refund.")
	default:
		s.fail(w, r, "read payment", err)
	}
	return payment.Payment{}, false
}

// payAnswer answers a payment action's outcome: done redirects, a
// refusal shows the page with its sentence and nothing changed.
func (s *StaffScreen) payAnswer(w http.ResponseWriter, r *http.Request, v visit, done string, err error) {
	switch payment.ErrorCode(err) {
	case "":
		s.redirectDone(w, r, r.PathValue("ref"), done)
	case payment.CodeUnavailable:
		s.Logger.WarnContext(r.Context(), "staff refund left pending", "err", err)
		s.redirectDone(w, r, r.PathValue("ref"), "refund-pending")
	case payment.CodeInvalid, payment.CodeState, payment.CodeNoProvider, payment.CodeNotFound:
		e, _ := payment.AsError(err)
		s.showDetail(w, r, v, http.StatusUnprocessableEntity, e.Message)
	default:
		s.fail(w, r, "staff payment action", err)
	}
}

// refund makes an owner's manual refund of the reservation's payment.
func (s *StaffScreen) refund(w http.ResponseWriter, r *http.Request, v visit) {
	p, ok := s.payAction(w, r, v)
	if !ok {
		return
	}
	amount, err := money.Parse(strings.TrimPrefix(strings.TrimSpace(r.PostForm.Get("amount")), "$"), p.Currency)
	if err != nil {
		s.showDetail(w, r, v, http.StatusUnprocessableEntity, "Write the amount to refund as a decimal such as 20.00.")
		return
	}
	seen, err := strconv.Atoi(r.PostForm.Get("seen"))
	if err != nil {
		s.showDetail(w, r, v, http.StatusUnprocessableEntity, "The refund form is out of date; reload the page.")
		return
	}
	_, err = s.Payments.ManualRefund(r.Context(), payment.ManualRefund{Payment: p.ID, Amount: amount, Note: r.PostForm.Get("note"), By: v.User.Username, Seen: seen})
	if err == nil {
		s.Logger.InfoContext(r.Context(), "manual refund", "by", v.User.Username, "payment", p.ID, "amount", amount)
	}
	s.payAnswer(w, r, v, "refunded", err)
}

// waive waives the late-cancellation fee of the reservation's payment.
func (s *StaffScreen) waive(w http.ResponseWriter, r *http.Request, v visit) {
	p, ok := s.payAction(w, r, v)
	if !ok {
		return
	}
	_, err := s.Payments.WaiveFee(r.Context(), payment.Waive{Payment: p.ID, Note: r.PostForm.Get("note"), By: v.User.Username})
	if err == nil {
		s.Logger.InfoContext(r.Context(), "late fee waived", "by", v.User.Username, "payment", p.ID)
	}
	s.payAnswer(w, r, v, "waived", err)
}
