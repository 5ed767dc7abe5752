// Package catalogue words the booking core's refusals for the chat
// door: the sentences of the refusal catalogue of direct-booking.md §12,
// one per code, and the assembly rules that complete them with the
// phone and the booking form. It imports nothing of this module, so the
// core's own tests can word the answers they pin, as the door does.
package catalogue

import (
	"fmt"
	"slices"
	"strings"
)

// The catalogue's sentences. Those with {{PHONE}} take the phone through
// %[1]s, and further values through %[2]s on.
const (
	sentBadBookingID    = "Invalid booking_id. The complete identifier returned by start_booking is required."
	sentBadCancelID     = "Invalid cancel_id. The complete identifier returned by cancel_booking is required."
	sentBadCheckin      = "checkin must be a real date in YYYY-MM-DD format."
	sentBadCheckout     = "checkout must be a real YYYY-MM-DD date after checkin."
	sentBadCode         = "code must be the six digits received by email."
	sentBadEmail        = "email must be a valid address such as name@example.com, with a dot in the domain and no spaces."
	sentBadGuests       = "guests must be a whole-number count from 1 to %[2]s."
	sentBadLast4        = "phone_last4 must be exactly four digits."
	sentBadName         = "guest_name is required and must be at most 120 characters."
	sentBadNotes        = "notes must be text no longer than 500 characters."
	sentBadPhone        = "phone must be text containing 10 to 15 digits; spaces, parentheses, dashes and a leading country code are allowed."
	sentBadProperty     = "property must be a property name, slug or domain of at most 120 characters."
	sentBadReference    = "Invalid reservation_number. The full reference from the reservation email is required, including its %[2]s property prefix."
	sentBadRoomType     = "roomtype must be %[2]s (case-insensitive)."
	sentCancelByPhone   = "To cancel this reservation by phone, call %[1]s during office hours. The published refund and cancellation policy applies."
	sentCancelFields    = "Cancellation takes either reservation_number and phone_last4, or cancel_id and code. Unknown field \"%[2]s\". Allowed fields: cancel_id, code."
	sentCancelMaybe     = "The cancellation may have gone through. Ask again in a minute with the same cancel_id and code, or call %[1]s."
	sentCancelNotInChat = "To cancel this reservation, call %[1]s during office hours. Cancellation cannot be completed in chat right now."
	sentCancelUnknown   = "The cancellation outcome could not be checked right now. The cancellation may have gone through. Ask again in a minute with the same cancel_id and code, or call %[1]s."
	sentCanceled        = "Reservation %[2]s is canceled. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentCannotBook      = "This stay cannot be booked in chat. Use the booking form or call %[1]s."
	sentCannotCheck     = "This booking cannot be checked right now. Try again in a few minutes or call %[1]s."
	sentDeployDraft     = "Booking tools are disabled on this draft (context: %[2]s). No code was sent and no reservation was changed."
	sentDeployNotCustom = "Booking tools are disabled on this non-custom hostname (context: %[2]s)."
	sentDeployStale     = "Booking tools are disabled because this is not the current published production deploy (context: %[2]s)."
	sentDeployUnknown   = "Booking tools are disabled because the deployment context is unknown."
	sentEmailRejected   = "The email address was not accepted. Check the address and start again."
	sentEnded           = "Reservation %[2]s has ended. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentGuestRange      = "The reservation form allows 1 to %[2]s guests per room."
	sentIntentGone      = "Booking intent expired or unavailable."
	sentLastRoom        = "The last room went while you were verifying. Use find_rooms to look again."
	sentLookupDown      = "This reservation cannot be checked right now. Try again in a few minutes or call %[1]s."
	sentMoved           = "Reservation %[2]s was moved. No room is currently reserved under this reference. Call %[1]s with any questions."
	sentNoProperty      = "property must identify one property by name, slug or domain. Available properties: %[2]s."
	sentNoRoom          = "No room is free for those nights. Use find_rooms to look again."
	sentNotFound        = "no reservation found. Call %[1]s."
	sentNotObject       = "Booking arguments must be an object."
	sentOutcomeUnknown  = "The booking outcome could not be checked right now. The booking may have gone through; a confirmation email is the proof. Ask again in a minute with the same booking_id and code, or call %[1]s."
	sentPaused          = "Chat booking is briefly paused."
	sentPausedCall      = "Chat booking is briefly paused. Use the booking form or call %[1]s."
	sentPausedForStaff  = "Chat booking is briefly paused while staff confirm existing reservations."
	sentResendOnly      = "Resending takes only booking_id. Unknown field \"%[2]s\". Allowed fields: booking_id."
	sentSwitchedOff     = "Chat booking is switched off for this property."
	sentTwoResends      = "Only two code resends are allowed per booking intent."
	sentUnknownField    = "Unknown field \"%[2]s\". Allowed fields: %[3]s."
	sentWait60          = "Wait 60 seconds between verification emails."
	sentWrongCode       = "Incorrect or expired verification code."
)

// sentences maps each code of the core and of the door's field checks
// to its sentence. A code of the pricing rules ("quote_" and the kind)
// carries its worded text as its one value.
var sentences = map[string]string{
	"not_object":         sentNotObject,
	"unknown_field":      sentUnknownField,
	"resend_only":        sentResendOnly,
	"bad_property":       sentBadProperty,
	"no_property":        sentNoProperty,
	"bad_roomtype":       sentBadRoomType,
	"bad_checkin":        sentBadCheckin,
	"bad_checkout":       sentBadCheckout,
	"bad_name":           sentBadName,
	"bad_email":          sentBadEmail,
	"bad_phone":          sentBadPhone,
	"bad_notes":          sentBadNotes,
	"bad_guests":         sentBadGuests,
	"guest_range":        sentGuestRange,
	"bad_booking_id":     sentBadBookingID,
	"bad_cancel_id":      sentBadCancelID,
	"bad_code":           sentBadCode,
	"bad_reference":      sentBadReference,
	"bad_last4":          sentBadLast4,
	"cancel_fields":      sentCancelFields,
	"deploy_unknown":     sentDeployUnknown,
	"deploy_draft":       sentDeployDraft,
	"deploy_stale":       sentDeployStale,
	"deploy_not_custom":  sentDeployNotCustom,
	"contact":            sentCannotBook,
	"unbookable":         sentCannotBook,
	"paused":             sentPaused,
	"paused_call":        sentPausedCall,
	"paused_for_staff":   sentPausedForStaff,
	"switched_off":       sentSwitchedOff,
	"cannot_check":       sentCannotCheck,
	"no_room":            sentNoRoom,
	"last_room":          sentLastRoom,
	"intent_gone":        sentIntentGone,
	"wrong_code":         sentWrongCode,
	"two_resends":        sentTwoResends,
	"wait_60":            sentWait60,
	"email_rejected":     sentEmailRejected,
	"outcome_unknown":    sentOutcomeUnknown,
	"not_found":          sentNotFound,
	"lookup_down":        sentLookupDown,
	"cancel_by_phone":    sentCancelByPhone,
	"cancel_not_in_chat": sentCancelNotInChat,
	"cancel_unknown":     sentCancelUnknown,
	"cancel_maybe":       sentCancelMaybe,
	"already_cancelled":  sentCanceled,
	"replay_cancelled":   sentCanceled,
	"ended":              sentEnded,
	"replay_ended":       sentEnded,
	"moved":              sentMoved,
	"replay_moved":       sentMoved,
}

// Answer is what a refusal's sentence needs: the code, the assembly rule
// (§12: "P" adds the phone, "F" the form sentence and link or else the
// phone, "L" only the link, "PL" the phone and then the link, "" nothing),
// the phone, the prefilled form when one may be shown, and the values
// the sentence names.
type Answer struct {
	Code   string
	Rule   string
	Phone  string
	Form   string
	Values []string
}

// rules are the assembly rules of §12 for the core's refusals: how the
// chat door completes each sentence with the route it carries. P adds
// the phone, F the booking form and its link or else the phone, L only
// the link; a code missing here adds nothing. A refusal of the pricing
// rules (quote_…) is PL: the phone unless its text has it, then the
// prefilled form.
var rules = map[string]string{
	"cannot_check": "L", "contact": "L", "paused_call": "L", "unbookable": "L",
	"replay_cancelled": "L", "replay_ended": "L", "replay_moved": "L",
	"deploy_draft": "P", "deploy_not_custom": "P", "deploy_stale": "P", "deploy_unknown": "P",
	"email_rejected": "F", "intent_gone": "F", "last_room": "F", "no_room": "F", "paused": "F",
	"paused_for_staff": "F", "switched_off": "F", "two_resends": "F", "wait_60": "F", "wrong_code": "F",
}

// Rule is the assembly rule of code. A start call's refusal also
// offers the known request's form (§12's start-call wrapper): P becomes
// PL and no rule L.
func Rule(code string, start bool) string {
	r := rules[code]
	if strings.HasPrefix(code, "quote_") {
		r = "PL"
	}
	if start {
		switch r {
		case "":
			r = "L"
		case "P":
			r = "PL"
		}
	}
	return r
}

// Sentence is the catalogue sentence of code, unfilled.
func Sentence(code string) (string, bool) {
	if strings.HasPrefix(code, "quote_") {
		return "%[2]s", true
	}
	s, ok := sentences[code]
	return s, ok
}

// Word fills a's sentence and applies its assembly rule. ok is false for
// a code the catalogue does not have.
func Word(a Answer) (text string, ok bool) {
	sentence, ok := Sentence(a.Code)
	if !ok {
		return "", false
	}
	text = sentence
	if strings.Contains(sentence, "%[") {
		args := []any{a.Phone}
		for _, v := range a.Values {
			args = append(args, v)
		}
		text = fmt.Sprintf(sentence, args...)
	}
	switch a.Rule {
	case "P":
		text = withPhone(text, a.Phone)
	case "F":
		if a.Form != "" {
			text += fmt.Sprintf(" The booking form is available, or call %s.\n%s", a.Phone, a.Form)
		} else {
			text = withPhone(text, a.Phone)
		}
	case "L":
		if a.Form != "" {
			text += "\n" + a.Form
		}
	case "PL":
		// A start call's refusal: the phone, then the known request's
		// form unless the sentence has it (§12, the start-call wrapper).
		text = withPhone(text, a.Phone)
		if a.Form != "" && !strings.Contains(text, a.Form) {
			text += "\n" + a.Form
		}
	}
	return text, true
}

// withPhone is rule P: append the phone unless the sentence has it.
func withPhone(text, phone string) string {
	if strings.Contains(text, phone) {
		return text
	}
	return text + " Call " + phone + "."
}

// Codes lists every code the catalogue words, sorted, for the refusal
// inventory (`frontdesk refusals`).
func Codes() []string {
	codes := make([]string, 0, len(sentences))
	for c := range sentences {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}
