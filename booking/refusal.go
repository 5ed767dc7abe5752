package booking

import (
	"fmt"
	"strings"
)

// The refusal catalogue of direct-booking.md §12. Sentences with {{PHONE}}
// take the phone through %[1]s; the assembly rules add the rest.
const (
	sentCannotBook       = "This stay cannot be booked in chat. Use the booking form or call %[1]s."
	sentPausedCall       = "Chat booking is briefly paused. Use the booking form or call %[1]s."
	sentPaused           = "Chat booking is briefly paused."
	sentPausedForStaff   = "Chat booking is briefly paused while staff confirm existing reservations."
	sentSwitchedOffCall  = "Chat booking is switched off for this property. Call %[1]s."
	sentSwitchedOff      = "Chat booking is switched off for this property."
	sentCannotCheck      = "This booking cannot be checked right now. Try again in a few minutes or call %[1]s."
	sentPolicyUnreadable = "The live booking policy could not be read. Please try again."
	sentNoRoom           = "No room is free for those nights. Use find_rooms to look again."
	sentLastRoom         = "The last room went while you were verifying. Use find_rooms to look again."
	sentNoReservation    = "No reservation was made."
	sentIntentGone       = "Booking intent expired or unavailable."
	sentWrongCode        = "Incorrect or expired verification code."
	sentTwoResends       = "Only two code resends are allowed per booking intent."
	sentWait60           = "Wait 60 seconds between verification emails."
	sentEmailRejected    = "The email address was not accepted. Check the address and start again."
	sentOutcomeUnknown   = "The booking outcome could not be checked right now. The booking may have gone through; a confirmation email is the proof. Ask again in a minute with the same booking_id and code, or call %[1]s."
	sentNotFound         = "no reservation found. Call %[1]s."
	sentLookupDown       = "This reservation cannot be checked right now. Try again in a few minutes or call %[1]s."
	sentCancelByPhone    = "To cancel this reservation by phone, call %[1]s during office hours. The published refund and cancellation policy applies."
	sentCancelNotInChat  = "To cancel this reservation, call %[1]s during office hours. Cancellation cannot be completed in chat right now."
	sentCancelUnknown    = "The cancellation outcome could not be checked right now. The cancellation may have gone through. Ask again in a minute with the same cancel_id and code, or call %[1]s."
	sentCancelMaybe      = "The cancellation may have gone through. Ask again in a minute with the same cancel_id and code, or call %[1]s."
	sentCanceled         = "Reservation %[2]s is canceled. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentEnded            = "Reservation %[2]s has ended. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentMoved            = "Reservation %[2]s was moved. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentGiveDetails      = "Give a guest name, a valid email address, a contact phone number with country code, and notes of at most 500 characters."
	sentGiveDates        = "Give real checkin and checkout dates as YYYY-MM-DD."
	sentUnknownTool      = "Unknown booking tool."
	sentDeployUnknown    = "Booking tools are disabled because the deployment context is unknown."
	sentDeployDraft      = "Booking tools are disabled on this draft (context: %[2]s). No code was sent and no reservation was changed."
	sentDeployStale      = "Booking tools are disabled because this is not the current published production deploy (context: %[2]s)."
	sentDeployNotCustom  = "Booking tools are disabled on this non-custom hostname (context: %[2]s)."
)

// Assembly says how a sentence is completed (§12): P adds the phone, F
// adds the form sentence and the form link, L adds only the link.
type Assembly int

const (
	AssembleNone Assembly = iota
	AssembleP
	AssembleF
	AssembleL
)

// Error is the one error the booking core returns for an answer that is
// not a success. Message is the exact bytes a door shows the caller; Err
// is the internal cause when there is one, for the door to log once and
// count, never to show.
type Error struct {
	// Code names the case for metrics, logs and tests; never shown.
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// because records the internal cause of an answer.
func (e *Error) because(err error) *Error {
	e.Err = err
	return e
}

// route is the human route a refusal carries: the phone to call and, when
// the request is known, its prefilled booking form.
type route struct {
	phone string
	form  string // empty when no form may be shown
}

// assemble fills a catalogue sentence and applies an assembly rule.
func assemble(code, sentence string, a Assembly, rt route, args ...any) *Error {
	text := sentence
	if strings.Contains(sentence, "%[") {
		text = fmt.Sprintf(sentence, append([]any{rt.phone}, args...)...)
	}
	switch a {
	case AssembleP:
		text = withPhone(text, rt.phone)
	case AssembleF:
		if rt.form != "" {
			text += fmt.Sprintf(" The booking form is available, or call %s.\n%s", rt.phone, rt.form)
		} else {
			text = withPhone(text, rt.phone)
		}
	case AssembleL:
		if rt.form != "" {
			text += "\n" + rt.form
		}
	}
	return &Error{Code: code, Message: text}
}

// withPhone is rule P: append the phone unless the sentence has it.
func withPhone(text, phone string) string {
	if strings.Contains(text, phone) {
		return text
	}
	return text + " Call " + phone + "."
}

// startWrapper adds the known request's form link to a start-call answer
// when none is present yet (§12: "A start-call wrapper additionally
// supplies L").
func startWrapper(r *Error, rt route) *Error {
	if rt.form == "" || strings.Contains(r.Message, rt.form) {
		return r
	}
	return &Error{Code: r.Code, Message: r.Message + "\n" + rt.form, Err: r.Err}
}
