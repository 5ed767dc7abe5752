package staff

import "frontdesk/forget"

// RecordKinds registers the staff accounts' kinds: staff's data, not a
// guest's.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: kindUser, Keeps: "a staff account", Forget: forget.Nothing},
		{Name: kindSession, Keeps: "a staff session, until it expires or signs out", Forget: forget.Nothing},
		{Name: kindAttempts, Keeps: "the sign-in attempts kept before they became counters", Forget: forget.Nothing},
		{Name: kindDeviceKey, Keeps: "a device's key for signing in again", Forget: forget.Nothing},
		{Name: kindPasskeyHandle, Keeps: "a passkey's user handle and its account", Forget: forget.Nothing},
	}
}
