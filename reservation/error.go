package reservation

import (
	"errors"

	"frontdesk/internal/fault"
)

// Code says what kind of refusal or failure a desk operation met. Each
// door maps codes to its own wire in one function.
type Code = fault.Code

// The codes of every desk operation.
const (
	// CodeNotFound: no reservation has the reference asked for (or no
	// outbox event is set aside where a retry asked).
	CodeNotFound fault.Code = "not_found"
	// CodeIllegalTransition: the reservation's state does not allow the
	// operation (a staff decision on a hold, a cancellation of a
	// completed stay).
	CodeIllegalTransition fault.Code = "illegal_transition"
	// CodeUnitTaken: no unit is free for every slot; nothing was stored.
	CodeUnitTaken fault.Code = "unit_taken"
	// CodeCeiling: a pending ceiling the reservation claims is full;
	// nothing was stored.
	CodeCeiling fault.Code = "ceiling"
	// CodeConflict: another write came first, again on every retry;
	// nothing was stored and reading again may succeed.
	CodeConflict fault.Code = "conflict"
	// CodeUnavailable: the store could not be reached or did not answer
	// in time; the operation may or may not have committed.
	CodeUnavailable fault.Code = "unavailable"
	// CodeInternal: a fault of the business's own (a record that does not
	// decode, a request that names no unit); nothing was stored.
	CodeInternal fault.Code = "internal"
)

// Error is the module's one error type (internal/fault): a code, a
// message safe to show a guest, a platform or staff, and the cause for
// logs. errors.Is(err, ErrUnitTaken) holds for every unit-taken refusal.
type Error = fault.Error

// deskCode reports whether c is one of the desk's codes, so ErrorCode
// finds the desk's error in a chain that holds another domain's too.
func deskCode(c Code) bool {
	switch c {
	case CodeNotFound, CodeIllegalTransition, CodeUnitTaken, CodeCeiling, CodeConflict, CodeUnavailable, CodeInternal:
		return true
	}
	return false
}

// Sentinels to compare with errors.Is, one per code a door tells apart.
var (
	ErrNotFound   = &Error{Code: CodeNotFound, Message: "No reservation has this reference."}
	ErrUnitTaken  = &Error{Code: CodeUnitTaken, Message: "No unit is free for every slot."}
	ErrConflict   = &Error{Code: CodeConflict, Message: "The reservation changed meanwhile; read it again."}
	ErrNotAllowed = &Error{Code: CodeIllegalTransition, Message: "The reservation's state does not allow this."}
)

// AsError returns the desk's error in err's chain, if there is one;
// another domain's error is not one.
func AsError(err error) (*Error, bool) { return fault.Find(err, deskCode) }

// ErrorCode is the code of err: "" for nil, CodeInternal for an error
// that is not the desk's.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := fault.Find(err, deskCode); ok {
		return e.Code
	}
	if errors.Is(err, ErrIllegal) {
		return CodeIllegalTransition
	}
	return CodeInternal
}

func fail(code Code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}

func illegal(r Reservation, to State, why string) *Error {
	return fail(CodeIllegalTransition, why, &TransitionError{Reference: r.Reference, From: r.State, To: to})
}
