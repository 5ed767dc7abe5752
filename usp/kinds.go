package usp

import "encoding/json"

// IdempotencyKind is the record kind of kept answers to idempotent
// writes (24 hours), whose bodies may name a buyer: `frontdesk forget`
// searches it.
const IdempotencyKind = kindIdempotency

// WaitlistKind is the record kind of waitlist entries, which hold their
// buyer: `frontdesk forget` searches it.
const WaitlistKind = kindWaitlist

// WaitlistQueued reports whether the stored waitlist entry value is still
// in line (waiting or offered) and its public id: forgetting its buyer
// waits until the entry has ended.
func WaitlistQueued(key string, value []byte) (id string, queued bool) {
	var e waitEntry
	if json.Unmarshal(value, &e) != nil {
		return entryID(key), false
	}
	return entryID(key), e.queued()
}
