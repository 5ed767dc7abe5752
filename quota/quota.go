// Package quota counts uses of a budget over fixed time windows, such as
// "five form requests an hour from one address", in store records claimed
// with conditional writes. A use is claimed before the thing it limits is
// evaluated, so parallel callers never get more than the budget, and a
// window is one small record, so nothing grows with history.
//
// It is a domain package: it imports store only.
package quota

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"frontdesk/store"
)

// Budget is how many uses one key may make in each window.
type Budget struct {
	Kind   string // the record kind, such as "staff.attempts"
	Limit  int
	Window time.Duration
}

// ErrSpent means the window has no use left; Until says when it ends.
type ErrSpent struct{ Until time.Time }

func (e *ErrSpent) Error() string { return "quota: spent until " + e.Until.Format(time.RFC3339) }

// Claim takes one use of key's budget in the window holding now, or
// returns *ErrSpent when every use is taken. Any other error is storage
// trouble, and then nothing was claimed.
func (b Budget) Claim(ctx context.Context, records store.Records, key string, now time.Time) error {
	start := now.Truncate(b.Window)
	k := key + "/" + strconv.FormatInt(start.Unix(), 10)
	for {
		r, err := records.Get(ctx, b.Kind, k)
		if errors.Is(err, store.ErrNotFound) {
			_, err = records.Create(ctx, store.Record{Kind: b.Kind, Key: k, Value: []byte("1"), UpdatedAt: now})
			if errors.Is(err, store.ErrExists) {
				continue // another use came first: count on top of it
			}
			if err != nil {
				return fmt.Errorf("claim %s: %w", b.Kind, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", b.Kind, err)
		}
		n, _ := strconv.Atoi(string(r.Value))
		if n >= b.Limit {
			return &ErrSpent{Until: start.Add(b.Window)}
		}
		r.Value, r.UpdatedAt = []byte(strconv.Itoa(n+1)), now
		_, err = records.Swap(ctx, r)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("claim %s: %w", b.Kind, err)
		}
		return nil
	}
}

// Purge deletes the windows of this budget that ended before now, and
// returns how many it removed. The sweep calls it.
func (b Budget) Purge(ctx context.Context, records store.Records, now time.Time) (int, error) {
	removed, after := 0, ""
	for {
		page, err := records.List(ctx, b.Kind, "", after, 500)
		if err != nil {
			return removed, fmt.Errorf("list %s: %w", b.Kind, err)
		}
		for _, r := range page {
			if now.Sub(r.UpdatedAt) > b.Window && records.Delete(ctx, b.Kind, r.Key, r.Version) == nil {
				removed++
			}
		}
		if len(page) < 500 {
			return removed, nil
		}
		after = page[len(page)-1].Key
	}
}
