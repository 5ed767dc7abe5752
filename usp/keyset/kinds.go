package keyset

import "frontdesk/forget"

// RecordKinds registers the business's webhook signing keys.
func RecordKinds() []forget.Kind {
	return []forget.Kind{{Name: Kind, Keeps: "the business's webhook signing keys", Forget: forget.Nothing}}
}
