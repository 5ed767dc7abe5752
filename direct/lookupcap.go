package direct

import (
	"context"
	"fmt"
	"slices"
	"time"

	"frontdesk/store"
)

// Lookup counters kept (direct-booking.md, "Lookup protection"): at most
// maxOpenLookups counters that are not locked out. Each valid-shaped
// wrong reference adds one, so without a cap a stream of them grows the
// store until the sweep drops them an hour later. Past the cap the
// counters whose last try is oldest go first; a locked one never does,
// since dropping it would lift a lockout early.
const (
	maxOpenLookups = 500
	// trimOpenLookupsTo is where a trim stops, below the cap, so that the
	// next wrong references add counters without reading every counter.
	trimOpenLookupsTo = 450
)

// capLookups drops the oldest non-locked lookup counters when more than
// maxOpenLookups exist. One read tells when there are few; only past the
// cap does it read each counter.
func (s *Service) capLookups(ctx context.Context, now time.Time) error {
	prefix := kindLookups + "/"
	names, err := s.st.CounterNames(ctx, prefix, "", maxOpenLookups+1)
	if err != nil || len(names) <= maxOpenLookups {
		return err
	}
	type open struct {
		name string
		last int64 // the bucket of its newest try that counts, 0 for none
	}
	var opens []open
	live := lookupTries.Take("", now).Tally.Live
	for after := ""; ; {
		page, err := s.st.CounterNames(ctx, prefix, after, 500)
		if err != nil {
			return err
		}
		for _, name := range page {
			buckets, err := s.st.Buckets(ctx, name, live)
			if err != nil {
				return err
			}
			var n, last int64
			for _, b := range buckets {
				n += b.N
				last = max(last, b.Bucket)
			}
			// One try short of the lockout counts as locked: a try in
			// flight may lock it between this read and the drop.
			if n < int64(lookupTries.Limit)-1 {
				opens = append(opens, open{name: name, last: last})
			}
		}
		if len(page) < 500 {
			break
		}
		after = page[len(page)-1]
	}
	if len(opens) <= maxOpenLookups {
		return nil
	}
	slices.SortFunc(opens, func(a, b open) int {
		if a.last != b.last {
			return int(max(-1, min(1, a.last-b.last)))
		}
		return 0
	})
	for _, o := range opens[:len(opens)-trimOpenLookupsTo] {
		writes := []store.Write{
			{Op: store.OpClear, Tally: &store.Tally{Name: o.name}},
			{Op: store.OpForget, Tally: &store.Tally{Name: o.name, Live: live}},
		}
		if _, err := s.st.Apply(ctx, writes); err != nil {
			return fmt.Errorf("drop lookup counter: %w", err)
		}
	}
	return nil
}
