package reservation

import "time"

// What the staff screen reads of a door's own records about a
// reservation: the notices queued for its guest and the chat details.

// NoticeSent is the state of a notice that was delivered.
const NoticeSent = "sent"

// NoticeView is one queued notice and its delivery so far.
type NoticeView struct {
	ID, To, Subject, State string
	Attempts               int
	CreatedAt, LastAt      time.Time
	NextAt                 time.Time
	// Exhausted means retries are over: staff must reach the guest.
	Exhausted bool
}

// ChatFacts are the chat details of a reservation that the staff screen
// shows.
type ChatFacts struct {
	// Unread lists locations whose histories could not be read when the
	// chat reservation was checked.
	Unread []string
	// Unchecked words the group's checks that could not run when the
	// chat reservation was checked, for staff to make before confirming.
	Unchecked []string
	// AgreementAtCheckin: a chat guest signs the agreement at check-in.
	AgreementAtCheckin bool
	// CancelledAt is when the guest cancelled in chat, zero if not.
	CancelledAt time.Time
}
