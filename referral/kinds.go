package referral

import "frontdesk/forget"

// RecordKinds registers the referral ledger: an attributed booking's
// reference, partner and amounts, no contact.
func RecordKinds() []forget.Kind {
	return []forget.Kind{{Name: kindBooking, Keeps: "a booking attributed to a partner and what it owes", Forget: forget.Nothing}}
}
