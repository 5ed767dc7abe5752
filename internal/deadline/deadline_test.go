package deadline

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestDeadlineNamesTheSilence: a command whose work outlives its deadline
// returns at the deadline, not when the work gives up, with the
// database's silence as its error, not the step it was in.
func TestDeadlineNamesTheSilence(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	began := time.Now()
	err := Run(context.Background(), "staff list", 200*time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		<-release // a driver still cancelling its statement
		return fmt.Errorf("migrate: %w", ctx.Err())
	})
	if took := time.Since(began); took > time.Second {
		t.Fatalf("returned after %v, want at the 200 ms deadline", took)
	}
	if err == nil || err.Error() != "staff list: the database did not answer within 0.2 s" {
		t.Fatalf("err = %v", err)
	}
	err = Run(context.Background(), "sweep", time.Second, func(ctx context.Context) error { return fmt.Errorf("migrate: %w", context.DeadlineExceeded) })
	if err == nil || err.Error() != "migrate: context deadline exceeded" {
		t.Fatalf("an error of its own before the deadline = %v, want it kept", err)
	}
}
