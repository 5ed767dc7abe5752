package direct

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/quota"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Fixed limits of direct-booking.md. The adjustable ones are config
// settings (business.Limits); these need a reviewed code change.
const (
	mailboxHourly        = 3 // booking codes per normalized mailbox per hour, resends included
	mailboxDaily         = 6 // and per rolling 24 hours
	cancelReferenceDaily = 3 // cancellation codes per reservation per 24 hours
	contactPending       = 2 // pending chat reservations per proved email
	wrongTries           = 5 // wrong codes that end an intent
	maxResends           = 2 // resends per intent
	resendGap            = 60 * time.Second
	codeLifetime         = 15 * time.Minute
	sendWindow           = 10 * time.Second // a send not answered by then was answered or lost
	codeDigits           = 6
	lookupFailures       = 10 // failed lookups per reference per hour before lockout
)

// budget is one admission ceiling with its windows; zero means no limit
// in that window.
type budget struct {
	key           string
	hourly, daily int
	refusal       string // which refusal a full budget gives, for the caller
}

// A budget's admissions are counted in one store counter per window (see
// quota.Window): a send takes a use of each with a conditional write in
// the transaction that records the send, before the code leaves, so
// parallel sends never pass a ceiling, and no send reads more than its
// counters, whatever the ceiling or the history.

// counter is one window of a budget and the store counter that keeps it.
type counter struct {
	name string
	quota.Window
}

// counters are the budget's windows that limit, hour first.
func (b budget) counters() []counter {
	var cs []counter
	if b.hourly > 0 {
		cs = append(cs, counter{kindAdmission + "/" + b.key + "/hour", quota.Window{Limit: b.hourly, Span: time.Hour}})
	}
	if b.daily > 0 {
		cs = append(cs, counter{kindAdmission + "/" + b.key + "/day", quota.Window{Limit: b.daily, Span: 24 * time.Hour}})
	}
	return cs
}

// errBudget says which budget was full.
type errBudget struct{ b budget }

func (e *errBudget) Error() string { return "budget full: " + e.b.key }

// admission is what was charged: the budgets, each one use at the instant
// at, so a known-unused charge can be given back exactly.
type admission struct {
	at      time.Time
	budgets []budget
	hub     *Admitted // the hub's charge too, in a split deployment
}

// admit charges one send to every budget in one transaction, in order,
// so the first full budget decides the answer: group budgets are listed
// before mailbox budgets, so a globally exhausted budget never reveals a
// mailbox's activity. Nothing is charged when any is full.
//
// The write has the admission deadline. A write that failed or timed out
// may have committed, so its charge is kept; one acknowledged after the
// deadline is no allowance: it is refunded, being known unused, and the
// caller sends nothing.
func (s *Service) admit(ctx context.Context, now time.Time, budgets ...budget) (admission, error) {
	deadline := s.admitDeadline(ctx)
	defer deadline.stop()
	writes, adm := s.chargeWrites(now, budgets...)
	_, err := s.st.Apply(deadline.context(), writes)
	if full := adm.full(err); full != nil {
		return admission{}, full
	}
	if err != nil {
		return admission{}, err
	}
	if deadline.passed() {
		s.refund(ctx, adm, now)
		return admission{}, errLateAdmission
	}
	return adm, nil
}

// errLateAdmission is a charge acknowledged after the admission deadline:
// no allowance, so no send.
var errLateAdmission = fmt.Errorf("mail admission acknowledged late: %w", context.DeadlineExceeded)

// chargeWrites returns the conditional writes that charge one send at now
// to every budget, in order, for a caller to commit alone or after its
// own writes; admission.full words a write refused for a full budget.
func (s *Service) chargeWrites(now time.Time, budgets ...budget) ([]store.Write, admission) {
	var writes []store.Write
	for _, b := range budgets {
		for _, c := range b.counters() {
			writes = append(writes, c.Take(c.name, now))
		}
	}
	return writes, admission{at: now, budgets: budgets}
}

// full returns the *errBudget whose counter err refused as full, found by
// the refused write's counter name, wherever the charge stood in its
// Apply; nil when err is no such refusal.
func (a admission) full(err error) error {
	we, ok := errors.AsType[*store.WriteError](err)
	if !ok || !errors.Is(we.Err, store.ErrFull) || we.Write.Op != store.OpTake || we.Write.Tally == nil {
		return nil
	}
	for _, b := range a.budgets {
		for _, c := range b.counters() {
			if c.name == we.Write.Tally.Name {
				return &errBudget{b}
			}
		}
	}
	return nil
}

// refund gives back the charges of a send known not to have been used:
// it was refused before it left, or never attempted.
func (s *Service) refund(ctx context.Context, a admission, now time.Time) {
	var writes []store.Write
	for _, b := range a.budgets {
		for _, c := range b.counters() {
			writes = append(writes, c.GiveBack(c.name, a.at, now))
		}
	}
	if _, err := s.st.Apply(ctx, writes); err != nil {
		// Keeping a charge is the safe side of a failed refund.
		s.log.WarnContext(ctx, "refund admission", "err", err)
	}
	s.refundAtHub(ctx, a.hub)
}

// admitted counts the sends a budget's widest window counts now.
func (s *Service) admitted(ctx context.Context, now time.Time, b budget) (int, error) {
	cs := b.counters()
	if len(cs) == 0 {
		return 0, nil
	}
	c := cs[len(cs)-1]
	return c.Used(ctx, s.st, c.name, now)
}

// Budgets of booking codes and cancellation codes, kept apart so a
// stranger exhausting one cannot exhaust the other.
func (s *Service) groupBookingBudget(set reservation.Settings) budget {
	return budget{key: "book-group", hourly: set.Group.EmailHourly, daily: set.Group.EmailDaily, refusal: "paused"}
}

func (s *Service) mailboxBudget(mailboxKey string) budget {
	return budget{key: "book-mailbox/" + mailboxKey, hourly: mailboxHourly, daily: mailboxDaily, refusal: "contact"}
}

func (s *Service) locationBudget(set reservation.Settings, slug string) budget {
	return budget{key: "book-location/" + slug, hourly: set.Locations[slug].EmailHourly, refusal: "paused"}
}

func (s *Service) cancelGroupBudget(set reservation.Settings) budget {
	return budget{key: "cancel-group", daily: set.Group.CancelDaily, refusal: "cancel"}
}

func (s *Service) cancelReferenceBudget(ref string) budget {
	return budget{key: "cancel-reference/" + ref, daily: cancelReferenceDaily, refusal: "cancel"}
}
