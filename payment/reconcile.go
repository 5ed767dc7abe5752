package payment

import (
	"context"
	"errors"
	"strings"
	"time"

	"frontdesk/reservation"
)

// The sweep reconciles the ledger with the bookings and the provider:
// money taken without a booking to pay for goes back, and a page past
// its expiry is read back from the provider and closed. Each step is a
// conditional write or a refund made once per payment (RefundOnce), so
// a pass interrupted anywhere and run again, on any instance, settles
// each payment once.

// ReasonNoBooking is the reason of the refund of money taken without a
// booking to pay for, once per payment.
const ReasonNoBooking = "no-booking"

// NoBookingGrace is how long money may stay taken without a booking
// before the sweep returns it: far longer than the booking's write
// after a payment takes. Money taken after its booking ended is
// returned by the first sweep past the grace, or by the cancellation
// itself when it comes after the money.
const NoBookingGrace = 15 * time.Minute

// ExpiryGrace is how long after its expiry a page still unpaid in the
// ledger is read back from the provider before the sweep closes it:
// the provider's own closing and its event come first.
const ExpiryGrace = 10 * time.Minute

// Bookings reads the reservation a payment's reference names;
// reservation.ErrNoReservation when none has it.
type Bookings func(ctx context.Context, reference string) (reservation.Reservation, error)

// Reconciled counts what one reconciling pass did.
type Reconciled struct {
	Refunded int // payments refunded for want of a booking
	Paid     int // pages the provider reported paid whose event was lost
	Expired  int // pages closed unpaid past their expiry
}

// UseBookings lets the sweep refund payments whose booking was never
// written or is gone. Without it the sweep does not look.
func (l *Ledger) UseBookings(b Bookings) { l.bookings = b }

// Reconcile makes one reconciling pass over every payment and reports
// what it did. A payment whose provider does not answer stays for the
// next pass; the others go on.
func (l *Ledger) Reconcile(ctx context.Context) (Reconciled, error) {
	var out Reconciled
	if l.provider == nil {
		return out, nil
	}
	var failed error
	after := ""
	for {
		recs, err := l.records.List(ctx, kindPayment, "", after, sweepPage)
		if err != nil {
			return out, internal("payment reconcile", err)
		}
		for _, rec := range recs {
			p, err := decode(rec)
			if err != nil {
				failed = errors.Join(failed, err)
				continue
			}
			failed = errors.Join(failed, l.reconcile(ctx, p, &out))
		}
		if len(recs) < sweepPage {
			return out, failed
		}
		after = recs[len(recs)-1].Key
	}
}

// reconcile settles one payment, if it needs it.
func (l *Ledger) reconcile(ctx context.Context, p Payment, out *Reconciled) error {
	now := l.clock.Now()
	switch {
	case p.State == StateOpen && !p.ExpiresAt.IsZero() && now.After(p.ExpiresAt.Add(ExpiryGrace)):
		paid, err := l.closePage(ctx, p)
		if err != nil {
			return err
		}
		if !paid {
			out.Expired++
			return nil
		}
		out.Paid++
		if p, err = l.Get(ctx, p.ID); err != nil {
			return err
		}
	case p.State != StatePaid:
		return nil
	}
	if p.Settled != nil || p.Amount-p.Refunded() <= 0 || l.bookings == nil {
		return nil
	}
	r, err := l.bookings(ctx, p.Reference)
	switch {
	case errors.Is(err, reservation.ErrNoReservation):
		if now.Before(p.PaidAt.Add(NoBookingGrace)) {
			return nil // its booking may be being written
		}
	case err != nil:
		return err
	case (r.State == reservation.Cancelled || r.State == reservation.Declined) && endedAt(r).Before(p.PaidAt):
		// The booking had ended before the money arrived, so the
		// cancellation found nothing paid to settle, or settles it as
		// this does.
	default:
		return nil
	}
	refunded, err := l.refundNoBooking(ctx, p.ID, now)
	if refunded {
		out.Refunded++
	}
	return err
}

// refundNoBooking settles payment id as money without a booking to pay
// for and returns all of what is left of it, once. The settlement comes
// first, so a booking's own end (a cancellation's refund under its
// policy) and this never both return the money: whichever settles
// first decides. It reports whether this call settled it.
func (l *Ledger) refundNoBooking(ctx context.Context, id string, now time.Time) (bool, error) {
	p, err := l.settle(ctx, id, Settlement{Why: SettledNoBooking, At: now})
	if err != nil {
		return false, err
	}
	if p.Settled == nil || p.Settled.Why != SettledNoBooking {
		return false, nil // settled meanwhile by the booking's own end
	}
	if _, err := l.RefundOnce(ctx, p.ID, ReasonNoBooking, p.Amount-p.Refunded()+refundedFor(p, ReasonNoBooking)); err != nil {
		return false, err
	}
	return true, nil
}

// closePage reads an open page past its expiry back from the provider:
// paid there (its event lost), it is recorded paid as the event would
// have; otherwise it is closed as expired. It reports whether it was
// paid.
func (l *Ledger) closePage(ctx context.Context, p Payment) (bool, error) {
	co, err := l.provider.Checkout(ctx, p.Checkout)
	if err != nil {
		return false, &Error{Code: CodeUnavailable, Message: "The payment provider did not answer; the page is read again on the next pass.", Err: err}
	}
	paid := co.Paid && co.ID == p.Checkout && co.Amount == p.Amount && strings.EqualFold(co.Currency, p.Currency)
	if co.Paid && !paid {
		// Money was taken, but not what was asked: neither paid nor
		// expired is true, so the payment stays for a person to look at.
		return false, &Error{Code: CodeState, Message: "The provider reports a payment that is not the one asked.", Err: errors.New("payment " + p.ID + ": provider's page differs")}
	}
	_, err = l.update(ctx, p.ID, func(q *Payment) (bool, error) {
		if q.State != StateOpen {
			return false, nil // the provider's event came meanwhile
		}
		if paid {
			q.State, q.URL, q.ProviderPayment, q.PaidAt = StatePaid, "", co.Payment, l.clock.Now().UTC()
			return true, nil
		}
		q.State, q.URL = StateExpired, ""
		return true, nil
	})
	return paid, err
}

// endedAt is when r was cancelled or declined: its last audit entry into
// that state, or its last change.
func endedAt(r reservation.Reservation) time.Time {
	for i := len(r.Audit) - 1; i >= 0; i-- {
		if strings.HasSuffix(r.Audit[i].What, "→"+string(r.State)) {
			return r.Audit[i].At
		}
	}
	return r.UpdatedAt
}
