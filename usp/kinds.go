package usp

import (
	"encoding/json"

	"frontdesk/forget"
)

// RecordKinds are the registrations of the kinds package usp stores.
// Kept answers to idempotent writes (24 hours) and waitlist entries may
// name a buyer: forgetting searches them, and waits for an entry still
// in line.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: kindIdempotency, Keeps: "a kept answer to an idempotent write, for 24 hours", Forget: forget.Search},
		{Name: kindWaitlist, Keeps: "a waitlist entry and its buyer, until its offer ends", Forget: forget.SearchWaiting, Waiting: WaitlistQueued},
		{Name: kindBinding, Keeps: "which platform principal a session acts for", Forget: forget.Nothing},
		{Name: kindSubscription, Keeps: "a platform's feed subscription", Forget: forget.Nothing},
		{Name: kindCatalogState, Keeps: "the catalog as last published, to date its changes", Forget: forget.Nothing},
		{Name: kindPinnedProfile, Keeps: "a pinned platform profile", Forget: forget.Nothing},
		// The token names only the booking; the page answers nothing
		// once its payment action expired.
		{Name: kindPayToken, Keeps: "which booking a payment page's token pays for", Lasts: forget.RetentionDays, Forget: forget.Nothing},
	}
}

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
