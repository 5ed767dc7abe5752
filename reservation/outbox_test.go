package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// pending is what the outbox holds unsequenced, in key order.
func (f *fixture) pending() []StoredEvent {
	f.t.Helper()
	recs, err := f.st.List(context.Background(), kindEventPending, "", "", 1000)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []StoredEvent
	for _, rec := range recs {
		var e StoredEvent
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// brief is an event as the tests compare it.
func brief(e StoredEvent) string {
	return fmt.Sprintf("%s/%d %s>%s %s", e.Reference, e.Version, e.From, e.To, e.Change)
}

// TestEveryTransitionStoresOneEvent runs every desk operation on both
// engines: one that commits a transition leaves exactly one event in the
// outbox, door-neutral and at the version stored; one that fails, or is
// no transition, leaves none. The refusals are the negative control: an
// outbox written beside the transaction instead of in it keeps their
// events.
func TestEveryTransitionStoresOneEvent(t *testing.T) {
	ctx := context.Background()
	change := func(r Reservation) Change { return Change{Read: r, By: "staff:ann", At: now, Unit: double} }
	later := now.Add(11 * time.Minute)
	// on sets up a reservation of kind k and runs do on it.
	type op func(*Desk, context.Context, Change) (Reservation, error)
	on := func(k Kind, do op) func(f *fixture) func() error {
		return func(f *fixture) func() error {
			c := change(f.must(k))
			return func() error { _, err := do(f.desk, ctx, c); return err }
		}
	}
	into := func(do func(*Desk, context.Context, Change, State) (Reservation, error), to State) op {
		return func(d *Desk, ctx context.Context, c Change) (Reservation, error) { return do(d, ctx, c, to) }
	}
	made := func(k Kind) func(f *fixture) func() error {
		return func(f *fixture) func() error { return func() error { _, err := f.create(k); return err } }
	}
	tests := []struct {
		name string
		// run sets up (its events are not counted) and returns the
		// operation.
		run  func(f *fixture) func() error
		want []string // the events the operation stored; nil when it fails
	}{
		{"create a request", made(KindRequest), []string{"RIV-1/1 >requested created"}},
		{"create a booking", made(KindBooking), []string{"RIV-1/1 >reserved created"}},
		{"create a confirmed booking", made(KindConfirmed), []string{"RIV-1/1 >confirmed created"}},
		{"create a hold", made(KindHold), []string{"RIV-1/1 >hold created"}},
		{"staff confirm", on(KindBooking, into((*Desk).Decide, Confirmed)), []string{"RIV-1/2 reserved>confirmed state"}},
		{"staff accept a request", on(KindRequest, into((*Desk).Decide, Reserved)), []string{"RIV-1/2 requested>reserved state"}},
		{"staff decline", on(KindBooking, into((*Desk).Decide, Declined)), []string{"RIV-1/2 reserved>declined state"}},
		{"staff mark moved", on(KindConfirmed, into((*Desk).Decide, Moved)), []string{"RIV-1/2 confirmed>moved state"}},
		{"staff mark a no-show", on(KindConfirmed, into((*Desk).Decide, NoShow)), []string{"RIV-1/2 confirmed>no-show state"}},
		{"convert a hold", on(KindHold, into((*Desk).Convert, Confirmed)), []string{"RIV-1/2 hold>confirmed state"}},
		{"release a hold", on(KindHold, (*Desk).Release), []string{"RIV-1/2 hold>cancelled state"}},
		{"expire a lapsed hold", func(f *fixture) func() error {
			c := change(f.must(KindHold))
			c.At = later
			return func() error { _, err := f.desk.ExpireHold(ctx, c); return err }
		}, []string{"RIV-1/2 hold>cancelled state"}},
		{"expire a booking awaiting staff", on(KindBooking, (*Desk).Expire), []string{"RIV-1/2 reserved>cancelled state"}},
		{"cancel", on(KindConfirmed, (*Desk).Cancel), []string{"RIV-1/2 confirmed>cancelled state"}},
		{"complete", on(KindConfirmed, (*Desk).Complete), []string{"RIV-1/2 confirmed>completed state"}},
		{"update", func(f *fixture) func() error {
			c := change(f.must(KindBooking))
			c.Edit = func(r *Reservation) { r.Notes = "late arrival" }
			return func() error { _, err := f.desk.Update(ctx, c); return err }
		}, []string{"RIV-1/2 reserved>reserved updated"}},
		{"reschedule", func(f *fixture) func() error {
			r := f.must(KindConfirmed)
			return func() error {
				_, err := f.desk.Reschedule(ctx, Reschedule{Change: change(r), Slots: []string{"2026-12-02", "2026-12-03"}})
				return err
			}
		}, []string{"RIV-1/2 confirmed>confirmed rescheduled"}},
		{"reschedule onto a hold is two transitions", func(f *fixture) func() error {
			r := f.must(KindConfirmed)
			h, err := f.createOn(KindHold, "2026-12-03")
			if err != nil {
				f.t.Fatal(err)
			}
			return func() error {
				_, err := f.desk.Reschedule(ctx, Reschedule{Change: change(r), Slots: []string{"2026-12-02", "2026-12-03"}, Hold: &h})
				return err
			}
		}, []string{"RIV-1/2 confirmed>confirmed rescheduled", "RIV-2/2 hold>cancelled state"}},
		// Failures and operations that are no transition store nothing.
		{"create beyond the rooms", func(f *fixture) func() error {
			f.must(KindBooking)
			f.must(KindBooking)
			return func() error { _, err := f.create(KindBooking); return err }
		}, nil},
		{"create with a refused write of the door", func(f *fixture) func() error {
			if _, err := f.st.Create(ctx, store.Record{Kind: "door", Key: "k", Value: []byte("1"), UpdatedAt: now}); err != nil {
				f.t.Fatal(err)
			}
			return func() error {
				_, err := f.desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-A", Unit: double, Slots: nights, Source: SourceChat, At: now,
					Also: []Addition{Records(errDoorRecord, store.Write{Op: store.OpCreate, Record: store.Record{Kind: "door", Key: "k", Value: []byte("2"), UpdatedAt: now}})}})
				return err
			}
		}, nil},
		{"a stale version", func(f *fixture) func() error {
			r := f.must(KindBooking)
			if _, err := f.desk.Decide(ctx, change(r), Confirmed); err != nil {
				f.t.Fatal(err)
			}
			return func() error { _, err := f.desk.Decide(ctx, change(r), Declined); return err }
		}, nil},
		{"an illegal transition", on(KindHold, into((*Desk).Decide, Confirmed)), nil},
		{"accept a request with no room left", func(f *fixture) func() error {
			r := f.must(KindRequest)
			f.must(KindBooking)
			f.must(KindBooking)
			return func() error { _, err := f.desk.Decide(ctx, change(r), Reserved); return err }
		}, nil},
		{"a refused write of the door on a cancel", func(f *fixture) func() error {
			r := f.must(KindConfirmed)
			c := change(r)
			c.Also = []Addition{Records(errDoorRecord, store.Write{Op: store.OpSwap, Record: store.Record{Kind: "door", Key: "absent", Version: 1, UpdatedAt: now}})}
			return func() error { _, err := f.desk.Cancel(ctx, c); return err }
		}, nil},
		{"flag", on(KindBooking, func(d *Desk, ctx context.Context, c Change) (Reservation, error) { return d.Flag(ctx, c, "check") }),
			[]string{}}, // succeeds with no transition
	}
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					f := newFixture(t, open(t))
					op := tt.run(f)
					before := map[string]bool{}
					for _, e := range f.pending() {
						before[brief(e)] = true
					}
					if err := op(); (err == nil) != (tt.want != nil) {
						t.Fatalf("operation = %v, want success %v", err, tt.want != nil)
					}
					got := []string{}
					for _, e := range f.pending() {
						if !before[brief(e)] {
							got = append(got, brief(e))
						}
					}
					slices.Sort(got)
					if want := append([]string{}, tt.want...); !slices.Equal(got, want) {
						t.Fatalf("stored events %q, want %q", got, want)
					}
				})
			}
		})
	}
}

// TestStoredEventIsDoorNeutral: the outbox keeps what moved and where,
// and nothing of the guest.
func TestStoredEventIsDoorNeutral(t *testing.T) {
	f := newFixture(t, openStore(t))
	_, err := f.desk.Create(context.Background(), New{Kind: KindBooking, Reference: "RIV-1", Unit: double, Slots: nights, Source: USP("acme"),
		Contact: Contact{Name: "Ada Guest", Email: "ada@example.com", Phone: "+44 20 7946 0000"}, ContactKey: "keyed", Notes: "gluten free",
		Token: "secret-token", By: "guest", At: now, Guests: 2})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := f.st.List(context.Background(), kindEventPending, "", "", 10)
	if err != nil || len(recs) != 1 {
		t.Fatalf("pending = %v, %v", recs, err)
	}
	got := string(recs[0].Value)
	want := `{"reference":"RIV-1","version":1,"to":"reserved","change":"created","at":"2026-11-30T17:00:00Z","location":"riverside","unit":"double","slots":["2026-12-01","2026-12-02"],"source":"usp:acme"}`
	if got != want {
		t.Fatalf("stored event\n%s\nwant\n%s", got, want)
	}
	for _, secret := range []string{"Ada", "ada@", "7946", "keyed", "gluten", "secret-token"} {
		if strings.Contains(got, secret) {
			t.Fatalf("stored event holds %q", secret)
		}
	}
}

// seen is a consumer that records, in the store and with the cursor,
// each event it is handed: a second delivery of one event is a refused
// create, which the relay reports.
func seen(kind string) Consumer {
	return func(_ context.Context, e StoredEvent) ([]store.Write, error) {
		return []store.Write{{Op: store.OpCreate, Record: store.Record{Kind: kind, Key: pendingKey(e.Reference, e.Version),
			Value: []byte(fmt.Sprint(e.Position)), UpdatedAt: e.At}}}, nil
	}
}

// seenList is what consumer kind took in: "reference/version@position"
// in key order.
func seenList(t *testing.T, st store.Store, kind string) []string {
	t.Helper()
	var out []string
	for after := ""; ; {
		recs, err := st.List(context.Background(), kind, "", after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			return out
		}
		for _, rec := range recs {
			out = append(out, rec.Key+"@"+string(rec.Value))
		}
		after = recs[len(recs)-1].Key
	}
}

// TestRelayDeliversAfterRestart: transitions committed by a desk whose
// relay never ran reach the consumer of a desk rebuilt on the reopened
// store, each once and in order; a consumer that fails keeps its cursor.
func TestRelayDeliversAfterRestart(t *testing.T) {
	ctx := context.Background()
	for engine, reopen := range reopeners(ctx) {
		t.Run(engine, func(t *testing.T) {
			reopen := reopen(t)
			st := reopen()
			f := newFixture(t, st)
			f.desk.Consume("audit", seen("seen"))
			r := f.must(KindBooking)
			if _, err := f.desk.Decide(ctx, Change{Read: r, By: "ann", At: now, Unit: double}, Confirmed); err != nil {
				t.Fatal(err)
			}
			f.must(KindHold)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}

			st = reopen()
			desk := NewDesk(st)
			failing := errors.New("consumer down")
			desk.Consume("audit", func(context.Context, StoredEvent) ([]store.Write, error) { return nil, failing })
			if err := desk.Relay(ctx); !errors.Is(err, failing) {
				t.Fatalf("relay with a failing consumer = %v", err)
			}
			desk.Consume("audit", seen("seen"))
			for range 2 {
				if err := desk.Relay(ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := []string{"RIV-1/00000000000000000001@1", "RIV-1/00000000000000000002@2", "RIV-2/00000000000000000001@3"}
			if got := seenList(t, st, "seen"); !slices.Equal(got, want) {
				t.Fatalf("consumer saw %q, want %q", got, want)
			}
			events, err := desk.Events(ctx, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range events {
				got = append(got, fmt.Sprintf("%d %s", e.Position, brief(e)))
			}
			if want := []string{"1 RIV-1/1 >reserved created", "2 RIV-1/2 reserved>confirmed state", "3 RIV-2/1 >hold created"}; !slices.Equal(got, want) {
				t.Fatalf("outbox = %q, want %q", got, want)
			}
		})
	}
}

// TestConcurrentTransitionsAreDeliveredOnce commits transitions from
// several writers while several relays number and deliver at once (on
// PostgreSQL the transactions commit in any order): every committed
// transition reaches the consumer, none twice, positions run 1 to n
// without a gap, and each reservation's versions come in order.
func TestConcurrentTransitionsAreDeliveredOnce(t *testing.T) {
	ctx := context.Background()
	const writers, each, relays = 6, 8, 3
	wide := Unit{Location: "riverside", Type: "double", Capacity: writers * each}
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			st := open(t)
			desk := NewDesk(st)
			desk.Consume("audit", seen("seen"))
			// A consumer that writes only for confirmations, and one that
			// never writes: their cursors move in the shared pass, beside
			// the audit's own.
			desk.Consume("confirmations", func(ctx context.Context, e StoredEvent) ([]store.Write, error) {
				if e.To != Confirmed {
					return nil, nil
				}
				return seen("confirmed")(ctx, e)
			})
			desk.Consume("idle", func(context.Context, StoredEvent) ([]store.Write, error) { return nil, nil })
			done := make(chan struct{})
			var relayErr error
			var mu sync.Mutex
			var relaying sync.WaitGroup
			for range relays {
				relaying.Go(func() {
					for {
						select {
						case <-done:
							return
						default:
						}
						if err := desk.Relay(ctx); err != nil {
							mu.Lock()
							relayErr = errors.Join(relayErr, err)
							mu.Unlock()
							return
						}
					}
				})
			}
			var writing sync.WaitGroup
			errs := make(chan error, writers)
			for w := range writers {
				writing.Go(func() {
					for i := range each {
						r, err := desk.Create(ctx, New{Kind: KindBooking, Reference: fmt.Sprintf("RIV-%d-%d", w, i), Unit: wide, Slots: nights, Source: SourceChat, At: now})
						if err == nil {
							_, err = desk.Decide(ctx, Change{Read: r, By: "ann", At: now, Unit: wide}, Confirmed)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			writing.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			close(done)
			relaying.Wait()
			if relayErr != nil {
				t.Fatal(relayErr)
			}
			if err := desk.Relay(ctx); err != nil {
				t.Fatal(err)
			}
			got := seenList(t, st, "seen")
			if len(got) != writers*each*2 {
				t.Fatalf("consumer saw %d events, want %d", len(got), writers*each*2)
			}
			if confirmed := seenList(t, st, "confirmed"); len(confirmed) != writers*each {
				t.Fatalf("confirmations consumer saw %d events, want %d", len(confirmed), writers*each)
			}
			for _, name := range []string{"audit", "confirmations", "idle"} {
				if cur, err := desk.position(ctx, kindEventCursor, name); err != nil || cur.pos != int64(len(got)) {
					t.Fatalf("cursor of %s at %d (%v), want %d", name, cur.pos, err, len(got))
				}
			}
			positions := map[string]bool{}
			for i := 0; i < len(got); i += 2 {
				created, confirmed := got[i], got[i+1]
				p1, p2 := created[strings.Index(created, "@")+1:], confirmed[strings.Index(confirmed, "@")+1:]
				if !strings.HasSuffix(created[:strings.Index(created, "@")], "/00000000000000000001") || !lessNumber(p1, p2) {
					t.Fatalf("%s and %s out of order", created, confirmed)
				}
				positions[p1], positions[p2] = true, true
			}
			for p := 1; p <= len(got); p++ {
				if !positions[fmt.Sprint(p)] {
					t.Fatalf("position %d was never delivered", p)
				}
			}
		})
	}
}

func lessNumber(a, b string) bool { return len(a) < len(b) || len(a) == len(b) && a < b }

// commitCount counts the store's transactions.
type commitCount struct {
	store.Store
	mu      sync.Mutex
	applies int
}

func (c *commitCount) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	c.mu.Lock()
	c.applies++
	c.mu.Unlock()
	return c.Store.Apply(ctx, writes)
}

// TestConsumersThatAskNothingShareOneCommit: a transition that asks
// nothing of three consumers costs the relay one transaction, its
// numbering with the three cursors moved; one consumer that writes adds
// its own. Numbered, then delivered one consumer at a time, it cost one
// transaction more per consumer (four).
func TestConsumersThatAskNothingShareOneCommit(t *testing.T) {
	ctx := context.Background()
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			st := &commitCount{Store: open(t)}
			desk := NewDesk(st)
			for _, name := range []string{"a", "b", "c"} {
				desk.Consume(name, func(_ context.Context, e StoredEvent) ([]store.Write, error) {
					if name == "c" && e.To == Confirmed {
						return seen("seen-c")(ctx, e)
					}
					return nil, nil
				})
			}
			r, err := desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-1", Unit: double, Slots: nights, Source: SourceChat, At: now})
			if err != nil {
				t.Fatal(err)
			}
			relay := func() int {
				t.Helper()
				st.mu.Lock()
				before := st.applies
				st.mu.Unlock()
				if err := desk.Relay(ctx); err != nil {
					t.Fatal(err)
				}
				st.mu.Lock()
				defer st.mu.Unlock()
				return st.applies - before
			}
			if n := relay(); n != 1 {
				t.Fatalf("a transition no consumer acts on took %d transactions to relay, want 1", n)
			}
			if _, err := desk.Decide(ctx, Change{Read: r, By: "ann", At: now, Unit: double}, Confirmed); err != nil {
				t.Fatal(err)
			}
			if n := relay(); n != 2 {
				t.Fatalf("a transition one consumer writes for took %d transactions to relay, want 2", n)
			}
			if got := seenList(t, st, "seen-c"); len(got) != 1 || got[0] != "RIV-1/00000000000000000002@2" {
				t.Fatalf("consumer c took in %v", got)
			}
			for _, name := range []string{"a", "b", "c"} {
				if cur, err := desk.position(ctx, kindEventCursor, name); err != nil || cur.pos != 2 {
					t.Fatalf("cursor of %s at %d (%v), want 2", name, cur.pos, err)
				}
			}
			if n := relay(); n != 0 {
				t.Fatalf("a relay with nothing to do took %d transactions", n)
			}
		})
	}
}

// TestRunRelaysAfterEveryCommit: a running relay delivers a transition
// promptly after its commit, with no timer due.
func TestRunRelaysAfterEveryCommit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st := openStore(t)
	desk := NewDesk(st)
	got := make(chan StoredEvent, 10)
	desk.Consume("watch", func(_ context.Context, e StoredEvent) ([]store.Write, error) {
		got <- e
		return nil, nil
	})
	var wg sync.WaitGroup
	wg.Go(func() { desk.Run(ctx, time.Hour, func(err error) { t.Error(err) }) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	for i := range 3 {
		if _, err := desk.Create(ctx, New{Kind: KindRequest, Reference: fmt.Sprintf("RIV-%d", i), Unit: double, Slots: nights, Source: SourceChat, At: now}); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-got:
			if want := fmt.Sprintf("RIV-%d", i); e.Reference != want || e.Position != int64(i+1) {
				t.Fatalf("delivered %s at %d, want %s at %d", e.Reference, e.Position, want, i+1)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d not delivered after its commit", i)
		}
	}
}

// TestPurgeEvents: an event goes once every consumer has passed it and
// it is older than the retention, a bounded number per pass; one a
// consumer has not passed stays.
func TestPurgeEvents(t *testing.T) {
	ctx := context.Background()
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			st := open(t)
			desk := NewDesk(st)
			for i := range 5 {
				at := now.Add(time.Duration(i) * time.Hour)
				if _, err := desk.Create(ctx, New{Kind: KindRequest, Reference: fmt.Sprintf("RIV-%d", i), Unit: double, Slots: nights, Source: SourceChat, At: at}); err != nil {
					t.Fatal(err)
				}
			}
			desk.Consume("fast", seen("fast"))
			if err := desk.Relay(ctx); err != nil {
				t.Fatal(err)
			}
			remaining := func() []int64 {
				events, err := desk.Events(ctx, 0, 100)
				if err != nil {
					t.Fatal(err)
				}
				var out []int64
				for _, e := range events {
					out = append(out, e.Position)
				}
				return out
			}
			// A consumer new to the outbox starts before the oldest event.
			desk.Consume("slow", func(context.Context, StoredEvent) ([]store.Write, error) { return nil, errors.New("slow") })
			if n, err := desk.PurgeEvents(ctx, now.Add(48*time.Hour), 100); err != nil || n != 0 {
				t.Fatalf("purge before the slow consumer moved = %d, %v", n, err)
			}
			// The slow consumer has passed the first three.
			cur, err := desk.position(ctx, kindEventCursor, "slow")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Apply(ctx, []store.Write{cur.advance(kindEventCursor, "slow", 3, now)}); err != nil {
				t.Fatal(err)
			}
			// Retention keeps events from now+1h on: only 1 and 2 are old.
			if n, err := desk.PurgeEvents(ctx, now.Add(90*time.Minute), 100); err != nil || n != 2 {
				t.Fatalf("purge by age = %d, %v, want 2", n, err)
			}
			if got := remaining(); !slices.Equal(got, []int64{3, 4, 5}) {
				t.Fatalf("kept %v, want [3 4 5]", got)
			}
			// Old enough, but 4 and 5 are after the slow cursor; and the
			// bound is one per pass.
			if n, err := desk.PurgeEvents(ctx, now.Add(48*time.Hour), 1); err != nil || n != 1 {
				t.Fatalf("bounded purge = %d, %v, want 1", n, err)
			}
			if n, err := desk.PurgeEvents(ctx, now.Add(48*time.Hour), 100); err != nil || n != 0 {
				t.Fatalf("purge past the slow cursor = %d, %v, want 0", n, err)
			}
			if got := remaining(); !slices.Equal(got, []int64{4, 5}) {
				t.Fatalf("kept %v, want [4 5]", got)
			}
		})
	}
}

// reopeners gives, for each engine, a function that sets up a file or a
// schema for t and returns what opens it again, as a restarted process
// does.
func reopeners(ctx context.Context) map[string]func(t *testing.T) func() store.Store {
	return map[string]func(t *testing.T) func() store.Store{
		"sqlite": func(t *testing.T) func() store.Store {
			path := filepath.Join(t.TempDir(), "fd.db")
			return func() store.Store {
				s, err := sqlite.Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
		},
		"postgres": func(t *testing.T) func() store.Store {
			dsn := pgtest.Schema(t)
			return func() store.Store {
				s, err := postgres.Open(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
		},
	}
}
