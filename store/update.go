package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// UpdateAttempts bounds how often Update decides a change again after
// losing a race. Every lost race is another writer's success, so the bound
// only stops a caller that keeps losing; it is high enough that the
// busiest record (a mailbox's open intents during a burst) is not refused.
const UpdateAttempts = 400

// ErrNoChange, returned by the change function of Update or UpdateWith,
// ends the update without writing; the update returns the value as change
// left it and no error.
var ErrNoChange = errors.New("store: no change")

// GetJSON reads the record kind/key and decodes its JSON value into a T.
// It returns the record as read (for its version) or ErrNotFound.
func GetJSON[T any](ctx context.Context, st Records, kind, key string) (T, Record, error) {
	var v T
	r, err := st.Get(ctx, kind, key)
	if err != nil {
		return v, Record{}, err
	}
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return v, Record{}, fmt.Errorf("decode %s: %w", kind, err)
	}
	return v, r, nil
}

// JSONRecord encodes v as the value of record kind/key at version, written
// at now.
func JSONRecord(kind, key string, v any, version int64, now time.Time) (Record, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Record{}, fmt.Errorf("encode %s: %w", kind, err)
	}
	return Record{Kind: kind, Key: key, Value: b, Version: version, UpdatedAt: now}, nil
}

// Update changes the JSON record kind/key in a read, change, conditional
// write cycle. change gets the value read (the zero T when the record is
// absent, with found false) and edits it in place; the result is created
// when the record was absent and swapped on the version read otherwise.
// When another writer got there first (the record changed, appeared or
// went meanwhile) Update reads again and calls change again, up to
// UpdateAttempts times, so change must decide on the value it is given
// each time. It returns the value written. An error from change ends the
// update with nothing written and is returned as it is, except
// ErrNoChange, which returns the value and no error. Contention that
// outlasts every attempt is an error wrapping ErrConflict.
func Update[T any](ctx context.Context, st Records, kind, key string, now time.Time, change func(v *T, found bool) error) (T, error) {
	return UpdateWith(ctx, st, kind, key, now, func(v *T, read Record) ([]Write, error) {
		return nil, change(v, read.Version != 0)
	})
}

// UpdateWith is Update for a change that commits other writes with the
// record: change also gets the record as read (Version 0 when absent) and
// returns the writes to apply after the record's own, in the same
// transaction. A refusal of any of them for contention (ErrConflict,
// ErrExists or ErrNotFound) reads again and decides again, as a conflict
// of the record does; ErrFull is returned as it is.
func UpdateWith[T any](ctx context.Context, st Records, kind, key string, now time.Time, change func(v *T, read Record) ([]Write, error)) (T, error) {
	for range UpdateAttempts {
		v, read, err := GetJSON[T](ctx, st, kind, key)
		switch {
		case errors.Is(err, ErrNotFound):
			read = Record{Kind: kind, Key: key}
		case err != nil:
			return v, err
		}
		also, err := change(&v, read)
		if errors.Is(err, ErrNoChange) {
			return v, nil
		}
		if err != nil {
			return v, err
		}
		r, err := JSONRecord(kind, key, v, read.Version, now)
		if err != nil {
			return v, err
		}
		w := Write{Op: OpSwap, Record: r}
		if read.Version == 0 {
			w.Op = OpCreate
		}
		_, err = st.Apply(ctx, append([]Write{w}, also...))
		if !lostRace(err) {
			return v, err
		}
		if err := ctx.Err(); err != nil {
			return v, err
		}
	}
	var zero T
	return zero, fmt.Errorf("update %s: %d attempts lost a race: %w", kind, UpdateAttempts, ErrConflict)
}

// lostRace reports whether err is a write refused because another writer
// changed what it was decided on.
func lostRace(err error) bool {
	we, ok := errors.AsType[*WriteError](err)
	return ok && (errors.Is(we.Err, ErrConflict) || errors.Is(we.Err, ErrExists) || errors.Is(we.Err, ErrNotFound))
}

// Ensure returns the record kind/key, creating it first with the value
// create returns when it is absent. Of callers creating it at once, one
// wins and the others return its record, so every caller ends with the
// same value. create may be called again after a lost race.
func Ensure(ctx context.Context, st Records, kind, key string, now time.Time, create func() ([]byte, error)) (Record, error) {
	for range UpdateAttempts {
		r, err := st.Get(ctx, kind, key)
		if !errors.Is(err, ErrNotFound) {
			return r, err
		}
		v, err := create()
		if err != nil {
			return Record{}, err
		}
		r, err = st.Create(ctx, Record{Kind: kind, Key: key, Value: v, UpdatedAt: now})
		if !errors.Is(err, ErrExists) {
			return r, err
		}
	}
	return Record{}, fmt.Errorf("ensure %s: %d attempts lost a race: %w", kind, UpdateAttempts, ErrConflict)
}

// Remove deletes the record kind/key at whatever version it has, reading
// it again when it changed between the read and the delete. An absent
// record is no error.
func Remove(ctx context.Context, st Records, kind, key string) error {
	for range UpdateAttempts {
		r, err := st.Get(ctx, kind, key)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		err = st.Delete(ctx, kind, key, r.Version)
		if !errors.Is(err, ErrConflict) {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
	}
	return fmt.Errorf("remove %s: %d attempts lost a race: %w", kind, UpdateAttempts, ErrConflict)
}
