//go:build failpoint

package failpoint

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"frontdesk/store"
)

// delays are the settings that delay the store rather than kill the
// process, each "NAME:DURATION:FILE" and armed while FILE exists, so a
// test starts the process at full speed and delays it when it chooses:
// "slow" makes every request of the store wait DURATION before it is
// sent; "late" holds the reservation commit alone (late.go).
var delays = map[string]func(st store.Store, delay time.Duration, file string) store.Store{
	"slow": func(st store.Store, delay time.Duration, file string) store.Store {
		return &slowStore{Store: st, delay: delay, file: file}
	},
	"late": func(st store.Store, delay time.Duration, file string) store.Store {
		return &lateStore{Store: st, delay: delay, file: file}
	},
}

// parseDelay reads a setting of delays; ok is false for any other setting.
func parseDelay(v string) (fp Failpoint, ok bool, err error) {
	name, rest, _ := strings.Cut(v, ":")
	wrap := delays[name]
	if wrap == nil {
		return Failpoint{}, false, nil
	}
	d, file, _ := strings.Cut(rest, ":")
	delay, err := time.ParseDuration(d)
	if err != nil || delay <= 0 || file == "" {
		return Failpoint{}, true, fmt.Errorf("%s=%q: want %s:DURATION:FILE", Env, v, name)
	}
	return Failpoint{Store: func(st store.Store) store.Store { return wrap(st, delay, file) }}, true, nil
}

// armed reports whether the delay's file exists.
func armed(file string) bool {
	_, err := os.Stat(file)
	return err == nil
}

// slowStore delays every request of the store by delay while file
// exists, or until the request's context ends: a store that answers
// late, not one that is down. Ready and Close are not delayed, so the
// process still starts and stops.
type slowStore struct {
	store.Store
	delay time.Duration
	file  string
}

// wait is the delay of one request, or the end of its context first.
func (s *slowStore) wait(ctx context.Context) error {
	if !armed(s.file) {
		return nil
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *slowStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return store.Record{}, err
	}
	return s.Store.Create(ctx, r)
}

func (s *slowStore) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return store.Record{}, err
	}
	return s.Store.Get(ctx, kind, key)
}

func (s *slowStore) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.GetMany(ctx, keys)
}

func (s *slowStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return store.Record{}, err
	}
	return s.Store.Swap(ctx, r)
}

func (s *slowStore) Delete(ctx context.Context, kind, key string, version int64) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.Store.Delete(ctx, kind, key, version)
}

func (s *slowStore) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, kind, prefix, after, limit)
}

func (s *slowStore) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.Apply(ctx, writes)
}

func (s *slowStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.Counts(ctx, location, from, to)
}

func (s *slowStore) Hold(ctx context.Context, h store.Hold) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.Store.Hold(ctx, h)
}

func (s *slowStore) Release(ctx context.Context, id string, at time.Time) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.Store.Release(ctx, id, at)
}

func (s *slowStore) Holds(ctx context.Context, after string, limit int) ([]store.Hold, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.Holds(ctx, after, limit)
}

func (s *slowStore) GetReservation(ctx context.Context, reference string) (store.Reservation, error) {
	if err := s.wait(ctx); err != nil {
		return store.Reservation{}, err
	}
	return s.Store.GetReservation(ctx, reference)
}

func (s *slowStore) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.ListReservations(ctx, f)
}

func (s *slowStore) Counted(ctx context.Context, name string, live int64) (int64, error) {
	if err := s.wait(ctx); err != nil {
		return 0, err
	}
	return s.Store.Counted(ctx, name, live)
}

func (s *slowStore) Buckets(ctx context.Context, name string, live int64) ([]store.Bucket, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.Buckets(ctx, name, live)
}

func (s *slowStore) CounterNames(ctx context.Context, prefix, after string, limit int) ([]string, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.CounterNames(ctx, prefix, after, limit)
}
