package reservation

import "frontdesk/forget"

// RecordKinds registers the desk's records beside its reservations. An
// event carries no contact (StoredEvent); the guest's reservations
// themselves are redacted by forgetting, not deleted.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: kindClaim, Keeps: "a pending claim made before the ceilings became counters", Forget: forget.Nothing},
		{Name: kindEventPending, Keeps: "a transition not yet numbered in the outbox", Forget: forget.Nothing},
		{Name: kindEvent, Keeps: "a numbered transition: reference, states, dates, no contact", Forget: forget.Nothing},
		{Name: kindEventHead, Keeps: "the outbox's last position", Forget: forget.Nothing},
		{Name: kindEventCursor, Keeps: "a consumer's last position delivered", Forget: forget.Nothing},
		{Name: kindOutboxFailing, Keeps: "a consumer's failure, not yet set aside", Forget: forget.Nothing},
		{Name: kindOutboxSetAside, Keeps: "an event a consumer failed, set aside for staff", Forget: forget.Nothing},
		{Name: kindGuestPage, Keeps: "the hash of a guest page's token and its reference", Forget: forget.Nothing},
		{Name: termsIndexed.Kind, Keeps: "whether every reservation has its search terms", Forget: forget.Nothing},
	}
}
