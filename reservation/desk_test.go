package reservation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/store"
)

// engines opens a fresh store of each engine: a SQLite file and a
// PostgreSQL schema.
func engines(t *testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": openStore,
		"postgres": func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), pgtest.Schema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
}

// double is Riverside's double room type with two rooms.
var double = Unit{Location: "riverside", Type: "double", Capacity: 2}

var nights = []string{"2026-12-01", "2026-12-02"}

// fixture is a desk on a fresh store with a subscriber and an end hook
// that record what they were given.
type fixture struct {
	t      *testing.T
	st     store.Store
	desk   *Desk
	events []Event
	ended  []string
	n      int
}

func newFixture(t *testing.T, st store.Store) *fixture {
	f := &fixture{t: t, st: st, desk: NewDesk(st)}
	f.desk.Subscribe("test", func(e Event) []store.Write {
		f.events = append(f.events, e)
		return nil
	})
	f.desk.OnEnd("test", func(_ context.Context, r Reservation) ([]store.Write, error) {
		f.ended = append(f.ended, r.Reference)
		return nil, nil
	})
	return f
}

// create makes a reservation of kind k for the two nights.
func (f *fixture) create(k Kind) (Reservation, error) { return f.createOn(k, nights...) }

// createOn makes a reservation of kind k for the slots.
func (f *fixture) createOn(k Kind, slots ...string) (Reservation, error) {
	f.n++
	n := New{Kind: k, Reference: fmt.Sprintf("RIV-%d", f.n), Unit: double, Slots: slots, Source: SourceChat, By: "guest", At: now, Guests: 1}
	if k == KindHold {
		n.Source, n.Expires = USP("acme"), now.Add(10*time.Minute)
	}
	return f.desk.Create(context.Background(), n)
}

func (f *fixture) must(k Kind) Reservation {
	f.t.Helper()
	r, err := f.create(k)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// held is how many doubles are held on the first night.
func (f *fixture) held() int {
	f.t.Helper()
	counts, err := f.st.Counts(context.Background(), "riverside", nights[0], "2026-12-03")
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, c := range counts {
		if c.Slot == nights[0] {
			n += c.Held
		}
	}
	return n
}

func (f *fixture) get(ref string) Reservation {
	f.t.Helper()
	r, err := Get(context.Background(), f.st, ref)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

var errDoorRecord = errors.New("the door's record was taken")

// TestDeskOperations runs every desk operation and every refusal on both
// engines: what each returns, what it leaves stored and held, and what
// its subscribers and end hooks saw.
func TestDeskOperations(t *testing.T) {
	ctx := context.Background()
	change := func(r Reservation) Change { return Change{Read: r, By: "staff:ann", At: now, Unit: double} }
	later := now.Add(11 * time.Minute)
	tests := []struct {
		name string
		// run returns the reservation the operation answered and its
		// error; wantCode is "" for success.
		run       func(f *fixture) (Reservation, error)
		wantCode  Code
		wantState State
		wantHeld  int // doubles held after it
		wantEnded int // terminal hooks run
	}{
		{"create a request holds nothing", func(f *fixture) (Reservation, error) { return f.create(KindRequest) }, "", Requested, 0, 0},
		{"create a booking holds", func(f *fixture) (Reservation, error) { return f.create(KindBooking) }, "", Reserved, 1, 0},
		{"create a confirmed booking holds", func(f *fixture) (Reservation, error) { return f.create(KindConfirmed) }, "", Confirmed, 1, 0},
		{"create a hold holds and awaits no one", func(f *fixture) (Reservation, error) {
			r, err := f.create(KindHold)
			if err == nil && (r.State.Pending() || r.HoldExpires.IsZero()) {
				return r, fmt.Errorf("hold pending %v, expires %v", r.State.Pending(), r.HoldExpires)
			}
			return r, err
		}, "", OnHold, 1, 0},
		{"create beyond the rooms is unit taken", func(f *fixture) (Reservation, error) {
			f.must(KindBooking)
			f.must(KindHold)
			return f.create(KindBooking)
		}, CodeUnitTaken, "", 2, 0},
		{"create a hold without expiry is internal", func(f *fixture) (Reservation, error) {
			return f.desk.Create(ctx, New{Kind: KindHold, Reference: "RIV-X", Unit: double, Slots: nights, Source: USP("acme"), At: now})
		}, CodeInternal, "", 0, 0},
		{"create a taken reference is internal", func(f *fixture) (Reservation, error) {
			r := f.must(KindRequest)
			_, err := f.desk.Create(ctx, New{Kind: KindBooking, Reference: r.Reference, Unit: double, Slots: nights, Source: SourceChat, At: now})
			return r, err
		}, CodeInternal, Requested, 0, 0},
		{"a refused addition is a conflict naming it", func(f *fixture) (Reservation, error) {
			if _, err := f.st.Create(ctx, store.Record{Kind: "door", Key: "k", Value: []byte("1"), UpdatedAt: now}); err != nil {
				return Reservation{}, err
			}
			_, err := f.desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-A", Unit: double, Slots: nights, Source: SourceChat, At: now,
				Also: []Addition{Records(errDoorRecord, store.Write{Op: store.OpCreate, Record: store.Record{Kind: "door", Key: "k", Value: []byte("2"), UpdatedAt: now}})}})
			if !errors.Is(err, errDoorRecord) {
				return Reservation{}, fmt.Errorf("refusal %v does not name the door's record", err)
			}
			return Reservation{}, err
		}, CodeConflict, "", 0, 0},
		{"staff confirm a booking", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindBooking)), Confirmed)
		}, "", Confirmed, 1, 0},
		{"staff accept a request takes its units", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindRequest)), Confirmed)
		}, "", Confirmed, 1, 0},
		{"staff accept a request with no room left is unit taken", func(f *fixture) (Reservation, error) {
			f.must(KindBooking)
			f.must(KindBooking)
			return f.desk.Decide(ctx, change(f.must(KindRequest)), Reserved)
		}, CodeUnitTaken, Requested, 2, 0},
		{"a lapsed booking gives its units back and holds nothing", func(f *fixture) (Reservation, error) {
			return f.desk.Lapse(ctx, change(f.must(KindBooking)))
		}, "", Requested, 0, 0},
		{"staff make a booking a request again is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindBooking)), Requested)
		}, CodeIllegalTransition, Reserved, 1, 0},
		{"a lapsed booking takes a new hold's units and uses the hold up", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Lapse(ctx, change(f.must(KindBooking)))
			if err != nil {
				return r, err
			}
			h := f.must(KindHold)
			r, err = f.desk.TakeHold(ctx, change(r), h, nil, Confirmed)
			if got := f.get(h.Reference); err == nil && (got.State != Cancelled || got.Held) {
				return r, fmt.Errorf("hold after use = %s held %v", got.State, got.Held)
			}
			return r, err
		}, "", Confirmed, 1, 1}, // the hold's end
		{"a lapsed booking takes no expired hold", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Lapse(ctx, change(f.must(KindBooking)))
			if err != nil {
				return r, err
			}
			c := change(r)
			c.At = later
			return f.desk.TakeHold(ctx, c, f.must(KindHold), nil, Confirmed)
		}, CodeIllegalTransition, Requested, 1, 0},
		{"a booking that holds its units takes no hold", func(f *fixture) (Reservation, error) {
			return f.desk.TakeHold(ctx, change(f.must(KindBooking)), f.must(KindHold), nil, Confirmed)
		}, CodeIllegalTransition, Reserved, 2, 0},
		{"staff mark a booking moved releases", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindConfirmed)), Moved)
		}, "", Moved, 0, 1},
		{"staff decline a booking releases", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindBooking)), Declined)
		}, "", Declined, 0, 1},
		{"staff confirm a hold is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindHold)), Confirmed)
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"staff decline a hold is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindHold)), Declined)
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"staff cancel a hold is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Decide(ctx, change(f.must(KindHold)), Cancelled)
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"staff move to an illegal state is refused", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Decide(ctx, change(f.must(KindBooking)), Completed)
			if err != nil {
				return r, err
			}
			return f.desk.Decide(ctx, change(r), Confirmed)
		}, CodeIllegalTransition, Completed, 0, 1},
		{"a stale version is a conflict", func(f *fixture) (Reservation, error) {
			r := f.must(KindBooking)
			if _, err := f.desk.Decide(ctx, change(r), Confirmed); err != nil {
				return r, err
			}
			return f.desk.Decide(ctx, change(r), Declined)
		}, CodeConflict, Confirmed, 1, 1}, // the hook gave its writes to the refused transaction
		{"convert a hold into a booking keeps its units", func(f *fixture) (Reservation, error) {
			return f.desk.Convert(ctx, change(f.must(KindHold)), Reserved)
		}, "", Reserved, 1, 0},
		{"convert an expired hold is refused", func(f *fixture) (Reservation, error) {
			c := change(f.must(KindHold))
			c.At = later
			return f.desk.Convert(ctx, c, Reserved)
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"convert a booking is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Convert(ctx, change(f.must(KindBooking)), Confirmed)
		}, CodeIllegalTransition, Reserved, 1, 0},
		{"release a hold gives its units back", func(f *fixture) (Reservation, error) {
			return f.desk.Release(ctx, change(f.must(KindHold)))
		}, "", Cancelled, 0, 1},
		{"release a booking is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Release(ctx, change(f.must(KindBooking)))
		}, CodeIllegalTransition, Reserved, 1, 0},
		{"release a hold after staff decided is impossible", func(f *fixture) (Reservation, error) {
			r := f.must(KindHold)
			if _, err := f.desk.Decide(ctx, change(r), Confirmed); ErrorCode(err) != CodeIllegalTransition {
				return r, fmt.Errorf("staff confirm of a hold = %v", err)
			}
			return f.desk.Release(ctx, change(f.get(r.Reference)))
		}, "", Cancelled, 0, 1},
		{"expire a live hold is refused", func(f *fixture) (Reservation, error) {
			return f.desk.ExpireHold(ctx, change(f.must(KindHold)))
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"expire a lapsed hold releases", func(f *fixture) (Reservation, error) {
			c := change(f.must(KindHold))
			c.At = later
			return f.desk.ExpireHold(ctx, c)
		}, "", Cancelled, 0, 1},
		{"expire a booking awaiting staff", func(f *fixture) (Reservation, error) {
			return f.desk.Expire(ctx, change(f.must(KindBooking)))
		}, "", Cancelled, 0, 1},
		{"expire a confirmed booking is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Expire(ctx, change(f.must(KindConfirmed)))
		}, CodeIllegalTransition, Confirmed, 1, 0},
		{"cancel a booking releases", func(f *fixture) (Reservation, error) {
			return f.desk.Cancel(ctx, change(f.must(KindConfirmed)))
		}, "", Cancelled, 0, 1},
		{"cancel a hold is refused", func(f *fixture) (Reservation, error) {
			return f.desk.Cancel(ctx, change(f.must(KindHold)))
		}, CodeIllegalTransition, OnHold, 1, 0},
		{"complete a stay releases", func(f *fixture) (Reservation, error) {
			return f.desk.Complete(ctx, change(f.must(KindConfirmed)))
		}, "", Completed, 0, 1},
		{"update changes the door's fields only", func(f *fixture) (Reservation, error) {
			c := change(f.must(KindBooking))
			c.Edit = func(r *Reservation) { r.Notes = "late arrival" }
			r, err := f.desk.Update(ctx, c)
			if err == nil && f.get(r.Reference).Notes != "late arrival" {
				return r, errors.New("notes not stored")
			}
			return r, err
		}, "", Reserved, 1, 0},
		{"update an ended reservation is refused", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Cancel(ctx, change(f.must(KindBooking)))
			if err != nil {
				return r, err
			}
			return f.desk.Update(ctx, change(r))
		}, CodeIllegalTransition, Cancelled, 0, 1},
		{"reschedule moves the units", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Reschedule(ctx, Reschedule{Change: change(f.must(KindConfirmed)), Slots: []string{"2026-12-02", "2026-12-03"}})
			if err == nil && !slices.Equal(f.get(r.Reference).Slots, []string{"2026-12-02", "2026-12-03"}) {
				return r, errors.New("slots not moved")
			}
			return r, err
		}, "", Confirmed, 0, 0},
		{"reschedule into a full night is unit taken", func(f *fixture) (Reservation, error) {
			r := f.must(KindConfirmed)
			if _, err := f.desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-O1", Unit: double, Slots: []string{"2026-12-03"}, Source: SourceChat, At: now}); err != nil {
				return r, err
			}
			if _, err := f.desk.Create(ctx, New{Kind: KindBooking, Reference: "RIV-O2", Unit: double, Slots: []string{"2026-12-03"}, Source: SourceChat, At: now}); err != nil {
				return r, err
			}
			return f.desk.Reschedule(ctx, Reschedule{Change: change(r), Slots: []string{"2026-12-02", "2026-12-03"}})
		}, CodeUnitTaken, Confirmed, 1, 0},
		{"reschedule onto the owner's hold uses it up", func(f *fixture) (Reservation, error) {
			r := f.must(KindConfirmed)
			h, err := f.createOn(KindHold, "2026-12-03")
			if err != nil {
				return r, err
			}
			if _, err := f.createOn(KindBooking, "2026-12-03"); err != nil { // the last room: only the hold makes room
				return r, err
			}
			_, err = f.desk.Reschedule(ctx, Reschedule{Change: change(r), Slots: []string{"2026-12-02", "2026-12-03"}, Hold: &h})
			if err == nil && f.get(h.Reference).State != Cancelled {
				return r, errors.New("the hold is not used up")
			}
			return f.get(r.Reference), err
		}, "", Confirmed, 0, 1},
		{"flag asks staff to look", func(f *fixture) (Reservation, error) {
			r, err := f.desk.Flag(ctx, change(f.must(KindBooking)), "check")
			if err == nil && f.get(r.Reference).Attention != "check" {
				return r, errors.New("not flagged")
			}
			return r, err
		}, "", Reserved, 1, 0},
		{"repair releases an ended reservation's units", func(f *fixture) (Reservation, error) {
			r := f.must(KindBooking)
			broken := r
			broken.State = Cancelled // an interrupted release: held in the row and the index
			if _, err := f.st.Apply(ctx, []store.Write{Save(broken, now)}); err != nil {
				return r, err
			}
			return f.desk.Repair(ctx, change(f.get(r.Reference)))
		}, "", Cancelled, 0, 0},
		{"release an orphan hold", func(f *fixture) (Reservation, error) {
			if _, err := f.st.Apply(ctx, []store.Write{{Op: store.OpHold, Hold: &store.Hold{ID: "RIV-LOST", Location: "riverside", Unit: "double", Slots: nights, Units: 1, Capacity: 2, At: now}}}); err != nil {
				return Reservation{}, err
			}
			return Reservation{}, f.desk.ReleaseOrphan(ctx, "RIV-LOST", now)
		}, "", "", 0, 0},
	}
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					f := newFixture(t, open(t))
					r, err := tt.run(f)
					if got := ErrorCode(err); got != tt.wantCode {
						t.Fatalf("code = %q (%v), want %q", got, err, tt.wantCode)
					}
					if err != nil {
						if _, ok := errors.AsType[*Error](err); !ok {
							t.Fatalf("%v is not the desk's *Error", err)
						}
					}
					if tt.wantState != "" {
						if got := f.get(r.Reference); got.State != tt.wantState || got.Held != tt.wantState.HoldsUnits() {
							t.Fatalf("stored %s held %v, want %s", got.State, got.Held, tt.wantState)
						}
					}
					if got := f.held(); got != tt.wantHeld {
						t.Fatalf("held = %d, want %d", got, tt.wantHeld)
					}
					if len(f.ended) != tt.wantEnded {
						t.Fatalf("end hooks ran for %v, want %d", f.ended, tt.wantEnded)
					}
				})
			}
		})
	}
}

// TestDeskEventsAreOnePerCommit: every committed transition reaches the
// subscribers once with the version it is stored at, and a refused one
// commits nothing the subscriber wrote.
func TestDeskEventsAreOnePerCommit(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, openStore(t))
	f.desk.Subscribe("outbox", func(e Event) []store.Write {
		key := fmt.Sprintf("%s/%d", e.Reservation.Reference, e.Version)
		return []store.Write{{Op: store.OpCreate, Record: store.Record{Kind: "outbox", Key: key, Value: []byte(string(e.From) + ">" + string(e.Reservation.State)), UpdatedAt: e.At}}}
	})
	r := f.must(KindBooking)
	r, err := f.desk.Decide(ctx, Change{Read: r, By: "ann", At: now}, Confirmed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.desk.Decide(ctx, Change{Read: r, By: "ann", At: now}, OnHold); ErrorCode(err) != CodeIllegalTransition {
		t.Fatalf("staff put a booking on hold: %v", err)
	}
	recs, err := f.st.List(ctx, "outbox", "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs {
		got = append(got, rec.Key+" "+string(rec.Value))
	}
	if want := []string{"RIV-1/1 >reserved", "RIV-1/2 reserved>confirmed"}; !slices.Equal(got, want) {
		t.Fatalf("outbox = %q, want %q", got, want)
	}
	// Registering again under the same name replaces, never doubles.
	f.desk.Subscribe("outbox", func(Event) []store.Write { return nil })
	if len(f.desk.subs) != 2 {
		t.Fatalf("subscribers = %d, want 2", len(f.desk.subs))
	}
}
