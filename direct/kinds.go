package direct

import (
	"context"
	"time"

	"frontdesk/reservation"
)

// NoticeDueKind is the record kind of the notices still to deliver (the
// due index), which monitoring counts: it never holds delivered mail.
const NoticeDueKind = kindNoticeDue

// GuestKinds are the record kinds whose JSON values may hold a guest's
// address: intents and their receipts, notices (queued and sent mail),
// and cancellations. `frontdesk forget` searches them.
func GuestKinds() []string { return []string{kindIntent, kindNotice, kindCancel} }

// ReferenceKinds are the record kinds keyed by a reservation reference:
// open cancellations and lookup tries.
func ReferenceKinds() []string { return []string{kindCancelOpen, kindLookups} }

// MailboxKinds are the record kinds keyed by a keyed mailbox, with or
// without a "/location" suffix: open intents by mailbox and the contact
// rules' marker.
func MailboxKinds() []string { return []string{kindMailbox, kindContact} }

// MailboxKey is the pseudonymous key the store groups an address under,
// as a booking computes it; ok is false for a string that is no address.
func (s *Service) MailboxKey(ctx context.Context, address string, now time.Time) (key string, ok bool, err error) {
	e, ok := reservation.ParseEmail(address)
	if !ok {
		return "", false, nil
	}
	key, err = s.keyed(ctx, now, "mailbox", e.Normalized)
	return key, true, err
}
