package direct

import (
	"strings"

	"frontdesk/internal/fault"
	"frontdesk/pricing"
)

// Code names the case of an answer that is not a success, for doors,
// metrics, logs and tests.
type Code = fault.Code

// The codes of the booking core's answers. Each door words them; the
// chat door with the refusal catalogue and assembly rules of §12.
const (
	CodeCannotCheck      fault.Code = "cannot_check"     // a check failed; Err has the cause when there is one
	CodeUnbookable       fault.Code = "unbookable"       // the stay cannot be booked in chat
	CodeContact          fault.Code = "contact"          // the contact rules refuse chat booking
	CodeNoRoom           fault.Code = "no_room"          // no room is free for those nights
	CodeLastRoom         fault.Code = "last_room"        // the last room went during verification
	CodeSwitchedOff      fault.Code = "switched_off"     // chat booking is off for the property
	CodePaused           fault.Code = "paused"           // chat booking is briefly paused
	CodePausedCall       fault.Code = "paused_call"      // paused, and the phone is offered
	CodePausedForStaff   fault.Code = "paused_for_staff" // paused while staff confirm reservations
	CodeEmailRejected    fault.Code = "email_rejected"   // the mail server refused the address
	CodeIntentGone       fault.Code = "intent_gone"      // the booking intent expired or is unknown
	CodeWrongCode        fault.Code = "wrong_code"       // the verification code does not match
	CodeTwoResends       fault.Code = "two_resends"      // the intent's resends are used up
	CodeWait60           fault.Code = "wait_60"          // a code was sent less than a minute ago
	CodeOutcomeUnknown   fault.Code = "outcome_unknown"  // the booking may have gone through
	CodeReplayCancelled  fault.Code = "replay_cancelled" // the booking confirmed again was cancelled since
	CodeReplayEnded      fault.Code = "replay_ended"     // the booking confirmed again has ended
	CodeReplayMoved      fault.Code = "replay_moved"     // the booking confirmed again was moved
	CodeDeployUnknown    fault.Code = "deploy_unknown"   // the deployment context is unknown
	CodeDeployDraft      fault.Code = "deploy_draft"     // a draft deploy; Values[0] is its context
	CodeDeployStale      fault.Code = "deploy_stale"     // not the published deploy; Values[0] is its context
	CodeDeployNotCustom  fault.Code = "deploy_not_custom"
	CodeNotFound         fault.Code = "not_found"          // no reservation matches the reference and phone
	CodeLookupDown       fault.Code = "lookup_down"        // the reservation cannot be read right now
	CodeCancelNotInChat  fault.Code = "cancel_not_in_chat" // the cancellation cannot be taken here now
	CodeCancelByPhone    fault.Code = "cancel_by_phone"    // cancellation here has closed; call
	CodeAlreadyCancelled fault.Code = "already_cancelled"  // Values[0] is the reference
	CodeEnded            fault.Code = "ended"              // Values[0] is the reference
	CodeMoved            fault.Code = "moved"              // Values[0] is the reference
	CodeCancelUnknown    fault.Code = "cancel_unknown"     // the cancellation code expired or was used
	CodeCancelMaybe      fault.Code = "cancel_maybe"       // the cancellation may have gone through
	CodeAnswered         fault.Code = "answered"           // staff answered the request meanwhile
)

// quotePrefix starts the code of a refusal of the pricing rules: the
// prefix and the refusal's kind, with the rules' worded text as its one
// value.
const quotePrefix = "quote_"

// QuoteCode is the code of a refusal of the pricing rules of kind k.
func QuoteCode(k pricing.RefusalKind) Code { return Code(quotePrefix + string(k)) }

// IsCode reports whether c is one of the booking core's codes.
func IsCode(c Code) bool {
	switch c {
	case CodeCannotCheck, CodeUnbookable, CodeContact, CodeNoRoom, CodeLastRoom, CodeSwitchedOff, CodePaused,
		CodePausedCall, CodePausedForStaff, CodeEmailRejected, CodeIntentGone, CodeWrongCode, CodeTwoResends,
		CodeWait60, CodeOutcomeUnknown, CodeReplayCancelled, CodeReplayEnded, CodeReplayMoved, CodeDeployUnknown,
		CodeDeployDraft, CodeDeployStale, CodeDeployNotCustom, CodeNotFound, CodeLookupDown, CodeCancelNotInChat,
		CodeCancelByPhone, CodeAlreadyCancelled, CodeEnded, CodeMoved, CodeCancelUnknown, CodeCancelMaybe, CodeAnswered:
		return true
	}
	return strings.HasPrefix(string(c), quotePrefix)
}

// Error is the module's one error type (internal/fault), the answer of
// the booking core that is not a success. The core names the case by
// Code and gives the data its wording needs, the human route (Phone,
// Form) among it, and Values: what the sentence names besides the phone
// (a reference, a deployment context, the pricing rules' worded
// refusal). Message is set by the door that words Code; Err is the
// internal cause when there is one, for the door to log once and count,
// never to show.
type Error = fault.Error

// AsError returns the booking core's answer in err's chain, if there is
// one; another domain's error is not one.
func AsError(err error) (*Error, bool) { return fault.Find(err, IsCode) }

// RefusalCode is the code of the booking core's answer in err's chain,
// for a door that words it by its code without importing this package.
func (s *Service) RefusalCode(err error) (Code, bool) {
	if e, ok := AsError(err); ok {
		return e.Code, true
	}
	return "", false
}

// because records err as the internal cause of the answer e.
func because(e *Error, err error) *Error {
	e.Err = err
	return e
}

// route is the human route a refusal carries: the phone to call and, when
// the request is known, its prefilled booking form.
type route struct {
	phone string
	form  string // empty when no form may be shown
}

// refuse is the answer code with the route rt offers.
func refuse(code Code, rt route, values ...string) *Error {
	return &Error{Code: code, Phone: rt.phone, Form: rt.form, Values: values}
}
