package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"frontdesk/internal/pgtest"
	"frontdesk/store"
)

// roundTrips counts what the pool sends: every query and every batch is
// one round trip.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// openTraced opens a store whose pool counts its round trips.
func openTraced(t *testing.T) (*DB, *roundTrips) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := openConfig(t.Context(), cfg, ms)
	if err != nil {
		t.Fatalf("open = %v, want nil", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, rt
}

// TestApplyIsOneRoundTrip checks that an Apply of independent writes (a
// create, a swap, a two-night hold and a reservation) goes out as one
// pipelined batch: step by step it took eleven round trips.
func TestApplyIsOneRoundTrip(t *testing.T) {
	db, rt := openTraced(t)
	ctx := t.Context()
	old, err := db.Create(ctx, store.Record{Kind: "k", Key: "old", Value: []byte("1"), UpdatedAt: at()})
	if err != nil {
		t.Fatal(err)
	}
	old.Value, old.UpdatedAt = []byte("2"), at()
	hold := store.Hold{ID: "h", Location: "riverside", Unit: "double", Slots: []string{"2026-12-02", "2026-12-01"}, Units: 1, Capacity: 2, At: at()}
	res := store.Reservation{Reference: "R1", Location: "riverside", Unit: "double", FirstSlot: "2026-12-01", LastSlot: "2026-12-02",
		State: "reserved", Source: "chat", Value: []byte("{}"), UpdatedAt: at()}
	writes := []store.Write{
		{Op: store.OpCreate, Record: store.Record{Kind: "k", Key: "new", Value: []byte("n"), UpdatedAt: at()}},
		{Op: store.OpSwap, Record: old},
		{Op: store.OpHold, Hold: &hold},
		{Op: store.OpCreateReservation, Reservation: &res},
	}
	before := rt.n.Load()
	rs, err := db.Apply(ctx, writes)
	if err != nil {
		t.Fatalf("Apply = %v, want nil", err)
	}
	if got, want := rt.n.Load()-before, int64(1); got != want {
		t.Errorf("Apply took %d round trips, want %d", got, want)
	}
	if got, want := fmt.Sprint(rs[0].Version, rs[1].Version), "1 2"; got != want {
		t.Errorf("versions = %s, want %s", got, want)
	}
	cs, err := db.Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(cs), "[{double 2026-12-01 1} {double 2026-12-02 1}]"; got != want {
		t.Errorf("Counts = %s, want %s", got, want)
	}
}

// TestPipelinedRefusals checks that each write of a pipelined Apply is
// refused with the store's sentinel and its index, and that the writes
// before it in the batch roll back with it.
func TestPipelinedRefusals(t *testing.T) {
	db := open(t, pgtest.Schema(t))
	ctx := t.Context()
	rec, err := db.Create(ctx, store.Record{Kind: "k", Key: "a", Value: []byte("1"), UpdatedAt: at()})
	if err != nil {
		t.Fatal(err)
	}
	res := store.Reservation{Reference: "R1", Location: "riverside", Unit: "double", FirstSlot: "2026-12-01", LastSlot: "2026-12-01",
		State: "reserved", Source: "chat", UpdatedAt: at()}
	if _, err := db.Apply(ctx, []store.Write{{Op: store.OpCreateReservation, Reservation: &res}}); err != nil {
		t.Fatal(err)
	}
	full := store.Hold{ID: "full", Location: "riverside", Unit: "double", Slots: []string{"2026-12-02"}, Units: 1, Capacity: 1, At: at()}
	if err := db.Hold(ctx, full); err != nil {
		t.Fatal(err)
	}
	stale, absent := rec, store.Record{Kind: "k", Key: "gone", Version: 1, UpdatedAt: at()}
	stale.Version = 7
	staleRes, absentRes := res, res
	staleRes.Version, absentRes.Reference = 3, "R2"
	// A hold over a free night and the full one: the free night must roll back.
	twoNights := store.Hold{ID: "two", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01", "2026-12-02"}, Units: 1, Capacity: 1, At: at()}
	fresh := store.Write{Op: store.OpCreate, Record: store.Record{Kind: "k", Key: "fresh", Value: []byte("x"), UpdatedAt: at()}}
	tests := []struct {
		name  string
		write store.Write
		want  error
	}{
		{"create taken", store.Write{Op: store.OpCreate, Record: store.Record{Kind: "k", Key: "a", UpdatedAt: at()}}, store.ErrExists},
		{"swap stale", store.Write{Op: store.OpSwap, Record: stale}, store.ErrConflict},
		{"swap absent", store.Write{Op: store.OpSwap, Record: absent}, store.ErrNotFound},
		{"delete stale", store.Write{Op: store.OpDelete, Record: stale}, store.ErrConflict},
		{"delete absent", store.Write{Op: store.OpDelete, Record: absent}, store.ErrNotFound},
		{"hold taken", store.Write{Op: store.OpHold, Hold: &full}, store.ErrExists},
		{"hold full", store.Write{Op: store.OpHold, Hold: &twoNights}, store.ErrFull},
		{"reservation taken", store.Write{Op: store.OpCreateReservation, Reservation: &res}, store.ErrExists},
		{"reservation stale", store.Write{Op: store.OpSwapReservation, Reservation: &staleRes}, store.ErrConflict},
		{"reservation absent", store.Write{Op: store.OpSwapReservation, Reservation: &absentRes}, store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Apply(ctx, []store.Write{fresh, tt.write})
			we, ok := errors.AsType[*store.WriteError](err)
			if !ok || we.Index != 1 || !errors.Is(err, tt.want) {
				t.Fatalf("Apply = %v, want write 1 refused with %v", err, tt.want)
			}
			if _, err := db.Get(ctx, "k", "fresh"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(fresh) after a refused Apply = %v, want %v", err, store.ErrNotFound)
			}
			cs, err := db.Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(cs), "[{double 2026-12-02 1}]"; got != want {
				t.Fatalf("Counts after a refused Apply = %s, want %s", got, want)
			}
		})
	}
}

// BenchmarkRoundTrips measures the two costs a booking is made of on
// this engine: a read, one round trip, and a single-row commit.
func BenchmarkRoundTrips(b *testing.B) {
	db, err := Open(context.Background(), pgtest.Schema(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Create(ctx, store.Record{Kind: "k", Key: "read", Value: []byte("v"), UpdatedAt: at()}); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Get(ctx, "k", "read"); err != nil {
				b.Fatal(err)
			}
		}
	})
	i := 0 // across runs of the sub-benchmark, which share the schema
	b.Run("commit", func(b *testing.B) {
		for b.Loop() {
			i++
			if _, err := db.Create(ctx, store.Record{Kind: "k", Key: fmt.Sprint(i), Value: []byte("v"), UpdatedAt: at()}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAbortedEveryTimeIsAConflict: a batch or a transaction PostgreSQL
// aborts as a serialization failure on every attempt is run
// maxTxAttempts times and then answered store.ErrConflict, on the
// pipelined path as on the step-by-step one. The pipeline used to send
// its batch again as it was, naming the statements pgx had deallocated
// after the abort, so its second attempt failed with "prepared statement
// does not exist", and it returned that raw error, which the doors took
// for an outage, instead of the contention it was. A trigger
// raises the abort for records of one kind and counts the attempts in a
// sequence, which an aborted transaction does not roll back.
func TestAbortedEveryTimeIsAConflict(t *testing.T) {
	db, _ := openTraced(t)
	ctx := t.Context()
	for _, q := range []string{
		`CREATE SEQUENCE aborted_attempts`,
		`CREATE FUNCTION abort_serialization() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			PERFORM nextval('aborted_attempts');
			RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
		END $$`,
		`CREATE TRIGGER abort_kind BEFORE INSERT OR UPDATE ON records
			FOR EACH ROW WHEN (NEW.kind = 'aborted') EXECUTE FUNCTION abort_serialization()`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	attempts := func() int64 {
		var n int64
		if err := db.pool.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM aborted_attempts`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rec := store.Record{Kind: "aborted", Key: "a", Value: []byte("1"), UpdatedAt: at()}
	cases := []struct {
		name  string
		apply func() error
	}{
		{"pipelined", func() error {
			_, err := db.Apply(ctx, []store.Write{{Op: store.OpCreate, Record: rec}})
			return err
		}},
		{"step by step", func() error {
			// Two writes of one key take the step-by-step path.
			_, err := db.Apply(ctx, []store.Write{{Op: store.OpCreate, Record: rec}, {Op: store.OpSwap, Record: store.Record{Kind: rec.Kind, Key: rec.Key, Value: []byte("2"), Version: 1, UpdatedAt: at()}}})
			return err
		}},
	}
	for _, c := range cases {
		before := attempts()
		err := c.apply()
		if !errors.Is(err, store.ErrConflict) {
			t.Errorf("%s: err = %v, want store.ErrConflict", c.name, err)
		}
		if got := attempts() - before; got != maxTxAttempts {
			t.Errorf("%s: %d attempts, want %d", c.name, got, maxTxAttempts)
		}
	}
	if _, err := db.Get(ctx, "aborted", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get after the aborts = %v, want not found", err)
	}
}
