package reservation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/store"
)

// errRefused is a consumer's failure that no pass mends, such as the ORP
// host refusing a refund conversion as invalid.
var errRefused = errors.New("orp: invalid: the refund names no sale")

// sideline is a relay on st whose consumer "audit" records what it is
// handed, as seen does, but fails with fails(e) for the events of
// reference bad; its clock, set-aside counts and log are the test's.
type sideline struct {
	t     *testing.T
	st    store.Store
	desk  *Desk
	clock *clock.Fixed
	log   *bytes.Buffer
	mu    sync.Mutex
	count map[string]int // events set aside, by consumer: the metric
}

func newSideline(t *testing.T, st store.Store, clk *clock.Fixed, bad string, fails func() error) *sideline {
	s := &sideline{t: t, st: st, desk: NewDesk(st), clock: clk, log: &bytes.Buffer{}, count: map[string]int{}}
	var logMu sync.Mutex
	s.desk.Outbox(OutboxOptions{Clock: clk, Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, s.log}, nil)), SetAside: func(c string) {
		s.mu.Lock()
		s.count[c]++
		s.mu.Unlock()
	}})
	record := seen("seen")
	s.desk.Consume("audit", func(ctx context.Context, e StoredEvent) ([]store.Write, error) {
		if e.Reference == bad {
			if err := fails(); err != nil {
				return nil, err
			}
		}
		return record(ctx, e)
	})
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// book creates request ref, so the outbox holds its event.
func (s *sideline) book(ref string) {
	s.t.Helper()
	if _, err := s.desk.Create(context.Background(), New{Kind: KindRequest, Reference: ref, Unit: double, Slots: nights, Source: SourceChat, At: now}); err != nil {
		s.t.Fatal(err)
	}
}

// pass is one relay pass a spacing after the last.
func (s *sideline) pass() error {
	s.clock.Advance(failureSpacing)
	return s.desk.Relay(context.Background())
}

func (s *sideline) cursor() int64 {
	s.t.Helper()
	cur, err := s.desk.position(context.Background(), kindEventCursor, "audit")
	if err != nil {
		s.t.Fatal(err)
	}
	return cur.pos
}

func (s *sideline) setAside() []Failure {
	s.t.Helper()
	fs, err := s.desk.SetAsideEvents(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return fs
}

func (s *sideline) metric() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count["audit"]
}

// seenOf is what the consumer took in, as "reference@position".
func seenOf(t *testing.T, st store.Store) []string {
	var out []string
	for _, s := range seenList(t, st, "seen") {
		ref, rest, _ := strings.Cut(s, "/")
		out = append(out, ref+"@"+rest[strings.Index(rest, "@")+1:])
	}
	return out
}

// TestFailingEventIsSetAside: a consumer that fails on one event (RIV-1)
// and not on the others gets it set aside at its fifth counted failure;
// the events after it, held until then, are delivered in the same pass;
// the cursor is past it; the record says what failed, how often and
// when, and nothing of the guest; the metric counts one and the log has
// one warning at the first failure and one error at the setting aside.
// Without the setting aside, RIV-2 and RIV-3 are never delivered.
func TestFailingEventIsSetAside(t *testing.T) {
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := newSideline(t, open(t), clock.NewFixed(now), "RIV-1", func() error { return errRefused })
			for _, ref := range []string{"RIV-0", "RIV-1", "RIV-2", "RIV-3"} {
				s.book(ref)
			}
			first := s.clock.Now().Add(failureSpacing)
			for i := 1; i < setAsideAttempts; i++ {
				err := s.pass()
				if ee, ok := errors.AsType[*EventError](err); !ok || ee.Position != 2 || ee.Attempts != i || !errors.Is(err, errRefused) {
					t.Fatalf("pass %d = %v, want the failure of event 2 at attempt %d", i, err, i)
				}
				if got, want := seenOf(t, s.st), []string{"RIV-0@1"}; !slices.Equal(got, want) {
					t.Fatalf("pass %d: consumer saw %q, want %q", i, got, want)
				}
			}
			err := s.pass()
			if got, want := seenOf(t, s.st), []string{"RIV-0@1", "RIV-2@3", "RIV-3@4"}; !slices.Equal(got, want) {
				t.Fatalf("consumer saw %q, want %q", got, want)
			}
			if err != nil {
				t.Fatalf("the pass that sets the event aside = %v", err)
			}
			if got := s.cursor(); got != 4 {
				t.Fatalf("cursor = %d, want 4", got)
			}
			got := s.setAside()
			want := Failure{Consumer: "audit", Position: 2, Reference: "RIV-1", Error: errRefused.Error(), Attempts: setAsideAttempts,
				First: first, Last: s.clock.Now(), Event: StoredEvent{Position: 2, Reference: "RIV-1", Version: 1, To: Requested, Change: ChangeCreated,
					At: now, Location: "riverside", Unit: "double", Slots: nights, Source: SourceChat}}
			if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
				t.Fatalf("set aside %+v, want [%+v]", got, want)
			}
			if n := s.metric(); n != 1 {
				t.Fatalf("set-aside metric = %d, want 1", n)
			}
			if _, err := s.st.Get(context.Background(), kindOutboxFailing, "audit"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the failing record after the setting aside: %v, want none", err)
			}
			log := s.log.String()
			if strings.Count(log, "level=WARN") != 1 || strings.Count(log, "level=ERROR") != 1 || !strings.Contains(log, "set aside") {
				t.Fatalf("log:\n%s\nwant one warning and one error", log)
			}
			// A later pass finds nothing to do and sets nothing more aside.
			if err := s.pass(); err != nil || len(s.setAside()) != 1 || s.metric() != 1 {
				t.Fatalf("a pass after = %v, set aside %d, metric %d", err, len(s.setAside()), s.metric())
			}
		})
	}
}

// TestFailuresCountOncePerSpacing: serve relays after every commit, so a
// burst of passes within failureSpacing counts one failure, and logs it
// once; the event is never set aside by a burst.
func TestFailuresCountOncePerSpacing(t *testing.T) {
	s := newSideline(t, openStore(t), clock.NewFixed(now), "RIV-1", func() error { return errRefused })
	s.book("RIV-1")
	s.book("RIV-2")
	for range 3 * setAsideAttempts {
		err := s.desk.Relay(context.Background())
		if ee, ok := errors.AsType[*EventError](err); !ok || ee.Attempts != 1 {
			t.Fatalf("relay = %v, want the first failure, counted once", err)
		}
		s.clock.Advance(time.Second)
	}
	if n := len(s.setAside()); n != 0 || s.cursor() != 0 {
		t.Fatalf("a burst set %d aside, cursor %d", n, s.cursor())
	}
	if n := strings.Count(s.log.String(), "\n"); n != 1 {
		t.Fatalf("log has %d lines, want 1:\n%s", n, s.log)
	}
}

// TestOutageIsNeverSetAside: errors that say the store is out (a read
// past its deadline, a desk error of CodeUnavailable) are retried at
// every pass, however many, and never counted nor set aside; once the
// store answers, the event is delivered in order.
func TestOutageIsNeverSetAside(t *testing.T) {
	tests := []struct {
		name string
		err  func(st store.Store) error
	}{
		{"a read past its deadline", func(st store.Store) error {
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			defer cancel()
			_, err := st.Get(ctx, "referral.booking", "RIV-1")
			return fmt.Errorf("read attribution: %w", err)
		}},
		{"the desk's unavailable", func(store.Store) error {
			return fail(CodeUnavailable, "The reservation's records could not be read.", errors.New("connection reset"))
		}},
	}
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					st := open(t)
					out := true
					s := newSideline(t, st, clock.NewFixed(now), "RIV-1", func() error {
						if out {
							return tt.err(st)
						}
						return nil
					})
					s.book("RIV-1")
					s.book("RIV-2")
					for i := range 4 * setAsideAttempts {
						err := s.pass()
						if err == nil || onlyEventErrors(err) {
							t.Fatalf("pass %d = %v, want an outage", i, err)
						}
					}
					if n := len(s.setAside()); n != 0 || s.cursor() != 0 || s.metric() != 0 {
						t.Fatalf("an outage set %d aside (metric %d), cursor %d", n, s.metric(), s.cursor())
					}
					if _, err := st.Get(context.Background(), kindOutboxFailing, "audit"); !errors.Is(err, store.ErrNotFound) {
						t.Fatalf("an outage was counted: %v", err)
					}
					out = false
					if err := s.pass(); err != nil {
						t.Fatal(err)
					}
					if got, want := seenOf(t, st), []string{"RIV-1@1", "RIV-2@2"}; !slices.Equal(got, want) {
						t.Fatalf("consumer saw %q, want %q", got, want)
					}
				})
			}
		})
	}
}

// TestSetAsideCountSurvivesRestart: three failures counted by one
// process and two by the next, on the reopened store, set the event
// aside; a restart does not start the count again.
func TestSetAsideCountSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	for engine, reopen := range reopeners(ctx) {
		t.Run(engine, func(t *testing.T) {
			reopen := reopen(t)
			clk := clock.NewFixed(now)
			st := reopen()
			s := newSideline(t, st, clk, "RIV-1", func() error { return errRefused })
			s.book("RIV-1")
			s.book("RIV-2")
			for range 3 {
				s.pass()
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			s = newSideline(t, reopen(), clk, "RIV-1", func() error { return errRefused })
			err := s.pass()
			if ee, ok := errors.AsType[*EventError](err); !ok || ee.Attempts != 4 {
				t.Fatalf("the first pass after the restart = %v, want attempt 4", err)
			}
			if err := s.pass(); err != nil {
				t.Fatal(err)
			}
			if fs := s.setAside(); len(fs) != 1 || fs[0].Attempts != setAsideAttempts {
				t.Fatalf("set aside %+v, want RIV-1 at %d attempts", fs, setAsideAttempts)
			}
			if got, want := seenOf(t, s.st), []string{"RIV-2@2"}; !slices.Equal(got, want) {
				t.Fatalf("consumer saw %q, want %q", got, want)
			}
		})
	}
}

// TestRetrySetAside: a retry while the consumer still fails keeps the
// record with the attempt counted; once the consumer is mended, a retry
// delivers the event once and removes the record; retrying it again, or
// an event never set aside, is ErrNotSetAside and changes nothing.
func TestRetrySetAside(t *testing.T) {
	ctx := context.Background()
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			broken := true
			s := newSideline(t, open(t), clock.NewFixed(now), "RIV-1", func() error {
				if broken {
					return errRefused
				}
				return nil
			})
			s.book("RIV-1")
			s.book("RIV-2")
			for range setAsideAttempts {
				s.pass()
			}
			if n := len(s.setAside()); n != 1 {
				t.Fatalf("set aside %d, want 1", n)
			}

			s.clock.Advance(time.Minute)
			err := s.desk.RetrySetAside(ctx, "audit", 1)
			if ee, ok := errors.AsType[*EventError](err); !ok || !errors.Is(err, errRefused) || ee.Attempts != setAsideAttempts+1 {
				t.Fatalf("retry while still failing = %v", err)
			}
			if fs := s.setAside(); len(fs) != 1 || fs[0].Attempts != setAsideAttempts+1 || !fs[0].Last.Equal(s.clock.Now()) {
				t.Fatalf("after a failed retry: %+v", fs)
			}

			for _, bad := range []struct {
				consumer string
				pos      int64
			}{{"audit", 2}, {"audit", 99}, {"nobody", 1}} {
				if err := s.desk.RetrySetAside(ctx, bad.consumer, bad.pos); !errors.Is(err, ErrNotSetAside) {
					t.Fatalf("retry of %s %d = %v, want ErrNotSetAside", bad.consumer, bad.pos, err)
				}
			}
			if fs := s.setAside(); len(fs) != 1 || fs[0].Attempts != setAsideAttempts+1 {
				t.Fatalf("a refused retry changed the record: %+v", fs)
			}

			broken = false
			if err := s.desk.RetrySetAside(ctx, "audit", 1); err != nil {
				t.Fatal(err)
			}
			if got, want := seenOf(t, s.st), []string{"RIV-1@1", "RIV-2@2"}; !slices.Equal(got, want) {
				t.Fatalf("consumer saw %q, want %q", got, want)
			}
			if fs := s.setAside(); len(fs) != 0 {
				t.Fatalf("still set aside after a retry: %+v", fs)
			}
			if err := s.desk.RetrySetAside(ctx, "audit", 1); !errors.Is(err, ErrNotSetAside) {
				t.Fatalf("a second retry = %v, want ErrNotSetAside", err)
			}
			if err := s.pass(); err != nil || len(seenOf(t, s.st)) != 2 {
				t.Fatalf("a pass after the retry = %v, saw %q", err, seenOf(t, s.st))
			}
		})
	}
}

// TestConcurrentRelaysSetAsideOnce: several relays pass at once over an
// event at its last attempt: it is set aside once, counted once, and
// every later event is delivered once (a second delivery is a refused
// create, which a relay would report).
func TestConcurrentRelaysSetAsideOnce(t *testing.T) {
	const relays, rounds = 4, 3
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			for round := range rounds {
				s := newSideline(t, open(t), clock.NewFixed(now), "RIV-1", func() error { return errRefused })
				for i := range 6 {
					s.book(fmt.Sprintf("RIV-%d", i))
				}
				for range setAsideAttempts - 1 {
					s.pass()
				}
				s.clock.Advance(failureSpacing)
				var wg sync.WaitGroup
				errs := make(chan error, relays)
				start := make(chan struct{})
				for range relays {
					wg.Go(func() {
						<-start
						if err := s.desk.Relay(context.Background()); err != nil && !onlyEventErrors(err) {
							errs <- err
						}
					})
				}
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatalf("round %d: %v", round, err)
				}
				if err := s.desk.Relay(context.Background()); err != nil {
					t.Fatal(err)
				}
				if fs := s.setAside(); len(fs) != 1 || s.metric() != 1 {
					t.Fatalf("round %d: set aside %d, metric %d, want 1 and 1", round, len(fs), s.metric())
				}
				if got, want := seenOf(t, s.st), []string{"RIV-0@1", "RIV-2@3", "RIV-3@4", "RIV-4@5", "RIV-5@6"}; !slices.Equal(got, want) {
					t.Fatalf("round %d: consumer saw %q, want %q", round, got, want)
				}
			}
		})
	}
}

// TestRefusedWriteIsAFailure: a consumer's write that the store refuses
// at every commit (a create of a key taken) is a failure of its event
// like an error the consumer returns: counted, then set aside, and the
// events after it are delivered.
func TestRefusedWriteIsAFailure(t *testing.T) {
	ctx := context.Background()
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := newSideline(t, open(t), clock.NewFixed(now), "", func() error { return nil })
			s.book("RIV-1")
			s.book("RIV-2")
			if _, err := s.st.Create(ctx, store.Record{Kind: "seen", Key: pendingKey("RIV-1", 1), Value: []byte("taken"), UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < setAsideAttempts; i++ {
				err := s.pass()
				if ee, ok := errors.AsType[*EventError](err); !ok || ee.Attempts != i || !errors.Is(err, store.ErrExists) {
					t.Fatalf("pass %d = %v, want a counted refusal", i, err)
				}
			}
			if err := s.pass(); err != nil {
				t.Fatal(err)
			}
			if fs := s.setAside(); len(fs) != 1 || fs[0].Position != 1 || !strings.Contains(fs[0].Error, "refused") {
				t.Fatalf("set aside %+v", fs)
			}
			if got, want := seenOf(t, s.st), []string{"RIV-1@taken", "RIV-2@2"}; !slices.Equal(got, want) {
				t.Fatalf("consumer saw %q, want %q", got, want)
			}
		})
	}
}
