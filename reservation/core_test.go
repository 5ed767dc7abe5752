package reservation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/store"
)

// riverside sells the fixture's two doubles.
var riverside = business.Location{Slug: "riverside", Prefix: "RIV", Units: []business.Unit{{Type: "double", Count: 2}}}

func newCore(f *fixture, mail DecisionMail) *Core {
	return NewCore(CoreOptions{Desk: f.desk, Store: f.st, Portfolio: business.Portfolio{Locations: []business.Location{riverside}},
		Clock: clock.NewFixed(now), Rand: bytes.NewReader(bytes.Repeat([]byte{7, 1, 9, 3}, 256)), Mail: mail})
}

// errRaced is what the test attributor's refused write wraps.
var errRaced = errors.New("test: the attribution's records moved")

// racingAttributor records each attribution it draws; for the first
// races draws another writer stores that record first, as a partner's
// inbox moving under the booking.
type racingAttributor struct {
	st    store.Store
	races int
	drawn int
}

func (a *racingAttributor) Addition(ctx context.Context, m Mark, ref string, total int64, door Source, at time.Time) (Addition, error) {
	if m.Empty() {
		return Addition{}, nil
	}
	a.drawn++
	rec := store.Record{Kind: "test-attribution", Key: fmt.Sprintf("draw-%d", a.drawn), Value: []byte(`{}`), UpdatedAt: at}
	if a.drawn <= a.races {
		if _, err := a.st.Create(ctx, rec); err != nil {
			return Addition{}, err
		}
	}
	return Records(errRaced, store.Write{Op: store.OpCreate, Record: rec}), nil
}

// TestBookDrawsARacedAttributionAgain: a booking whose attribution the
// store refuses is drawn again with a fresh attribution, and stored once
// it commits; a booking that names an unsold unit stores nothing.
func TestBookDrawsARacedAttributionAgain(t *testing.T) {
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, open(t))
			c := newCore(f, nil)
			a := &racingAttributor{st: f.st, races: 2}
			c.UseAttribution(a)
			r, err := c.Book(ctx, BookRequest{Location: "riverside", Unit: "double", Slots: nights, Source: SourceForm, By: "guest",
				Kind: KindBooking, Referral: Mark{Click: "c1"}})
			if err != nil {
				t.Fatal(err)
			}
			if a.drawn != 3 || r.Reference == "" || f.get(r.Reference).State != Reserved {
				t.Fatalf("drawn %d, booked %+v", a.drawn, r)
			}
			if _, err := f.st.Get(ctx, "test-attribution", "draw-3"); err != nil {
				t.Fatalf("the attribution that committed: %v", err)
			}
			if _, err := c.Book(ctx, BookRequest{Location: "riverside", Unit: "suite", Slots: nights, Source: SourceForm}); ErrorCode(err) != CodeInternal {
				t.Fatalf("an unsold unit = %v, want internal", err)
			}
			if got := f.held(); got != 1 {
				t.Fatalf("%d units held, want the booking's one", got)
			}
		})
	}
}

// queuedMail queues one record per decision; its record may exist
// already, as the mail of an earlier decision to the same state.
type queuedMail struct {
	st    store.Store
	quiet []bool
	sent  int
}

var errMailExists = errors.New("test: this decision's mail exists")

func (m *queuedMail) DecisionMail(_ context.Context, read Reservation, to State, quiet bool, now time.Time) (Addition, func(context.Context) bool, error) {
	m.quiet = append(m.quiet, quiet)
	if quiet {
		return Addition{}, func(context.Context) bool { return false }, nil
	}
	rec := store.Record{Kind: "test-mail", Key: read.Reference + "/" + string(to), Value: []byte(`{}`), UpdatedAt: now}
	return Records(errMailExists, store.Write{Op: store.OpCreate, Record: rec}), func(context.Context) bool { m.sent++; return true }, nil
}

// TestDecideWithoutMailWhenItsMailExists: a decision whose mail is
// refused because it exists already decides again without mail rather
// than lose the decision; a decision taken from a state the reservation
// left is ErrAnswered, and one out of the caller's sight
// ErrNoReservation.
func TestDecideWithoutMailWhenItsMailExists(t *testing.T) {
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, open(t))
			m := &queuedMail{st: f.st}
			c := newCore(f, m)
			r := f.must(KindBooking)
			if _, err := f.st.Create(ctx, store.Record{Kind: "test-mail", Key: r.Reference + "/" + string(Confirmed), Value: []byte(`{}`), UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			moved, mailed, err := c.Decide(ctx, Decision{Reference: r.Reference, To: Confirmed, By: "ann"})
			if err != nil || moved.State != Confirmed || mailed {
				t.Fatalf("decide = %+v, mailed %v, %v", moved, mailed, err)
			}
			if len(m.quiet) != 2 || m.quiet[0] || !m.quiet[1] {
				t.Fatalf("mail asked for %v, want loud then quiet", m.quiet)
			}
			if _, _, err := c.Decide(ctx, Decision{Reference: r.Reference, To: Cancelled, From: Reserved}); !errors.Is(err, ErrAnswered) {
				t.Fatalf("a decision from a state left = %v, want ErrAnswered", err)
			}
			hidden := func(string) bool { return false }
			if _, _, err := c.Decide(ctx, Decision{Reference: r.Reference, To: Cancelled, Visible: hidden}); !errors.Is(err, ErrNoReservation) {
				t.Fatalf("a hidden reservation = %v, want ErrNoReservation", err)
			}
			if got := f.get(r.Reference); got.State != Confirmed {
				t.Fatalf("refused decisions changed the reservation: %+v", got)
			}
		})
	}
}

// References drawn by many bookings at once never repeat, even when the
// random source handed in is a seeded generator that is not safe for
// concurrent use (a concurrent USP hold once drew a reference twice).
func TestReferencesDrawnConcurrentlyAreDistinct(t *testing.T) {
	c := NewCore(CoreOptions{Rand: mrand.NewChaCha8([32]byte{1})})
	const workers, draws = 8, 1000
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range draws {
				ref, err := c.NewReference(riverside)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[ref] {
					t.Errorf("reference %s drawn twice", ref)
				}
				seen[ref] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
