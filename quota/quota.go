// Package quota counts uses of ceilings in the store's counters: sliding
// windows such as "three codes an hour to one mailbox" (Window), fixed
// windows such as "five form requests an hour from one address"
// (Budget), and ceilings of uses that each count until their own end,
// such as "three reservations awaiting staff" (Lease). Each gives the
// conditional write that claims a use, for the caller to commit with the
// thing it limits before that thing happens, so parallel callers never
// get more than the ceiling, and no claim reads more than one counter,
// whatever the ceiling or the history.
//
// It is a domain package: it imports store only.
package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/store"
)

// Counters is what the claims, reads and purges need of a store.
type Counters interface {
	Apply(ctx context.Context, writes []store.Write) ([]store.Record, error)
	store.Counters
}

// bucket is where a use at t lands: its instant in nanoseconds, so a
// sliding window counts exactly the uses within its span.
func bucket(t time.Time) int64 { return max(t.UnixNano(), 0) }

// Window is a sliding ceiling: at most Limit uses in any Span.
type Window struct {
	Limit int
	Span  time.Duration
}

// live is the first bucket that counts at now: uses after now - Span.
func (w Window) live(now time.Time) int64 { return bucket(now.Add(-w.Span)) + 1 }

// Take is the write that counts one use of counter name at now, refused
// with store.ErrFull when Limit uses fall in the Span before it.
func (w Window) Take(name string, now time.Time) store.Write {
	return store.Write{Op: store.OpTake, Tally: &store.Tally{Name: name, Bucket: bucket(now), Live: w.live(now), Limit: int64(w.Limit)}}
}

// GiveBack is the write that uncounts the use taken at at, known unused.
func (w Window) GiveBack(name string, at, now time.Time) store.Write {
	return store.Write{Op: store.OpGiveBack, Tally: &store.Tally{Name: name, Bucket: bucket(at), Live: w.live(now)}}
}

// Used reads how many uses of counter name count at now.
func (w Window) Used(ctx context.Context, st store.Counters, name string, now time.Time) (int, error) {
	n, err := st.Counted(ctx, name, w.live(now))
	return int(n), err
}

// Times reads the instants of the uses of counter name that count at
// now, oldest first, for a screen that says when a full window frees up.
// It reads up to 1000 buckets.
func (w Window) Times(ctx context.Context, st store.Counters, name string, now time.Time) ([]time.Time, error) {
	bs, err := st.Buckets(ctx, name, w.live(now))
	if err != nil {
		return nil, err
	}
	var out []time.Time
	for _, b := range bs {
		for range b.N {
			out = append(out, time.Unix(0, b.Bucket).UTC())
		}
	}
	return out, nil
}

// Forget is the write that drops counter name if no use counts at now.
func (w Window) Forget(name string, now time.Time) store.Write {
	return store.Write{Op: store.OpForget, Tally: &store.Tally{Name: name, Live: w.live(now)}}
}

// Lease is a ceiling of uses that each count until their own end: at most
// Limit uses whose end is after now.
type Lease struct{ Limit int }

// Take is the write that counts one use of counter name until until,
// refused with store.ErrFull when Limit uses count at now.
func (l Lease) Take(name string, until, now time.Time) store.Write {
	return store.Write{Op: store.OpTake, Tally: &store.Tally{Name: name, Bucket: max(bucket(until), bucket(now)+1), Live: bucket(now) + 1, Limit: int64(l.Limit)}}
}

// GiveBack is the write that ends a use taken until until, early.
func (l Lease) GiveBack(name string, until, now time.Time) store.Write {
	return store.Write{Op: store.OpGiveBack, Tally: &store.Tally{Name: name, Bucket: max(bucket(until), 0), Live: bucket(now) + 1}}
}

// Used reads how many uses of counter name count at now.
func Used(ctx context.Context, st store.Counters, name string, now time.Time) (int, error) {
	n, err := st.Counted(ctx, name, bucket(now)+1)
	return int(n), err
}

// Budget is how many uses one key may make in each fixed window.
type Budget struct {
	Kind   string // names the counters, such as "staff.attempts"
	Limit  int
	Window time.Duration
}

// ErrSpent means the window has no use left; Until says when it ends.
type ErrSpent struct{ Until time.Time }

func (e *ErrSpent) Error() string { return "quota: spent until " + e.Until.Format(time.RFC3339) }

// name is the counter of key.
func (b Budget) name(key string) string { return b.Kind + "/" + key }

// start is the window holding now; uses of earlier windows no longer
// count.
func (b Budget) start(now time.Time) time.Time { return now.Truncate(b.Window) }

// Claim takes one use of key's budget in the window holding now, or
// returns *ErrSpent when every use is taken. Any other error is storage
// trouble, and then nothing was claimed.
func (b Budget) Claim(ctx context.Context, st Counters, key string, now time.Time) error {
	start := b.start(now)
	first := bucket(start)
	_, err := st.Apply(ctx, []store.Write{{Op: store.OpTake, Tally: &store.Tally{Name: b.name(key), Bucket: first, Live: first, Limit: int64(b.Limit)}}})
	if errors.Is(err, store.ErrFull) {
		return &ErrSpent{Until: start.Add(b.Window)}
	}
	if err != nil {
		return fmt.Errorf("claim %s: %w", b.Kind, err)
	}
	return nil
}

// GiveBack uncounts one use of key's budget claimed at at, known not to
// count (a sign-in that succeeded). A use whose window has ended is left
// alone: it counts no more.
func (b Budget) GiveBack(ctx context.Context, st Counters, key string, at, now time.Time) error {
	first := bucket(b.start(at))
	_, err := st.Apply(ctx, []store.Write{{Op: store.OpGiveBack, Tally: &store.Tally{Name: b.name(key), Bucket: first, Live: bucket(b.start(now))}}})
	if err != nil {
		return fmt.Errorf("give back %s: %w", b.Kind, err)
	}
	return nil
}

// Purge drops the counters of this budget with no use in the window
// holding now, and returns how many it removed. The sweep calls it.
func (b Budget) Purge(ctx context.Context, st Counters, now time.Time) (int, error) {
	first := bucket(b.start(now))
	return Forget(ctx, st, b.Kind+"/", func(string) int64 { return first })
}

// Forget drops every counter under prefix in which nothing counts from
// the bucket live gives it, and returns how many it removed.
func Forget(ctx context.Context, st Counters, prefix string, live func(name string) int64) (int, error) {
	removed, after := 0, ""
	for {
		names, err := st.CounterNames(ctx, prefix, after, 500)
		if err != nil {
			return removed, fmt.Errorf("list counters: %w", err)
		}
		for _, name := range names {
			// The read only picks the counters worth a write; the
			// write itself leaves a counter alone that a use reached
			// meanwhile.
			if n, err := st.Counted(ctx, name, live(name)); err != nil || n > 0 {
				continue
			}
			if _, err := st.Apply(ctx, []store.Write{{Op: store.OpForget, Tally: &store.Tally{Name: name, Live: live(name)}}}); err != nil {
				return removed, fmt.Errorf("forget counter: %w", err)
			}
			removed++
		}
		if len(names) < 500 {
			return removed, nil
		}
		after = names[len(names)-1]
	}
}
