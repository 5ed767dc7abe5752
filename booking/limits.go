package booking

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"frontdesk/reservation"
	"frontdesk/store"
)

// Fixed limits of direct-booking.md. The adjustable ones are config
// settings (config.Limits); these need a reviewed code change.
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

// budget is one admission counter with its windows; zero means no limit
// in that window.
type budget struct {
	key           string
	hourly, daily int
	refusal       string // which refusal a full budget gives, for the caller
}

// A budget's admissions are places, one record each, holding the time of
// the send admitted there: as many places as the budget's widest window
// allows sends, each reusable once its send left that window. A send
// claims a free place with a conditional write, so no record grows with
// history and two sends rarely write the same record. Counting the live
// places of the window, and of the hour, decides whether one more fits.

// window is how long an admission counts against the budget.
func (b budget) window() time.Duration {
	if b.daily > 0 {
		return 24 * time.Hour
	}
	return time.Hour
}

// places is how many sends the budget's widest window admits.
func (b budget) places() int {
	if b.daily > 0 {
		return b.daily
	}
	return b.hourly
}

// errBudget says which budget was full.
type errBudget struct{ b budget }

func (e *errBudget) Error() string { return "budget full: " + e.b.key }

// admission is what was charged: the places claimed at their new
// versions, so a known-unused charge can be given back.
type admission struct {
	places []store.Record
}

// admit charges one send to every budget in one transaction, checking them
// in order so the first full budget decides the answer: group budgets are
// listed before mailbox budgets, so a globally exhausted budget never
// reveals a mailbox's activity. Nothing is charged when any is full.
//
// The reads and the write share the admission deadline. A write that
// failed or timed out may have committed, so its charge is kept; one
// acknowledged after the deadline is no allowance: it is refunded, being
// known unused, and the caller sends nothing.
func (s *Service) admit(ctx context.Context, now time.Time, budgets ...budget) (admission, error) {
	deadline := s.admitDeadline(ctx)
	defer deadline.stop()
	for range maxCASAttempts {
		writes, adm, err := s.chargeWrites(deadline.context(), now, budgets...)
		if err != nil {
			return admission{}, err
		}
		_, err = s.st.Apply(deadline.context(), writes)
		var we *store.WriteError
		if errors.As(err, &we) {
			continue // another send claimed a place meanwhile: re-read
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
	return admission{}, store.ErrConflict
}

// errLateAdmission is a charge acknowledged after the admission deadline:
// no allowance, so no send.
var errLateAdmission = fmt.Errorf("mail admission acknowledged late: %w", context.DeadlineExceeded)

// chargeWrites reads the budgets' places, checks them in order, and
// returns the conditional writes that claim one free place of each, for a
// caller to commit alone or with its own writes.
func (s *Service) chargeWrites(ctx context.Context, now time.Time, budgets ...budget) ([]store.Write, admission, error) {
	writes := make([]store.Write, 0, len(budgets))
	var adm admission
	// The budgets are read in parallel, within one admission deadline,
	// and checked in order.
	lists := make([][]store.Record, len(budgets))
	errs := make([]error, len(budgets))
	var wg sync.WaitGroup
	for i, b := range budgets {
		wg.Go(func() { lists[i], errs[i] = s.st.List(ctx, kindAdmission, b.key+"/", "", 1000) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, admission{}, err
	}
	for i, b := range budgets {
		taken := lists[i]
		live, hour := 0, 0
		free := map[string]store.Record{}
		for _, p := range taken {
			var at time.Time
			if jsonValue(p, &at) != nil || !at.After(now.Add(-b.window())) {
				free[p.Key] = p // its send left the window
				continue
			}
			live++
			if at.After(now.Add(-time.Hour)) {
				hour++
			}
		}
		if (b.hourly > 0 && hour >= b.hourly) || (b.daily > 0 && live >= b.daily) || live >= b.places() {
			return nil, admission{}, &errBudget{b}
		}
		candidates := reservation.FreePlaces(b.key, b.places(), taken, free)
		if len(candidates) == 0 {
			return nil, admission{}, &errBudget{b}
		}
		// Sends spread over the free places so that parallel ones rarely
		// claim the same record.
		key := candidates[int(s.spread.Add(1))%len(candidates)]
		w := upsert(kindAdmission, key, now, free[key].Version, now)
		writes = append(writes, w)
		claimed := w.Record
		claimed.Version++
		adm.places = append(adm.places, claimed)
	}
	return writes, adm, nil
}

// refund gives back places claimed for a send known not to have been
// used: it was refused before it left, or never attempted.
func (s *Service) refund(ctx context.Context, a admission, now time.Time) {
	for _, p := range a.places {
		if err := s.st.Delete(ctx, kindAdmission, p.Key, p.Version); err != nil {
			// Keeping a charge is the safe side of a failed refund.
			s.log.WarnContext(ctx, "refund admission", "budget_kind", budgetKind(p.Key), "err", err)
		}
	}
}

// admitted counts the sends a budget admitted within its window.
func (s *Service) admitted(ctx context.Context, now time.Time, b budget) (int, error) {
	taken, err := s.st.List(ctx, kindAdmission, b.key+"/", "", 1000)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range taken {
		var at time.Time
		if jsonValue(p, &at) == nil && at.After(now.Add(-b.window())) {
			n++
		}
	}
	return n, nil
}

// budgetKind names a budget without its keyed part, for logs.
func budgetKind(key string) string {
	for i, r := range key {
		if r == '/' {
			return key[:i]
		}
	}
	return key
}

// Budgets of booking codes and cancellation codes, kept apart so a
// stranger exhausting one cannot exhaust the other.
func (s *Service) groupBookingBudget(set Settings) budget {
	return budget{key: "book-group", hourly: set.Group.EmailHourly, daily: set.Group.EmailDaily, refusal: "paused"}
}

func (s *Service) mailboxBudget(mailboxKey string) budget {
	return budget{key: "book-mailbox/" + mailboxKey, hourly: mailboxHourly, daily: mailboxDaily, refusal: "contact"}
}

func (s *Service) locationBudget(set Settings, slug string) budget {
	return budget{key: "book-location/" + slug, hourly: set.Locations[slug].EmailHourly, refusal: "paused"}
}

func (s *Service) cancelGroupBudget(set Settings) budget {
	return budget{key: "cancel-group", daily: set.Group.CancelDaily, refusal: "cancel"}
}

func (s *Service) cancelReferenceBudget(ref string) budget {
	return budget{key: "cancel-reference/" + ref, daily: cancelReferenceDaily, refusal: "cancel"}
}
