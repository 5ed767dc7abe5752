//go:build failpoint

package failpoint

import (
	"context"
	"slices"
	"time"

	"frontdesk/store"
)

// lateStore holds the commit that makes a reservation for delay while
// file exists, then makes it with the caller's deadline and cancellation
// dropped: a write already on the wire before the deadline, which lands
// after it whatever the caller stopped waiting for. The commit is the
// one that crosses the record-creation boundary. Every other request,
// and the commit when file is absent, passes at once.
type lateStore struct {
	store.Store
	delay time.Duration
	file  string
}

func (s *lateStore) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if !slices.ContainsFunc(writes, boundaries["record-creation"]) || !armed(s.file) {
		return s.Store.Apply(ctx, writes)
	}
	time.Sleep(s.delay)
	return s.Store.Apply(context.WithoutCancel(ctx), writes)
}
