package direct

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/reservation"
	"frontdesk/store"
)

// failingStore fails the nth store call after it is armed, once: a disk
// or connection failing at one durable boundary.
type failingStore struct {
	store.Store
	mu    sync.Mutex
	armed bool
	n     int
	calls int
}

var errDisk = errors.New("disk I/O error")

func (f *failingStore) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.armed {
		return nil
	}
	f.calls++
	if f.calls == f.n {
		return errDisk
	}
	return nil
}

func (f *failingStore) arm(n int) {
	f.mu.Lock()
	f.armed, f.n, f.calls = true, n, 0
	f.mu.Unlock()
}

func (f *failingStore) disarm() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = false
	return f.calls
}

func (f *failingStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	if err := f.fail(); err != nil {
		return store.Record{}, err
	}
	return f.Store.Create(ctx, r)
}

func (f *failingStore) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if err := f.fail(); err != nil {
		return store.Record{}, err
	}
	return f.Store.Get(ctx, kind, key)
}

func (f *failingStore) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.Store.GetMany(ctx, keys)
}

func (f *failingStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	if err := f.fail(); err != nil {
		return store.Record{}, err
	}
	return f.Store.Swap(ctx, r)
}

func (f *failingStore) Delete(ctx context.Context, kind, key string, version int64) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Delete(ctx, kind, key, version)
}

func (f *failingStore) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.Store.List(ctx, kind, prefix, after, limit)
}

func (f *failingStore) GetReservation(ctx context.Context, ref string) (store.Reservation, error) {
	if err := f.fail(); err != nil {
		return store.Reservation{}, err
	}
	return f.Store.GetReservation(ctx, ref)
}

func (f *failingStore) ListReservations(ctx context.Context, filter store.ReservationFilter) ([]store.Reservation, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.Store.ListReservations(ctx, filter)
}

func (f *failingStore) Apply(ctx context.Context, w []store.Write) ([]store.Record, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.Store.Apply(ctx, w)
}

func (f *failingStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.Store.Counts(ctx, location, from, to)
}

func (f *failingStore) Hold(ctx context.Context, h store.Hold) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Hold(ctx, h)
}

func (f *failingStore) Release(ctx context.Context, id string, at time.Time) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Release(ctx, id, at)
}

// TestEveryStoreCallFailingOnConfirm fails each store call of a
// confirmation in turn. No success is claimed that did not happen, no
// hold is lost or doubled, and a retry with the same pair finishes with
// exactly one reservation.
func TestEveryStoreCallFailingOnConfirm(t *testing.T) {
	for n := 1; ; n++ {
		base := newWorld(t)
		fs := &failingStore{Store: base.st}
		w := newWorldOn(t, base.cfg, fs)
		ctx := context.Background()
		res, err := w.start(ctx, web, stayArgs())
		if err != nil {
			t.Fatal(refusalText(err))
		}
		code := w.lastCode("ada@example.com")
		fs.arm(n)
		conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
		calls := fs.disarm()
		held := 2 - freeDoubles(t, w)
		if err == nil && (held != 1 || !reservationHeld(t, w, conf.ReservationNumber)) {
			t.Fatalf("call %d failing: success claimed with %d holds", n, held)
		}
		if held > 1 {
			t.Fatalf("call %d failing: %d holds", n, held)
		}
		if err != nil {
			text := refusalText(err)
			if strings.Contains(text, "is reserved") {
				t.Fatalf("call %d failing: refusal claims a reservation: %q", n, text)
			}
			w.clock.Advance(time.Minute) // past any lease the failure left
			conf, err = w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
			if err == nil && (2-freeDoubles(t, w) != 1 || !reservationHeld(t, w, conf.ReservationNumber)) {
				t.Fatalf("call %d failing: retry succeeded without exactly one hold", n)
			}
			if err != nil && 2-freeDoubles(t, w) != 0 {
				t.Fatalf("call %d failing: retry refused (%q) but a room is held", n, refusalText(err))
			}
		}
		if calls < n {
			break // the confirmation made fewer calls than n: every call has failed once
		}
	}
}

func freeDoubles(t *testing.T, w *world) int {
	free, err := w.svc.inv.FreeNights(context.Background(), w.cfg.Locations[0], mustDate("2026-12-30"), 3)
	if err != nil {
		t.Fatal(err)
	}
	return freeOf(free, "double")
}

func reservationHeld(t *testing.T, w *world, ref string) bool {
	r, err := w.svc.getBooked(context.Background(), ref)
	return err == nil && r.Held && r.State == reservation.Reserved
}

// TestEveryStoreCallFailingOnCancel does the same for the second
// cancellation step: the room is released at most once, and a retry
// reports the cancellation.
func TestEveryStoreCallFailingOnCancel(t *testing.T) {
	for n := 1; ; n++ {
		base := newWorld(t)
		fs := &failingStore{Store: base.st}
		w := newWorldOn(t, base.cfg, fs)
		ctx := context.Background()
		_, cancelID, code := w.openCancellation()
		fs.arm(n)
		_, err := w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
		calls := fs.disarm()
		if free := freeDoubles(t, w); free < 1 || free > 2 {
			t.Fatalf("call %d failing: %d doubles free", n, free)
		}
		done, err2 := w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
		if err2 != nil && err == nil {
			t.Fatalf("call %d failing: first answer succeeded, retry refused %q", n, refusalText(err2))
		}
		if err2 == nil && (done.Status != string(reservation.Cancelled) || freeDoubles(t, w) != 2) {
			t.Fatalf("call %d failing: retry %s with %d free", n, fmt.Sprint(done), freeDoubles(t, w))
		}
		if calls < n {
			break
		}
	}
}
