package webhook

import "frontdesk/forget"

// RecordKinds registers the outbox's events: a body renders a booking
// and may name its buyer, so forgetting searches them.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: Kind, Keeps: "a webhook event to deliver, until delivered or given up", Forget: forget.Search},
		{Name: DeadKind, Keeps: "a webhook event given up, for staff to see", Forget: forget.Search},
	}
}
