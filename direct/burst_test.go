package direct

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/pgtest"
	"frontdesk/message"
	"frontdesk/postgres"
	"frontdesk/store"
)

// burstWorld is the demo with edit on the named engine.
func burstWorld(t *testing.T, engine string, edit ...func(*config.Config)) *world {
	t.Helper()
	base := newWorld(t, edit...)
	if engine == "sqlite" {
		return base
	}
	st, err := postgres.Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newWorldOn(t, base.cfg, st)
}

// burst runs n starts at once, start i with the arguments of stay(i),
// and returns their answers by first sentence ("" for a code sent), as
// settled counts them.
func burst(t *testing.T, w *world, n int, stay func(i int) Args) map[string]int {
	t.Helper()
	return settled(t, n, func(i int) error {
		_, err := w.start(context.Background(), web, stay(i))
		return err
	})
}

// settled runs call n times at once and counts the answers by first
// sentence ("" for a success). On a loaded machine a store request of
// the burst can outlast its worksheet limit (the 2-second settings read
// waiting for a pooled connection behind the burst's other reads, say),
// and that call is then answered with its outage sentence, as it must
// be. Such a call decided nothing, so it is retried once, alone, as the
// guest would retry, and the retry's answer is the one counted: the
// totals stay exact about the ceilings. Only a refusal caused by a
// passed deadline is retried, only if it is worded as an outage (a
// limit's wording with a deadline behind it fails the test), and at most
// half of a burst may be, so that the burst still decides in parallel.
func settled(t *testing.T, n int, call func(i int) error) map[string]int {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = call(i) })
	}
	wg.Wait()
	answers := map[string]int{}
	var late []int
	for i, err := range errs {
		if ranOutOfTime(t, err) {
			late = append(late, i)
			continue
		}
		answers[firstSentence(refusalText(err))]++
	}
	if len(late) > n/2 {
		t.Fatalf("%d of %d calls ran out of time, more than half the burst: %v", len(late), n, errs[late[0]])
	}
	for _, i := range late {
		t.Logf("call %d of %d ran out of time under load (%v); retried alone", i, n, errors.Unwrap(errs[i]))
		answers[firstSentence(refusalText(call(i)))]++
	}
	return answers
}

// outageCodes are the answers a door gives when the store or the mail
// did not answer in time: what a deadline that passed may be worded as.
var outageCodes = []Code{CodeCannotCheck, CodeOutcomeUnknown, CodeCancelNotInChat, CodeLookupDown}

// ranOutOfTime reports whether err is an outage answer caused by a
// deadline that passed, and fails t when a deadline is worded as
// anything but an outage.
func ranOutOfTime(t *testing.T, err error) bool {
	t.Helper()
	r, ok := AsError(err)
	if !ok || !errors.Is(r.Err, context.DeadlineExceeded) {
		return false
	}
	if !slices.Contains(outageCodes, r.Code) {
		t.Fatalf("a passed deadline answered as %s (%q), not as an outage: %v", r.Code, refusalText(err), r.Err)
	}
	return true
}

// TestBurstGroupHourly: thirty starts at once against the worked group
// ceiling of eight codes an hour send exactly eight codes, on both
// engines; the other starts are told chat booking is paused.
func TestBurstGroupHourly(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := burstWorld(t, engine, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
			answers := burst(t, w, 30, func(i int) Args { return stayArgs("email", fmt.Sprintf("b%d@example.com", i)) })
			if answers[""] != 8 || answers["Chat booking is briefly paused."] != 22 {
				t.Fatalf("answers %v, want 8 codes and 22 pauses", answers)
			}
			if got := len(w.messages()); got != 8 {
				t.Fatalf("%d codes mailed, want 8", got)
			}
			if got := admitted(t, w, "book-group"); got != 8 {
				t.Fatalf("group admissions = %d, want 8", got)
			}
		})
	}
}

// TestBurstOneMailbox: twelve different starts at once to one address
// send exactly the three codes a mailbox gets an hour.
func TestBurstOneMailbox(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := burstWorld(t, engine, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
			answers := burst(t, w, 12, func(i int) Args {
				return stayArgs("checkin", fmt.Sprintf("2027-02-%02d", i+1), "checkout", fmt.Sprintf("2027-02-%02d", i+2))
			})
			if answers[""] != 3 || answers["This stay cannot be booked in chat."] != 9 {
				t.Fatalf("answers %v, want 3 codes and 9 contact refusals", answers)
			}
			if got := len(w.messages()); got != 3 {
				t.Fatalf("%d codes mailed, want 3", got)
			}
			if got := admitted(t, w, "book-group"); got != 3 {
				t.Fatalf("group admissions = %d, want the 3 codes mailed", got)
			}
		})
	}
}

// failingSends refuses every other send as the mail server refusing the
// recipient would: known not sent, so its charge goes back.
type failingSends struct {
	*faultyMail
	n atomic.Int64
}

func (f *failingSends) Send(ctx context.Context, e message.Email) error {
	if f.n.Add(1)%2 == 0 {
		return fmt.Errorf("550 no such mailbox: %w", errors.Join(message.ErrNotSent, message.ErrRecipientRefused))
	}
	return f.faultyMail.Send(ctx, e)
}

// TestBurstRefundsExactly: with every other send failing, a burst charges
// the group exactly the codes that left, and the starts after it fill
// the ceiling to exactly eight codes.
func TestBurstRefundsExactly(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := burstWorld(t, engine, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
			fs := &failingSends{faultyMail: w.mail}
			w.svc.mail = fs
			burst(t, w, 30, func(i int) Args { return stayArgs("email", fmt.Sprintf("r%d@example.com", i)) })
			if sent, got := len(w.messages()), admitted(t, w, "book-group"); got != sent {
				t.Fatalf("group admissions = %d after %d codes left, want them equal", got, sent)
			}
			w.svc.mail = w.mail
			for i := 0; len(w.messages()) < 8 && i < 30; i++ {
				if _, err := w.start(context.Background(), web, stayArgs("email", fmt.Sprintf("s%d@example.com", i))); err != nil {
					t.Fatalf("start %d below the ceiling: %s", i, refusalText(err))
				}
			}
			_, err := w.start(context.Background(), web, stayArgs("email", "last@example.com"))
			if got := len(w.messages()); got != 8 || !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused.") {
				t.Fatalf("%d codes and then %q, want 8 and the pause", got, refusalText(err))
			}
		})
	}
}

// TestBurstPendingCeilings: twelve confirmations at once at two
// locations leave exactly as many reservations awaiting staff as the
// ceilings allow, on both engines.
func TestBurstPendingCeilings(t *testing.T) {
	for _, engine := range engines {
		for _, tc := range []struct {
			name         string
			local, group int
		}{{"local", 3, 8}, {"group", 3, 4}} {
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				w := burstWorld(t, engine, func(c *config.Config) {
					c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 100, 100, 100
					c.Limits.LocationPending, c.Limits.PortfolioPending = tc.local, tc.group
				})
				ctx := context.Background()
				type pending struct{ id, code string }
				var starts []pending
				for i := range 6 {
					for _, prop := range []string{"riverside", "oldtown"} {
						email := fmt.Sprintf("p%d-%s@example.com", i, prop)
						res, err := w.start(ctx, web, stayArgs("property", prop, "roomtype", "single", "email", email,
							"checkin", fmt.Sprintf("2027-0%d-10", i+1), "checkout", fmt.Sprintf("2027-0%d-11", i+1)))
						if err != nil {
							t.Fatal(refusalText(err))
						}
						starts = append(starts, pending{res.BookingID, w.lastCode(email)})
					}
				}
				var mu sync.Mutex
				perLocation := map[string]int{}
				answers := settled(t, len(starts), func(i int) error {
					conf, err := w.confirm(ctx, web, args("booking_id", starts[i].id, "code", starts[i].code))
					if err == nil {
						mu.Lock()
						perLocation[conf.Property]++
						mu.Unlock()
					}
					return err
				})
				want := min(tc.group, 2*tc.local)
				if answers[""] != want || answers["Chat booking is briefly paused while staff confirm existing reservations."] != len(starts)-want {
					t.Fatalf("answers %v, want %d reservations and the rest paused", answers, want)
				}
				for loc, n := range perLocation {
					if n > tc.local {
						t.Errorf("%s holds %d pending, over the local ceiling %d", loc, n, tc.local)
					}
				}
				if n, err := w.svc.pendingCounts(ctx, w.clock.Now(), "riverside"); err != nil || n.group != want {
					t.Fatalf("pending counted = %+v, %v; want %d in the group", n, err, want)
				}
			})
		}
	}
}

// TestBurstCancellationGroup: twelve first cancellation steps at once, of
// twelve reservations, against the worked group ceiling of five
// cancellation codes a day send exactly five codes, on both engines.
func TestBurstCancellationGroup(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := burstWorld(t, engine, func(c *config.Config) {
				c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 100, 100, 100
				c.Limits.LocationPending, c.Limits.PortfolioPending = 100, 100
				c.Limits.CancelPortfolioDaily = 5
			})
			refs := make([]string, 12)
			for i := range refs {
				refs[i] = w.book(stayArgs("email", fmt.Sprintf("c%d@example.com", i),
					"checkin", fmt.Sprintf("2026-12-%02d", 10+i), "checkout", fmt.Sprintf("2026-12-%02d", 11+i)))
			}
			before := len(w.messages())
			answers := settled(t, len(refs), func(i int) error {
				_, err := w.cancel(context.Background(), web, args("reservation_number", refs[i], "phone_last4", "0199"))
				return err
			})
			if answers[""] != 5 || answers[firstSentence(notInChat)] != 7 {
				t.Fatalf("answers %v, want 5 codes and 7 refusals", answers)
			}
			if got := len(w.messages()) - before; got != 5 {
				t.Fatalf("%d cancellation codes mailed, want 5", got)
			}
		})
	}
}

// TestReadPastItsDeadlineIsAnOutage: a start whose settings read or
// availability read outlasts its limit, as the burst tests' reads can
// on a loaded machine, is answered with the outage sentence and a passed
// deadline as its cause, never with a limit's sentence, even when the
// mailbox's budget has one code left; and it charges nothing, so the
// next start sends that code and the one after it gets the mailbox's
// refusal.
func TestReadPastItsDeadlineIsAnOutage(t *testing.T) {
	for _, engine := range engines {
		for _, tc := range []struct {
			name string
			kind string // the record kind whose read is slow
		}{{"settings", kindSettings}, {"availability", "index"}} {
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				// The slow read outlasts its deadline threefold; the other
				// reads, real ones on a busy machine, finish well inside it.
				slow := &slowStore{delay: 3 * time.Second, only: func(kind string) bool { return kind == tc.kind }}
				w := slowWorldOn(t, engine, slow, Deadlines{Policy: time.Second, Inventory: time.Second})
				ctx := context.Background()
				stay := func(day int) Args {
					return stayArgs("checkin", fmt.Sprintf("2027-02-%02d", day), "checkout", fmt.Sprintf("2027-02-%02d", day+1))
				}
				for day := 1; day <= mailboxHourly-1; day++ {
					if _, err := w.start(ctx, web, stay(day)); err != nil {
						t.Fatalf("start %d below the mailbox limit: %s", day, refusalText(err))
					}
				}
				slow.armed.Store(true)
				_, err := w.start(ctx, web, stay(10))
				slow.armed.Store(false)
				if got := firstSentence(refusalText(err)); got != "This booking cannot be checked right now." {
					t.Fatalf("start with a slow %s read = %q, want the outage sentence", tc.name, refusalText(err))
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("outage caused by %v, want a passed deadline", errors.Unwrap(err))
				}
				if _, err := w.start(ctx, web, stay(11)); err != nil {
					t.Fatalf("start after the outage: %s, want the last code of the hour", refusalText(err))
				}
				_, err = w.start(ctx, web, stay(12))
				if got, want := len(w.messages()), mailboxHourly; got != want || firstSentence(refusalText(err)) != "This stay cannot be booked in chat." {
					t.Fatalf("%d codes and then %q, want %d and the mailbox's refusal", got, refusalText(err), want)
				}
			})
		}
	}
}

// expiringReads is a store on which the first settings reads outlast
// their limit: each waits until its deadline passes, as a read queued
// behind a burst on a loaded machine does.
type expiringReads struct {
	store.Store
	left atomic.Int64
}

func (s *expiringReads) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	if len(keys) > 0 && keys[0].Kind == kindSettings && s.left.Add(-1) >= 0 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Store.GetMany(ctx, keys)
}

// TestBurstWithReadsOutOfTime: when some starts of a burst to one
// mailbox run out of time reading the settings, those starts charge
// nothing, so once retried the burst still sends exactly the mailbox's
// three codes and refuses the rest, on both engines.
func TestBurstWithReadsOutOfTime(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			base := burstWorld(t, engine, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
			st := &expiringReads{Store: base.st}
			st.left.Store(4)
			w := newWorldOn(t, base.cfg, st)
			// The four blocked reads end at this deadline; the others,
			// real reads behind them on a busy machine, need room to
			// finish inside it.
			w.svc.deadlines = Deadlines{Policy: 400 * time.Millisecond}.withDefaults()
			answers := burst(t, w, 12, func(i int) Args {
				return stayArgs("checkin", fmt.Sprintf("2027-02-%02d", i+1), "checkout", fmt.Sprintf("2027-02-%02d", i+2))
			})
			if st.left.Load() >= 0 {
				t.Fatalf("%d settings reads left to run out of time, want every one used", st.left.Load()+1)
			}
			if answers[""] != 3 || answers["This stay cannot be booked in chat."] != 9 {
				t.Fatalf("answers %v, want 3 codes and 9 contact refusals", answers)
			}
			if sent, got := len(w.messages()), admitted(t, w, "book-group"); sent != 3 || got != 3 {
				t.Fatalf("%d codes mailed and %d admitted, want 3 and 3", sent, got)
			}
		})
	}
}
