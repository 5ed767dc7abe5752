package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"frontdesk/store"
)

// kindClaim is the record kind of pending claims.
const kindClaim = "reservation-claim" // key: scope "/" place

// A pending ceiling ("three reservations awaiting staff at a location")
// is a fixed number of places under a scope, each one record that a
// reservation claims with a conditional create, or takes over with a
// compare-and-swap once its holder's stay has ended. Nothing grows with
// history: the places are the ceiling, and reservations at different
// scopes never write the same record.

// claim is the value of one place.
type claim struct {
	Ref   string    `json:"ref"`
	Until time.Time `json:"until"` // after this the place counts as free
}

// ErrCeiling means every place under a scope is taken.
var ErrCeiling = errors.New("reservation: pending ceiling reached")

// Claim returns the write that claims a place under scope for ref until
// the given instant, for the caller to commit with the reservation, and
// the key it claims. It returns ErrCeiling when limit places are live. A
// refused write means another claim came first: read again.
func Claim(ctx context.Context, st store.Records, scope string, limit int, ref string, until, now time.Time) (string, store.Write, error) {
	places, err := st.List(ctx, kindClaim, scope+"/", "", 1000)
	if err != nil {
		return "", store.Write{}, fmt.Errorf("read claims: %w", err)
	}
	taken := map[string]store.Record{}
	live := 0
	for _, p := range places {
		var c claim
		if json.Unmarshal(p.Value, &c) == nil && now.Before(c.Until) {
			live++
			continue
		}
		taken[p.Key] = p // stale: free to take over
	}
	if live >= limit {
		return "", store.Write{}, ErrCeiling
	}
	free := FreePlaces(scope, limit, places, taken)
	if len(free) == 0 {
		return "", store.Write{}, ErrCeiling
	}
	// Claimants spread over the free places, so two at once rarely pick
	// the same one; the choice is a hash of the reference, not a draw,
	// so it repeats in tests.
	h := fnv.New32a()
	h.Write([]byte(ref))
	key := free[int(h.Sum32()%uint32(len(free)))]
	value, _ := json.Marshal(claim{Ref: ref, Until: until.UTC()})
	r := store.Record{Kind: kindClaim, Key: key, Value: value, UpdatedAt: now}
	if old, ok := taken[key]; ok {
		r.Version = old.Version
		return key, store.Write{Op: store.OpSwap, Record: r}, nil
	}
	return key, store.Write{Op: store.OpCreate, Record: r}, nil
}

// FreePlaces lists the places under scope that a claim may take: the
// stale ones, and a few of the never-used ones below limit. It looks at
// no more places than exist, whatever the limit.
func FreePlaces(scope string, limit int, places []store.Record, stale map[string]store.Record) []string {
	used := make(map[string]bool, len(places))
	var free []string
	for _, p := range places {
		used[p.Key] = true
		if _, ok := stale[p.Key]; ok {
			free = append(free, p.Key)
		}
	}
	for i, fresh := 0, 0; i < limit && fresh < 8; i++ {
		if key := fmt.Sprintf("%s/%04d", scope, i); !used[key] {
			free = append(free, key)
			fresh++
		}
	}
	return free
}

// Live counts the places under scope that still count.
func Live(ctx context.Context, st store.Records, scope string, now time.Time) (int, error) {
	places, err := st.List(ctx, kindClaim, scope+"/", "", 1000)
	if err != nil {
		return 0, fmt.Errorf("read claims: %w", err)
	}
	live := 0
	for _, p := range places {
		var c claim
		if json.Unmarshal(p.Value, &c) == nil && now.Before(c.Until) {
			live++
		}
	}
	return live, nil
}

// ReleaseClaims are the deletes of the given claims at their versions.
func ReleaseClaims(keys []string, versions map[string]int64) []store.Write {
	var ws []store.Write
	for _, key := range keys {
		if v, ok := versions[key]; ok {
			ws = append(ws, store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindClaim, Key: key, Version: v}})
		}
	}
	return ws
}
