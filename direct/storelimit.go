package direct

import (
	"context"
	"time"

	"frontdesk/store"
)

// limitedStore caps every request the booking service sends to the
// store at one limit (the worksheet's "Location requests at most 4
// seconds within its deadline"), clipped to what remains of the caller's
// deadline, so one hung request cannot take the whole operation with it.
// A request cut off this way ends with the context's error: the callers
// already treat that as an unknown outcome, never as a rollback.
type limitedStore struct {
	store.Store
	d *Deadlines // the service's own, so a test that shortens them shortens this too
}

var _ store.Store = limitedStore{}

func (s limitedStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Create(ctx, r)
}

func (s limitedStore) Get(ctx context.Context, kind, key string) (store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Get(ctx, kind, key)
}

func (s limitedStore) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.GetMany(ctx, keys)
}

func (s limitedStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Swap(ctx, r)
}

func (s limitedStore) Delete(ctx context.Context, kind, key string, version int64) error {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Delete(ctx, kind, key, version)
}

func (s limitedStore) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.List(ctx, kind, prefix, after, limit)
}

func (s limitedStore) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Apply(ctx, writes)
}

func (s limitedStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Counts(ctx, location, from, to)
}

func (s limitedStore) Hold(ctx context.Context, h store.Hold) error {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Hold(ctx, h)
}

func (s limitedStore) Release(ctx context.Context, id string, at time.Time) error {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Release(ctx, id, at)
}

func (s limitedStore) Holds(ctx context.Context, after string, limit int) ([]store.Hold, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Holds(ctx, after, limit)
}

func (s limitedStore) GetReservation(ctx context.Context, reference string) (store.Reservation, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.GetReservation(ctx, reference)
}

func (s limitedStore) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.ListReservations(ctx, f)
}

func (s limitedStore) Counted(ctx context.Context, name string, live int64) (int64, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Counted(ctx, name, live)
}

func (s limitedStore) Buckets(ctx context.Context, name string, live int64) ([]store.Bucket, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.Buckets(ctx, name, live)
}

func (s limitedStore) CounterNames(ctx context.Context, prefix, after string, limit int) ([]string, error) {
	ctx, cancel := within(ctx, s.d.Location)
	defer cancel()
	return s.Store.CounterNames(ctx, prefix, after, limit)
}
