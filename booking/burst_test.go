package booking

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/pgtest"
	"frontdesk/message"
	"frontdesk/postgres"
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
// and returns their refusals by first sentence ("" for a code sent).
func burst(w *world, n int, stay func(i int) Args) map[string]int {
	return parallel(n, func(i int) string {
		_, err := w.start(context.Background(), web, stay(i))
		return firstSentence(refusalText(err))
	})
}

// TestBurstGroupHourly: thirty starts at once against the worked group
// ceiling of eight codes an hour send exactly eight codes, on both
// engines; the other starts are told chat booking is paused.
func TestBurstGroupHourly(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := burstWorld(t, engine, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
			answers := burst(w, 30, func(i int) Args { return stayArgs("email", fmt.Sprintf("b%d@example.com", i)) })
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
			answers := burst(w, 12, func(i int) Args {
				return stayArgs("checkin", fmt.Sprintf("2027-02-%02d", i+1), "checkout", fmt.Sprintf("2027-02-%02d", i+2))
			})
			if answers[""] != 3 || answers["This stay cannot be booked in chat."] != 9 {
				t.Fatalf("answers %v, want 3 codes and 9 contact refusals", answers)
			}
			if got := len(w.messages()); got != 3 {
				t.Fatalf("%d codes mailed, want 3", got)
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
			burst(w, 30, func(i int) Args { return stayArgs("email", fmt.Sprintf("r%d@example.com", i)) })
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
				answers := parallel(len(starts), func(i int) string {
					conf, err := w.confirm(ctx, web, args("booking_id", starts[i].id, "code", starts[i].code))
					if err == nil {
						mu.Lock()
						perLocation[conf.Property]++
						mu.Unlock()
					}
					return firstSentence(refusalText(err))
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
			answers := parallel(len(refs), func(i int) string {
				_, got := cancelStep1(w, refs[i])
				return got
			})
			if answers[""] != 5 || answers[notInChat] != 7 {
				t.Fatalf("answers %v, want 5 codes and 7 refusals", answers)
			}
			if got := len(w.messages()) - before; got != 5 {
				t.Fatalf("%d cancellation codes mailed, want 5", got)
			}
		})
	}
}
