package direct

import (
	"context"
	"time"

	"frontdesk/forget"
	"frontdesk/internal/metrics"
	"frontdesk/reservation"
	"frontdesk/store"
)

// MailQueue reads the notices still to deliver (the due index, which
// never holds delivered mail) as monitoring shows them at now.
func MailQueue(ctx context.Context, st store.Records, now time.Time) (metrics.Queue, error) {
	depth, oldest, err := store.Oldest(ctx, st, kindNoticeDue, 1000)
	return metrics.Queue{Name: "mail", Depth: depth, OldestSeconds: metrics.Age(now, oldest), Dead: -1}, err
}

// RecordKinds are the registrations of the kinds direct booking stores.
// Intents and their receipts, notices (queued and sent mail) and
// cancellations may hold a guest's address: forgetting searches them,
// and retention deletes them. The kinds keyed by a reservation reference
// or under a keyed mailbox go with the guest.
func RecordKinds() []forget.Kind {
	return []forget.Kind{
		{Name: kindIntent, Keeps: "a chat booking request and its receipt, with the guest's contact", Lasts: forget.RetentionDays, Forget: forget.Search},
		{Name: kindNotice, Keeps: "a notice to send or sent, with its mail and address", Lasts: forget.RetentionDays, Forget: forget.Search},
		{Name: kindCancel, Keeps: "a cancellation asked for in chat, with the guest's contact", Lasts: forget.RetentionDays, Forget: forget.Search},
		{Name: kindNoticeDue, Keeps: "the due index of notices still to deliver: an instant and a notice id", Forget: forget.ByDue},
		{Name: kindCancelOpen, Keeps: "a reference's open cancellation id", Forget: forget.ByReference},
		{Name: kindLookups, Keeps: "the lookup tries of a reference kept before they became counters", Forget: forget.ByReference},
		{Name: kindMailbox, Keeps: "the open intents of a keyed mailbox", Forget: forget.ByMailbox},
		{Name: kindContact, Keeps: "the contact rules' count for a keyed mailbox", Forget: forget.ByMailbox},
		{Name: kindFingerprint, Keeps: "a keyed fingerprint of a request and its intent's id, until the intent ends", Forget: forget.Nothing},
		{Name: kindAdmission, Keeps: "the places the mail budgets kept before they became counters", Forget: forget.Nothing},
		{Name: kindSecret, Keeps: "the versions of the operational secret and the re-key pass's place", Forget: forget.Nothing},
		{Name: kindSweep, Keeps: "the sweep's cursors", Forget: forget.Nothing},
		{Name: kindSettings, Keeps: "the settings staff edited", Forget: forget.Nothing},
		{Name: kindSettingsAudit, Keeps: "who edited which setting, and when", Forget: forget.Nothing},
		// The hub's control data: pseudonymous, keyed with the shared
		// secret the guest's own records are not keyed with.
		{Name: kindControlClaim, Keeps: "the hub's group pending place of a reference, until the stay ends", Forget: forget.ByReference},
		{Name: kindControlMarker, Keeps: "the hub's 30-second contact marker of a keyed mailbox", Forget: forget.Nothing},
		{Name: kindControlStays, Keeps: "the hub's stays of a keyed mailbox: location and nights, dropped after departure", Forget: forget.Nothing},
	}
}

// Keyed is the pseudonymous key of text for purpose under the
// operational secret, as direct booking keys its own records: the core
// keys the form's limits and a guest's mailbox with it.
func (s *Service) Keyed(ctx context.Context, now time.Time, purpose, text string) (string, error) {
	return s.keyed(ctx, now, purpose, text)
}

// NormalizedEmail reports whether s is an email address, and its form
// that bookings key.
func NormalizedEmail(s string) (string, bool) {
	e, ok := reservation.ParseEmail(s)
	return e.Normalized, ok
}

// MailboxKeys are the pseudonymous keys the store may group an address
// under: its key under every live version of the secret, the newest
// first; none for a string that is no address.
func (s *Service) MailboxKeys(ctx context.Context, address string, now time.Time) ([]string, error) {
	e, ok := reservation.ParseEmail(address)
	if !ok {
		return nil, nil
	}
	return s.keyedAll(ctx, now, "mailbox", e.Normalized)
}
