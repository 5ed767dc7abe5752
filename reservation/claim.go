package reservation

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/quota"
	"frontdesk/store"
)

// kindClaim is the record kind of the pending claims made before the
// ceilings became counters (key: scope "/" place). Such a claim is still
// released as it was made, by deleting its record.
const kindClaim = "reservation-claim"

// A pending ceiling ("three reservations awaiting staff at a location")
// is a store counter per scope (see quota.Lease): a reservation takes a
// use of it with a conditional write in the transaction that creates the
// reservation, counting until the end of its stay unless a decision
// gives it back earlier. No claim reads more than the counter, whatever
// the ceiling or the history, and parallel claims never pass it.

// pendingCounter is the counter of a scope's pending ceiling.
func pendingCounter(scope string) string { return kindClaim + "/" + scope }

// Claim returns the write that claims one use of scope's pending ceiling
// of limit for a reservation pending until the given instant, for the
// caller to commit with the reservation, and the claim's key, to keep in
// the reservation's Claims. A full ceiling refuses the write with
// store.ErrFull.
func Claim(scope string, limit int, until, now time.Time) (string, store.Write) {
	key := scope + "@" + strconv.FormatInt(until.UnixNano(), 10)
	return key, quota.Lease{Limit: limit}.Take(pendingCounter(scope), until, now)
}

// Live counts the reservations that count against scope's ceiling now.
func Live(ctx context.Context, st store.Counters, scope string, now time.Time) (int, error) {
	n, err := quota.Used(ctx, st, pendingCounter(scope), now)
	if err != nil {
		return 0, fmt.Errorf("read claims: %w", err)
	}
	return n, nil
}

// counterClaim splits a claim key made by Claim into its scope and end;
// ok is false for a claim made as a record.
func counterClaim(key string) (scope string, until time.Time, ok bool) {
	scope, end, ok := strings.Cut(key, "@")
	if !ok {
		return "", time.Time{}, false
	}
	n, err := strconv.ParseInt(end, 10, 64)
	if err != nil {
		return "", time.Time{}, false
	}
	return scope, time.Unix(0, n), true
}

// ReleaseClaims are the writes that end the given claims at now: a
// give-back of each counted claim, and the delete of each claim made as
// a record at its version in versions. The caller commits them with the
// change that ends the pending state, so each is released once.
func ReleaseClaims(keys []string, versions map[string]int64, now time.Time) []store.Write {
	var ws []store.Write
	for _, key := range keys {
		if scope, until, counted := counterClaim(key); counted {
			ws = append(ws, quota.Lease{}.GiveBack(pendingCounter(scope), until, now))
			continue
		}
		if v, ok := versions[key]; ok {
			ws = append(ws, store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindClaim, Key: key, Version: v}})
		}
	}
	return ws
}
