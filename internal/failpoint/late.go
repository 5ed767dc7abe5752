//go:build failpoint

package failpoint

import (
	"context"
	"time"

	"frontdesk/store"
)

// lateStore holds the commit that makes a reservation for delay while
// file exists, then makes it with the caller's deadline and cancellation
// dropped: a write already on the wire before the deadline, which lands
// after it whatever the caller stopped waiting for. Every other request,
// and the commit when file is absent, passes at once.
type lateStore struct {
	store.Store
	delay time.Duration
	file  string
}

func (s *lateStore) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if !commitsReservation(writes) || !armed(s.file) {
		return s.Store.Apply(ctx, writes)
	}
	time.Sleep(s.delay)
	return s.Store.Apply(context.WithoutCancel(ctx), writes)
}

// commitsReservation reports whether writes make a reservation: only
// the reservation desk builds that operation.
func commitsReservation(writes []store.Write) bool {
	for _, w := range writes {
		if w.Op == store.OpCreateReservation {
			return true
		}
	}
	return false
}
