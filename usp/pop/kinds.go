package pop

import "frontdesk/forget"

// RecordKinds registers the proof replay cache and the nonce secret;
// neither holds a guest's data.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: KindJTI, Keeps: "a proof's jti, until it is too old to be accepted again", Forget: forget.Nothing},
		{Name: KindNonceSecret, Keeps: "the secret proof nonces are made with", Forget: forget.Nothing},
	}
}
