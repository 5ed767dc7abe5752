package credential

import "frontdesk/forget"

// RecordKinds registers the booking-scoped credentials: a hash, its
// booking and its key, until the booking ends.
func RecordKinds() []forget.Kind {
	return []forget.Kind{{Name: Kind, Keeps: "a booking-scoped credential's hash, booking and key, until the sweep after the booking ends", Forget: forget.Nothing}}
}
