package usp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// waitlistKeep is how long an entry that ended (accepted, expired,
// declined, removed) is kept after its last change: a week, for its
// platform to read how it ended with usp_waitlist_get. Then the USP sweep
// deletes it and the buyer it names. It also bounds what every join and
// offer reads of a service's line: the entries in it and a week of ended
// ones, not all of its history.
const waitlistKeep = 7 * 24 * time.Hour

// PurgeWaitlist deletes the waitlist entries that ended more than
// waitlistKeep ago, for the sweep; it returns how many went. An entry
// changed meanwhile keeps its change: the delete names the version read.
func (b *Business) PurgeWaitlist(ctx context.Context) (int, error) {
	if b.st == nil {
		return 0, nil
	}
	cutoff := b.clock.Now().Add(-waitlistKeep)
	n := 0
	for after := ""; ; {
		page, err := b.st.List(ctx, kindWaitlist, "", after, 500)
		if err != nil {
			return n, fmt.Errorf("list waitlist: %w", err)
		}
		for _, rec := range page {
			after = rec.Key
			e, err := decodeEntry(rec)
			if err != nil || e.queued() || !rec.UpdatedAt.Before(cutoff) {
				continue // an unreadable entry is left for staff to see
			}
			err = b.st.Delete(ctx, kindWaitlist, rec.Key, rec.Version)
			switch {
			case err == nil:
				n++
			case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound):
				// changed or gone meanwhile
			default:
				return n, fmt.Errorf("purge waitlist: %w", err)
			}
		}
		if len(page) < 500 {
			return n, nil
		}
	}
}
