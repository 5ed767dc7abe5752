package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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
// ErrNoChange, which returns the value and no error, and a lost race (see
// LostRace) of a write change made itself, which decides again.
// Contention that outlasts every attempt is an error wrapping ErrConflict.
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
	var v T
	err := Retry(ctx, func() error {
		var read Record
		var err error
		v, read, err = GetJSON[T](ctx, st, kind, key)
		switch {
		case errors.Is(err, ErrNotFound):
			read = Record{Kind: kind, Key: key}
		case err != nil:
			return err
		}
		also, err := change(&v, read)
		if err != nil {
			return err
		}
		r, err := JSONRecord(kind, key, v, read.Version, now)
		if err != nil {
			return err
		}
		w := Write{Op: OpSwap, Record: r}
		if read.Version == 0 {
			w.Op = OpCreate
		}
		_, err = st.Apply(ctx, append([]Write{w}, also...))
		return err
	})
	switch {
	case errors.Is(err, ErrNoChange):
		return v, nil
	case errors.As(err, new(*LostRaces)):
		var zero T
		return zero, fmt.Errorf("update %s: %w", kind, err)
	}
	return v, err
}

// LostRaces is the error of a Retry whose every attempt lost a race. It
// matches ErrConflict.
type LostRaces struct {
	Attempts int
	Last     error // the refusal of the last attempt
}

func (e *LostRaces) Error() string {
	return fmt.Sprintf("%d attempts lost a race: %v", e.Attempts, e.Last)
}

func (e *LostRaces) Is(target error) bool { return target == ErrConflict }

func (e *LostRaces) Unwrap() error { return e.Last }

// Retrier says how Retry tries again. The zero Retrier makes
// UpdateAttempts attempts back to back.
type Retrier struct {
	Attempts int // the most attempts; 0 for UpdateAttempts
	// Wait, when set, runs after lost attempt n (from 1) before the next,
	// so that racing writers spread out instead of colliding again at
	// once; an error from it ends the retry.
	Wait func(ctx context.Context, n int) error
}

// Retry runs attempt as the zero Retrier does.
func Retry(ctx context.Context, attempt func() error) error {
	return Retrier{}.Run(ctx, attempt)
}

// Run runs attempt until it returns anything but a lost race, at most
// r.Attempts times. An attempt reads what it decides on and commits its
// decision with conditional writes; one refused because another writer
// changed what was read (see LostRace) runs again on fresh reads. The
// error of an attempt that did not lose a race is returned as it is;
// contention that outlasts every attempt is a *LostRaces.
func (r Retrier) Run(ctx context.Context, attempt func() error) error {
	n := r.Attempts
	if n <= 0 {
		n = UpdateAttempts
	}
	for i := 1; ; i++ {
		err := attempt()
		if f, ok := err.(final); ok {
			return f.err
		}
		if !LostRace(err) {
			return err
		}
		if i == n {
			return &LostRaces{Attempts: n, Last: err}
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if r.Wait != nil {
			if werr := r.Wait(ctx, i); werr != nil {
				return werr
			}
		}
	}
}

// Final marks err, returned by an attempt of Retry, as the answer even
// when it is a lost race: a write that failed for a reason the attempt
// cannot rule out having committed, say, is not tried again. Retry
// returns err itself. Final(nil) is nil.
func Final(err error) error {
	if err == nil {
		return nil
	}
	return final{err}
}

type final struct{ err error }

func (f final) Error() string { return f.err.Error() }
func (f final) Unwrap() error { return f.err }

// LostRace reports whether err is a conditional write refused because
// another writer changed what it was decided on, and nobody has answered
// for it yet: a write of an Apply refused with ErrConflict, ErrExists or
// ErrNotFound, or a Swap or Delete refused with ErrConflict, or a Create
// with ErrExists, as the store returned it or wrapped with fmt.Errorf's
// %w (or errors.Join). A bare ErrNotFound is no race: it is what Get says
// of an absent record. An error of any other type that carries a lost
// race as its cause, such as a domain's refusal, is an answer: the caller
// decided what a lost race means there, so it is not tried again.
func LostRace(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *WriteError:
			return errors.Is(e.Err, ErrConflict) || errors.Is(e.Err, ErrExists) || errors.Is(e.Err, ErrNotFound)
		case *LostRaces:
			return true
		}
		if err == ErrConflict || err == ErrExists {
			return true
		}
		if !plainWrap(err) {
			return false
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			return slices.ContainsFunc(u.Unwrap(), LostRace)
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return false
		}
	}
	return false
}

// plainWrap reports whether err only adds words to the errors it wraps:
// one made by fmt.Errorf with %w, or by errors.Join.
func plainWrap(err error) bool {
	switch reflect.TypeOf(err) {
	case reflect.TypeOf(fmt.Errorf("%w", ErrConflict)),
		reflect.TypeOf(fmt.Errorf("%w%w", ErrConflict, ErrExists)),
		reflect.TypeOf(errors.Join(ErrConflict)):
		return true
	}
	return false
}

// Ensure returns the record kind/key, creating it first with the value
// create returns when it is absent. Of callers creating it at once, one
// wins and the others return its record, so every caller ends with the
// same value. create may be called again after a lost race.
func Ensure(ctx context.Context, st Records, kind, key string, now time.Time, create func() ([]byte, error)) (Record, error) {
	var r Record
	err := Retry(ctx, func() error {
		var err error
		if r, err = st.Get(ctx, kind, key); !errors.Is(err, ErrNotFound) {
			return err
		}
		v, err := create()
		if err != nil {
			return err
		}
		r, err = st.Create(ctx, Record{Kind: kind, Key: key, Value: v, UpdatedAt: now})
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("ensure %s: %w", kind, err)
	}
	return r, nil
}

// Remove deletes the record kind/key at whatever version it has, reading
// it again when it changed between the read and the delete. An absent
// record is no error.
func Remove(ctx context.Context, st Records, kind, key string) error {
	err := Retry(ctx, func() error {
		r, err := st.Get(ctx, kind, key)
		if err != nil {
			return err
		}
		return st.Delete(ctx, kind, key, r.Version)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("remove %s: %w", kind, err)
	}
	return nil
}
