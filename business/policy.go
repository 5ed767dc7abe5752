package business

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/internal/money"
)

// Payment timings of a unit: when the guest pays for it (the USP
// catalog's payment_timing).
const (
	// PayAtService is the default: the price is shown and collected at
	// the property, nothing is taken when booking.
	PayAtService = "at_service"
	// PayDeposit takes a deposit when booking, the rest at the property.
	PayDeposit = "deposit_required"
	// PayAtBooking takes the whole price when booking.
	PayAtBooking = "at_booking"
)

// Deposit kinds, as the USP catalog names them.
const (
	DepositFixed   = "fixed"
	DepositPercent = "percentage"
)

// Policy is what a unit's guest pays and when, and what a late
// cancellation, a no-show and a change of date cost, as the owner writes
// it under [locations.units.policy]. Amounts are decimals in the
// business currency, such as "40.00"; Terms reads them into minor units.
type Policy struct {
	// Payment is PayAtService (empty means it), PayDeposit or PayAtBooking.
	Payment string `toml:"payment"`
	// Deposit is, with PayDeposit only, a fixed amount such as "50.00"
	// or a percentage of the price such as "30%".
	Deposit string `toml:"deposit"`
	// FreeCancelHours is how many hours before the start a cancellation
	// stays free; after that LateCancelFee is charged.
	FreeCancelHours int    `toml:"free_cancel_hours"`
	LateCancelFee   string `toml:"late_cancel_fee"`
	// NoShowRefund returns what was paid to a guest who does not come;
	// by default the deposit (or the whole prepayment) is kept.
	NoShowRefund bool `toml:"no_show_refund"`
	// RescheduleFee is charged for moving a booking to another date.
	RescheduleFee string `toml:"reschedule_fee"`
}

// Terms are a unit's policy in minor units of the business currency.
type Terms struct {
	Timing string // one of the Pay constants, never empty
	// DepositKind is DepositFixed or DepositPercent with PayDeposit, and
	// empty otherwise; DepositValue is the amount in minor units or the
	// whole percentage (1 to 100).
	DepositKind  string
	DepositValue int64
	// FreeCancel is how long before the start a cancellation stays free;
	// LateCancelFee is charged after that. Both zero: every cancellation
	// is free.
	FreeCancel    time.Duration
	LateCancelFee int64
	// NoShowKeeps says a no-show forfeits what was paid.
	NoShowKeeps   bool
	RescheduleFee int64
}

// MaxFreeCancelHours bounds free_cancel_hours: a year.
const MaxFreeCancelHours = 366 * 24

// Terms reads the policy in currency. Each problem is reported as an
// error naming its key, such as "deposit: must be …"; all of them are
// joined.
func (p Policy) Terms(currency string) (Terms, error) {
	t := Terms{Timing: p.Payment, NoShowKeeps: !p.NoShowRefund, FreeCancel: time.Duration(p.FreeCancelHours) * time.Hour}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	amount := func(key, value string) int64 {
		if value == "" {
			return 0
		}
		n, err := money.Parse(strings.TrimSpace(value), currency)
		switch {
		case err != nil:
			bad(key, "%v, got %q", err, value)
		case n == 0:
			bad(key, "must be more than zero; leave it out for none")
		}
		return n
	}
	switch p.Payment {
	case "":
		t.Timing = PayAtService
	case PayAtService, PayDeposit, PayAtBooking:
	default:
		bad("payment", "must be %q (the default), %q or %q, got %q", PayAtService, PayDeposit, PayAtBooking, p.Payment)
	}
	switch {
	case t.Timing == PayDeposit && p.Deposit == "":
		bad("deposit", "is required with payment = %q: an amount such as \"50.00\" or a percentage of the price such as \"30%%\"", PayDeposit)
	case t.Timing != PayDeposit && p.Deposit != "":
		bad("deposit", "is for payment = %q only", PayDeposit)
	case strings.HasSuffix(p.Deposit, "%"):
		pct, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(p.Deposit, "%")))
		if err != nil || pct < 1 || pct > 100 {
			bad("deposit", "a percentage must be a whole number from 1%% to 100%%, got %q", p.Deposit)
		}
		t.DepositKind, t.DepositValue = DepositPercent, int64(pct)
	case p.Deposit != "":
		t.DepositKind, t.DepositValue = DepositFixed, amount("deposit", p.Deposit)
	}
	if p.FreeCancelHours < 0 || p.FreeCancelHours > MaxFreeCancelHours {
		bad("free_cancel_hours", "must be from 0 to %d, got %d", MaxFreeCancelHours, p.FreeCancelHours)
	}
	t.LateCancelFee = amount("late_cancel_fee", p.LateCancelFee)
	if t.LateCancelFee > 0 && p.FreeCancelHours == 0 {
		bad("late_cancel_fee", "needs free_cancel_hours: the fee is charged for a cancellation later than that many hours before the start")
	}
	t.RescheduleFee = amount("reschedule_fee", p.RescheduleFee)
	if len(errs) > 0 {
		return Terms{}, errors.Join(errs...)
	}
	return t, nil
}

// TakesMoney reports whether any money is collected when booking.
func (t Terms) TakesMoney() bool { return t.Timing == PayDeposit || t.Timing == PayAtBooking }

// DueNow is what the guest pays when booking for a price in minor units:
// the whole price, the deposit (never more than the price; a percentage
// rounded half up) or nothing.
func (t Terms) DueNow(price int64) int64 {
	switch t.Timing {
	case PayAtBooking:
		return price
	case PayDeposit:
		if t.DepositKind == DepositPercent {
			return money.DivRound(price*t.DepositValue, 100)
		}
		return min(t.DepositValue, price)
	}
	return 0
}

// CancelFee is the fee for cancelling at now a booking that starts at
// start: zero inside the free window, LateCancelFee after it.
func (t Terms) CancelFee(start, now time.Time) int64 {
	if t.LateCancelFee == 0 || now.Before(start.Add(-t.FreeCancel)) {
		return 0
	}
	return t.LateCancelFee
}

// CancelRefund is what goes back of paid when the guest cancels at now:
// all of it inside the free window, otherwise paid less the fee, never
// below zero. A fee larger than what was paid is not covered by it; the
// rest is CancelFee minus paid and is owed, never charged here.
func (t Terms) CancelRefund(paid int64, start, now time.Time) int64 {
	return max(paid-t.CancelFee(start, now), 0)
}

// NoShowRefund is what goes back of paid when the guest does not come.
func (t Terms) NoShowRefund(paid int64) int64 {
	if t.NoShowKeeps {
		return 0
	}
	return paid
}

// StartOf is when a booking of u whose first slot is slot starts: a
// night's check-in hour on its date, or a timed slot's own time
// ("2026-03-02T06:00"), both in the location's zone.
func (l Location) StartOf(u Unit, slot string) (time.Time, error) {
	if u.Kind == KindTimed {
		return time.ParseInLocation("2006-01-02T15:04", slot, l.Zone())
	}
	d, err := time.ParseInLocation(time.DateOnly, slot, l.Zone())
	if err != nil || !IsClock(l.CheckinHour) {
		return time.Time{}, fmt.Errorf("start of %q at check-in %q: not a date and hour", slot, l.CheckinHour)
	}
	m := Minutes(l.CheckinHour)
	return time.Date(d.Year(), d.Month(), d.Day(), m/60, m%60, 0, 0, l.Zone()), nil
}
