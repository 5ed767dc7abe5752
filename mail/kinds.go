package mail

import "frontdesk/forget"

// RecordKinds registers the mail the dev mailbox captured: forgetting
// searches it for a guest's address, and retention deletes it.
func RecordKinds() []forget.Kind {
	return []forget.Kind{{Name: devKind, Keeps: "a mail the dev mailbox captured", Lasts: forget.RetentionDays, Forget: forget.Search}}
}
