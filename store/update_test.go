package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestLostRace: a refused conditional write is a lost race; an absent
// record read, a full counter and other failures are not.
func TestLostRace(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a stale swap", fmt.Errorf("swap: %w", ErrConflict), true},
		{"a taken create", ErrExists, true},
		{"an absent read", ErrNotFound, false},
		{"a batch write stale", &WriteError{Index: 1, Err: ErrConflict}, true},
		{"a batch write gone", &WriteError{Err: ErrNotFound}, true},
		{"a batch write taken", &WriteError{Err: ErrExists}, true},
		{"a full counter", &WriteError{Err: ErrFull}, false},
		{"an outage", errors.New("disk full"), false},
		{"a serialization failure", fmt.Errorf("%w: %w", ErrConflict, errors.New("40001")), true},
		{"joined", errors.Join(errors.New("also"), ErrExists), true},
		{"every attempt lost", fmt.Errorf("update: %w", &LostRaces{Attempts: 2, Last: ErrConflict}), true},
		{"answered by a refusal", &refusal{err: ErrConflict}, false},
		{"an answered batch write", fmt.Errorf("book: %w", &refusal{err: &WriteError{Err: ErrConflict}}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LostRace(tt.err); got != tt.want {
				t.Fatalf("LostRace(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestFinal: an attempt that marks a lost race Final ends the retry with
// that error, unwrapped.
func TestFinal(t *testing.T) {
	calls := 0
	refused := &WriteError{Err: ErrConflict}
	err := Retry(context.Background(), func() error {
		calls++
		return Final(refused)
	})
	if calls != 1 || err != refused {
		t.Fatalf("Retry = %v after %d calls, want the refused write after 1", err, calls)
	}
	if Final(nil) != nil {
		t.Fatal("Final(nil) is not nil")
	}
}

// refusal stands for a domain's answer that names a lost race as its
// cause.
type refusal struct{ err error }

func (r *refusal) Error() string { return "taken: " + r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// TestRetrier: lost races run the attempt again, waiting between
// attempts; any other answer ends the retry; contention that outlasts the
// attempts is a *LostRaces matching ErrConflict, naming the last refusal.
func TestRetrier(t *testing.T) {
	ctx := context.Background()
	var waits []int
	r := Retrier{Attempts: 4, Wait: func(_ context.Context, n int) error { waits = append(waits, n); return nil }}
	calls := 0
	err := r.Run(ctx, func() error {
		calls++
		if calls < 3 {
			return &WriteError{Err: ErrConflict}
		}
		return nil
	})
	if err != nil || calls != 3 || len(waits) != 2 || waits[1] != 2 {
		t.Fatalf("Run = %v after %d calls and waits %v, want nil after 3 calls and waits [1 2]", err, calls, waits)
	}

	stop := errors.New("refused")
	calls = 0
	if err := r.Run(ctx, func() error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("Run with a refusal = %v after %d calls, want %v after 1", err, calls, stop)
	}

	calls, waits = 0, nil
	last := &WriteError{Index: 2, Err: ErrExists}
	err = r.Run(ctx, func() error { calls++; return last })
	lost, ok := errors.AsType[*LostRaces](err)
	if !ok || lost.Attempts != 4 || calls != 4 || len(waits) != 3 {
		t.Fatalf("Run losing every race = %v after %d calls and %d waits, want a *LostRaces after 4 calls and 3 waits", err, calls, len(waits))
	}
	if !errors.Is(err, ErrConflict) || !errors.Is(err, ErrExists) {
		t.Fatalf("Run losing every race = %v, want it to match ErrConflict and the last refusal", err)
	}

	halt := errors.New("cancelled")
	calls = 0
	r.Wait = func(context.Context, int) error { return halt }
	if err := r.Run(ctx, func() error { calls++; return ErrConflict }); err != halt || calls != 1 {
		t.Fatalf("Run with a failing wait = %v after %d calls, want %v after 1", err, calls, halt)
	}
}
