package booking

import (
	"context"
	"errors"
	"slices"
	"time"

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

// sends are the admitted send times of one budget in the last 24 hours.
type sends struct {
	Times []time.Time `json:"times"`
}

func (s *sends) trim(now time.Time) {
	s.Times = slices.DeleteFunc(s.Times, func(t time.Time) bool { return !t.After(now.Add(-24 * time.Hour)) })
}

func (s sends) within(now time.Time, d time.Duration) int {
	n := 0
	for _, t := range s.Times {
		if t.After(now.Add(-d)) {
			n++
		}
	}
	return n
}

// errBudget says which budget was full.
type errBudget struct{ b budget }

func (e *errBudget) Error() string { return "budget full: " + e.b.key }

// admission is what was charged, so a known-unused charge can be refunded.
type admission struct {
	keys []string
	at   time.Time
}

// admit charges one send to every budget in one transaction, checking them
// in order so the first full budget decides the answer: group budgets are
// listed before mailbox budgets, so a globally exhausted budget never
// reveals a mailbox's activity. Nothing is charged when any is full.
func (s *Service) admit(ctx context.Context, now time.Time, budgets ...budget) (admission, error) {
	for range maxCASAttempts {
		writes, adm, err := s.chargeWrites(ctx, now, budgets...)
		if err != nil {
			return admission{}, err
		}
		_, err = s.st.Apply(ctx, writes)
		var we *store.WriteError
		if errors.As(err, &we) {
			continue // another send was admitted meanwhile: re-read
		}
		if err != nil {
			return admission{}, err
		}
		return adm, nil
	}
	return admission{}, store.ErrConflict
}

// chargeWrites reads the budgets, checks them in order, and returns the
// conditional writes that charge one send to each, for a caller to commit
// alone or with its own writes.
func (s *Service) chargeWrites(ctx context.Context, now time.Time, budgets ...budget) ([]store.Write, admission, error) {
	writes := make([]store.Write, 0, len(budgets))
	adm := admission{at: now}
	for _, b := range budgets {
		cur, version, err := getJSON[sends](ctx, s.st, kindAdmission, b.key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, admission{}, err
		}
		cur.trim(now)
		if (b.hourly > 0 && cur.within(now, time.Hour) >= b.hourly) || (b.daily > 0 && cur.within(now, 24*time.Hour) >= b.daily) {
			return nil, admission{}, &errBudget{b}
		}
		cur.Times = append(cur.Times, now)
		op := store.OpSwap
		if version == 0 {
			op = store.OpCreate
		}
		writes = append(writes, store.Write{Op: op, Record: record(kindAdmission, b.key, cur, version, now)})
		adm.keys = append(adm.keys, b.key)
	}
	return writes, adm, nil
}

// refund removes a charge that is known not to have been used: the send
// was refused before it left, or never attempted.
func (s *Service) refund(ctx context.Context, a admission, now time.Time) {
	for _, key := range a.keys {
		_, err := update(ctx, s.st, kindAdmission, key, now, func(v *sends) error {
			i := slices.IndexFunc(v.Times, func(t time.Time) bool { return t.Equal(a.at) })
			if i < 0 {
				return errStop
			}
			v.Times = slices.Delete(v.Times, i, i+1)
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			// Keeping a charge is the safe side of a failed refund.
			s.log.WarnContext(ctx, "refund admission", "budget_kind", budgetKind(key), "err", err)
		}
	}
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
func (s *Service) groupBookingBudget() budget {
	return budget{key: "book-group", hourly: s.cfg.Limits.PortfolioEmailHourly, daily: s.cfg.Limits.PortfolioEmailDaily, refusal: "paused"}
}

func (s *Service) mailboxBudget(mailboxKey string) budget {
	return budget{key: "book-mailbox/" + mailboxKey, hourly: mailboxHourly, daily: mailboxDaily, refusal: "contact"}
}

func (s *Service) locationBudget(slug string) budget {
	return budget{key: "book-location/" + slug, hourly: s.cfg.Limits.LocationEmailHourly, refusal: "paused"}
}

func (s *Service) cancelGroupBudget() budget {
	return budget{key: "cancel-group", daily: s.cfg.Limits.CancelPortfolioDaily, refusal: "cancel"}
}

func (s *Service) cancelReferenceBudget(ref string) budget {
	return budget{key: "cancel-reference/" + ref, daily: cancelReferenceDaily, refusal: "cancel"}
}
