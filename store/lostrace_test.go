package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"frontdesk/internal/fault"
	"frontdesk/store"
)

// TestRetryEndsOnAnsweredRace: a domain's refusal whose cause is a lost
// race is the answer, given once; only the store's own refusal, bare or
// wrapped with %w, is tried again.
func TestRetryEndsOnAnsweredRace(t *testing.T) {
	taken := &fault.Error{Code: "unit_taken", Message: "That room was just taken.", Err: &store.WriteError{Err: store.ErrConflict}}
	tests := []struct {
		name  string
		err   error
		calls int
	}{
		{"a refusal wrapping a conflict", taken, 1},
		{"the refusal wrapped again", fmt.Errorf("book: %w", taken), 1},
		{"a refusal wrapping a bare conflict", &fault.Error{Code: "stale", Err: store.ErrConflict}, 1},
		{"a bare conflict", fmt.Errorf("swap: %w", store.ErrConflict), 3},
		{"a refused batch write", &store.WriteError{Err: store.ErrExists}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := store.Retrier{Attempts: 3}.Run(context.Background(), func() error {
				calls++
				return tt.err
			})
			if calls != tt.calls {
				t.Fatalf("Run called the attempt %d times, want %d", calls, tt.calls)
			}
			if lost := errors.As(err, new(*store.LostRaces)); lost != (tt.calls > 1) {
				t.Fatalf("Run = %v; a *LostRaces: %v, want %v", err, lost, tt.calls > 1)
			}
			if tt.calls == 1 && err != tt.err {
				t.Fatalf("Run = %v, want the refusal as it is", err)
			}
		})
	}
}
