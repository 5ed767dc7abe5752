package direct

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// benchEngines open a store for one benchmark run and return it with a
// function that closes it and deletes its data at once, so that a
// benchmark looping over fresh stores holds one store's data at a time,
// not every store of the run until its end.
var benchEngines = []struct {
	name string
	open func(b *testing.B) (store.Store, func())
}{
	{"sqlite", func(b *testing.B) (store.Store, func()) {
		dir, err := os.MkdirTemp(b.TempDir(), "store")
		if err != nil {
			b.Fatal(err)
		}
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		return st, func() {
			st.Close()
			os.RemoveAll(dir)
		}
	}},
	{"postgres", func(b *testing.B) (store.Store, func()) {
		dsn := pgtest.Schema(b)
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		return st, func() {
			st.Close()
			// The schema itself stays for pgtest's cleanup to drop.
			if u, err := url.Parse(dsn); err == nil && u.Query().Get("search_path") != "" {
				s := u.Query().Get("search_path")
				pgtest.Exec(b, pgtest.DSN(b), "DROP SCHEMA "+s+" CASCADE; CREATE SCHEMA "+s)
			}
		}
	}},
}

// countingStore counts the store calls of the code under measure: the
// writes that commit, and every call, each at least one round trip.
type countingStore struct {
	store.Store
	mu             sync.Mutex
	commits, calls int
}

func (c *countingStore) count(commit bool) {
	c.mu.Lock()
	c.calls++
	if commit {
		c.commits++
	}
	c.mu.Unlock()
}

func (c *countingStore) Get(ctx context.Context, kind, key string) (store.Record, error) {
	c.count(false)
	return c.Store.Get(ctx, kind, key)
}

func (c *countingStore) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	c.count(false)
	return c.Store.GetMany(ctx, keys)
}

func (c *countingStore) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	c.count(false)
	return c.Store.List(ctx, kind, prefix, after, limit)
}

func (c *countingStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	c.count(true)
	return c.Store.Create(ctx, r)
}

func (c *countingStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	c.count(true)
	return c.Store.Swap(ctx, r)
}

func (c *countingStore) Delete(ctx context.Context, kind, key string, version int64) error {
	c.count(true)
	return c.Store.Delete(ctx, kind, key, version)
}

func (c *countingStore) Apply(ctx context.Context, ws []store.Write) ([]store.Record, error) {
	c.count(true)
	return c.Store.Apply(ctx, ws)
}

func (c *countingStore) Counted(ctx context.Context, name string, live int64) (int64, error) {
	c.count(false)
	return c.Store.Counted(ctx, name, live)
}

func (c *countingStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	c.count(false)
	return c.Store.Counts(ctx, location, from, to)
}

func (c *countingStore) GetReservation(ctx context.Context, ref string) (store.Reservation, error) {
	c.count(false)
	return c.Store.GetReservation(ctx, ref)
}

func (c *countingStore) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	c.count(false)
	return c.Store.ListReservations(ctx, f)
}

// benchWorld is the demo with the shipped ceilings and enough doubles at
// Riverside for every booking of a run.
func benchWorld(b *testing.B, st store.Store) *world {
	cfg := config.Demo()
	cfg.Locations[0].Units[1].Count = 1 << 20
	return newWorldOn(b, cfg, st)
}

// benchBooking makes booking i of a run as a guest would, two hours after
// the one before so the shipped mail ceilings admit it, for one night a
// month ahead, and returns how long it took. Staff confirm it afterwards,
// outside the time taken, as they would, so the pending ceilings never
// stop the run. When cs is set, the booking's own store calls are added
// to commits and calls.
func benchBooking(b *testing.B, w *world, i int, cs *countingStore, commits, calls *int) time.Duration {
	ctx := context.Background()
	w.clock.Advance(2 * time.Hour)
	email := fmt.Sprintf("bench%d@example.com", i)
	day := w.svc.today(w.cfg.Locations[0], w.clock.Now()).AddDays(30)
	var c0, n0 int
	if cs != nil {
		c0, n0 = cs.commits, cs.calls
	}
	t0 := time.Now()
	res, err := w.start(ctx, web, stayArgs("email", email, "checkin", day.String(), "checkout", day.AddDays(1).String()))
	if err != nil {
		b.Fatal(refusalText(err))
	}
	code := w.lastCode(email)
	conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
	if err != nil {
		b.Fatal(refusalText(err))
	}
	took := time.Since(t0)
	if cs != nil {
		*commits += cs.commits - c0
		*calls += cs.calls - n0
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: conf.ReservationNumber, To: reservation.Confirmed, By: "bench"}); err != nil {
		b.Fatal(err)
	}
	return took
}

// BenchmarkConfirmedBookings measures whole bookings (start with its code
// email, then confirm with its hold and two notices) on each engine with
// the dev mailbox, one at a time, beside the baseline of one raw
// single-row commit on the same engine. It also reports the store calls a
// booking makes: those that commit, and all of them, each at least one
// round trip. bench/booking.sh turns them into ratios.
func BenchmarkConfirmedBookings(b *testing.B) {
	for _, e := range benchEngines {
		b.Run(e.name+"/raw_commit", func(b *testing.B) {
			st, drop := e.open(b)
			defer drop()
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if _, err := st.Create(ctx, store.Record{Kind: "bench", Key: fmt.Sprint(i), Value: []byte("x"), UpdatedAt: testNow}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
		})
		b.Run(e.name+"/booking", func(b *testing.B) {
			st, drop := e.open(b)
			defer drop()
			cs := &countingStore{Store: st}
			w := benchWorld(b, cs)
			var took time.Duration
			commits, calls := 0, 0
			i := 0
			for b.Loop() {
				i++
				took += benchBooking(b, w, i, cs, &commits, &calls)
			}
			b.ReportMetric(float64(b.N)/took.Seconds(), "bookings/s")
			b.ReportMetric(float64(commits)/float64(b.N), "commits/booking")
			b.ReportMetric(float64(calls)/float64(b.N), "calls/booking")
		})
	}
}

// BenchmarkHistory makes 2,000 bookings one after another on one store
// and compares the median time of the last tenth with that of the first:
// flat with history means the ratio stays near 1.
func BenchmarkHistory(b *testing.B) {
	const bookings = 2000
	for _, e := range benchEngines {
		b.Run(e.name, func(b *testing.B) {
			for b.Loop() {
				st, drop := e.open(b)
				w := benchWorld(b, st)
				took := make([]time.Duration, bookings)
				for i := range bookings {
					took[i] = benchBooking(b, w, i, nil, nil, nil)
				}
				drop()
				first, last := median(took[:bookings/10]), median(took[bookings-bookings/10:])
				b.ReportMetric(float64(first.Microseconds())/1000, "first_ms")
				b.ReportMetric(float64(last.Microseconds())/1000, "last_ms")
				b.ReportMetric(float64(last)/float64(first), "last/first")
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// conflictStore counts the transactions refused because another write
// came first: each is a retry of the operation that made it.
type conflictStore struct {
	store.Store
	conflicts atomic.Int64
}

func (c *conflictStore) Apply(ctx context.Context, ws []store.Write) ([]store.Record, error) {
	rs, err := c.Store.Apply(ctx, ws)
	if _, refused := errors.AsType[*store.WriteError](err); refused {
		c.conflicts.Add(1)
	}
	return rs, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParallelBookings compares bookings made one at a time with
// bookings made eight at a time, by different guests spread over the
// three properties, on each engine, each staff-confirmed right after. It
// reports bookings per second, the process's CPU use per wall second and
// the transactions refused by contention per booking.
func BenchmarkParallelBookings(b *testing.B) {
	for _, e := range benchEngines {
		for _, workers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/%d", e.name, workers), func(b *testing.B) { parallelBookings(b, e.open, workers) })
		}
	}
}

func parallelBookings(b *testing.B, open func(b *testing.B) (store.Store, func()), workers int) {
	st, drop := open(b)
	defer drop()
	cs := &conflictStore{Store: st}
	cfg := config.Demo()
	cfg.Limits.LocationEmailHourly, cfg.Limits.PortfolioEmailHourly, cfg.Limits.PortfolioEmailDaily = 1000, 1000, 1000
	cfg.Limits.LocationPending, cfg.Limits.PortfolioPending = 8, 16
	for i := range cfg.Locations {
		for j := range cfg.Locations[i].Units {
			cfg.Locations[i].Units[j].Count = 1 << 20
		}
	}
	w := newWorldOn(b, cfg, cs)
	ctx := context.Background()
	var next atomic.Int64
	cpu0, wall0 := cpuTime(), time.Now()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i > b.N {
					return
				}
				// The clock moves a little with every booking, as
				// time would, and by far less than a code's
				// lifetime across the bookings in flight: at a
				// minute each, a booking that waited out fifteen
				// others found its code expired.
				w.clock.Advance(5 * time.Second)
				prop := []string{"riverside", "oldtown", "airport"}[i%3]
				email := fmt.Sprintf("p%d@example.com", i)
				day := w.svc.today(cfg.Locations[0], w.clock.Now()).AddDays(30 + i%200)
				res, err := w.start(ctx, web, stayArgs("property", prop, "email", email, "checkin", day.String(), "checkout", day.AddDays(1).String()))
				if err != nil {
					b.Error(refusalText(err))
					return
				}
				conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(email)))
				if err != nil {
					b.Error(refusalText(err))
					return
				}
				if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: conf.ReservationNumber, To: reservation.Confirmed, By: "bench"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	wall := time.Since(wall0)
	b.ReportMetric(float64(b.N)/wall.Seconds(), "bookings/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/wall.Seconds(), "cpu/wall")
	b.ReportMetric(float64(cs.conflicts.Load())/float64(b.N), "conflicts/booking")
}
