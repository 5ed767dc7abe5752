package referral

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// engines runs f on a fresh SQLite file and a fresh PostgreSQL schema.
func engines(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
}

// brokenReads is the ledger's view of the store while the disk under
// the attributions fails: reading one is an error.
type brokenReads struct {
	store.Records
	broken atomic.Bool
}

var errDisk = errors.New("input/output error")

func (b *brokenReads) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if kind == kindBooking && b.broken.Load() {
		return store.Record{}, errDisk
	}
	return b.Records.Get(ctx, kind, key)
}

// TestEndCommitsWhenTheLedgerCannotRead: a guest cancels an attributed
// booking while the ledger cannot read its attribution. The
// cancellation commits; the relay fails and leaves the event; once the
// store reads again the next pass settles the booking. The negative
// control is the ledger as an end hook in the end's transaction, where
// the failed read fails the cancellation.
func TestEndCommitsWhenTheLedgerCannotRead(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		desk := reservation.NewDesk(st)
		reads := &brokenReads{Records: st}
		New(Options{Store: st}).Attach(desk, reads)

		r, err := desk.Create(ctx, reservation.New{Kind: reservation.KindBooking, Reference: "RIV-1",
			Unit:  reservation.Unit{Location: "riverside", Type: "double", Capacity: 2},
			Slots: []string{"2026-12-01", "2026-12-02"}, Source: reservation.SourceChat, By: "guest", At: at, Guests: 1, Total: 20000})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(Booking{Deal: "d1", Obligation: "commission", Door: "chat", Total: 20000, Currency: "USD", State: StateCounted, At: at})
		if _, err := st.Create(ctx, store.Record{Kind: kindBooking, Key: "RIV-1", Value: b, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}

		// The stay has begun, so the cancellation is final, not refunded.
		reads.broken.Store(true)
		if _, err := desk.Cancel(ctx, reservation.Change{Read: r, By: "guest", At: at.Add(time.Hour)}); err != nil {
			t.Fatalf("the cancellation failed with the ledger: %v", err)
		}
		if got, err := reservation.Get(ctx, st, "RIV-1"); err != nil || got.State != reservation.Cancelled {
			t.Fatalf("after the cancellation: %v %v", got.State, err)
		}
		if err := desk.Relay(ctx); !errors.Is(err, errDisk) {
			t.Fatalf("relay with the attribution unreadable = %v", err)
		}
		if state := bookingState(t, st, "RIV-1"); state != StateCounted {
			t.Fatalf("a failed settlement changed the booking: %s", state)
		}

		reads.broken.Store(false)
		if err := desk.Relay(ctx); err != nil {
			t.Fatal(err)
		}
		if state := bookingState(t, st, "RIV-1"); state != StateFinal {
			t.Fatalf("after the store mended: %s, want %s", state, StateFinal)
		}
	})
}

func bookingState(t *testing.T, st store.Records, ref string) string {
	t.Helper()
	bs, err := Bookings(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Reference == ref {
			return b.State
		}
	}
	t.Fatalf("no attribution of %s", ref)
	return ""
}

// TestUnreadableAttributionDoesNotHoldLaterEnds: an attribution record
// that cannot be decoded is passed over, so the ends after it settle.
// Failing on it would stop the ledger's cursor there on every pass.
func TestUnreadableAttributionDoesNotHoldLaterEnds(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		desk := reservation.NewDesk(st)
		New(Options{Store: st}).Attach(desk, st)
		good, _ := json.Marshal(Booking{Deal: "d1", Obligation: "commission", Door: "chat", Total: 20000, Currency: "USD", State: StateCounted, At: at})
		for _, b := range []struct {
			ref   string
			value []byte
		}{{"RIV-1", []byte(`{"state":`)}, {"RIV-2", good}} {
			r, err := desk.Create(ctx, reservation.New{Kind: reservation.KindBooking, Reference: b.ref,
				Unit:  reservation.Unit{Location: "riverside", Type: "double", Capacity: 2},
				Slots: []string{"2026-12-01", "2026-12-02"}, Source: reservation.SourceChat, By: "guest", At: at, Guests: 1, Total: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Create(ctx, store.Record{Kind: kindBooking, Key: b.ref, Value: b.value, UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if _, err := desk.Cancel(ctx, reservation.Change{Read: r, By: "guest", At: at.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := desk.Relay(ctx); err != nil {
			t.Fatalf("relay past an unreadable attribution = %v", err)
		}
		rec, err := st.Get(ctx, kindBooking, "RIV-2")
		if err != nil {
			t.Fatal(err)
		}
		var b Booking
		if err := json.Unmarshal(rec.Value, &b); err != nil || b.State != StateFinal {
			t.Fatalf("the end after the unreadable one: %s %v, want %s", b.State, err, StateFinal)
		}
	})
}
