package reservation

import (
	"errors"
	"fmt"
)

// Code says what kind of refusal or failure a desk operation met. Each
// door maps codes to its own wire in one function.
type Code string

// The codes of every desk operation.
const (
	// CodeNotFound: no reservation has the reference asked for (or no
	// outbox event is set aside where a retry asked).
	CodeNotFound Code = "not_found"
	// CodeIllegalTransition: the reservation's state does not allow the
	// operation (a staff decision on a hold, a cancellation of a
	// completed stay).
	CodeIllegalTransition Code = "illegal_transition"
	// CodeUnitTaken: no unit is free for every slot; nothing was stored.
	CodeUnitTaken Code = "unit_taken"
	// CodeCeiling: a pending ceiling the reservation claims is full;
	// nothing was stored.
	CodeCeiling Code = "ceiling"
	// CodeConflict: another write came first, again on every retry;
	// nothing was stored and reading again may succeed.
	CodeConflict Code = "conflict"
	// CodeUnavailable: the store could not be reached or did not answer
	// in time; the operation may or may not have committed.
	CodeUnavailable Code = "unavailable"
	// CodeInternal: a fault of the business's own (a record that does not
	// decode, a request that names no unit); nothing was stored.
	CodeInternal Code = "internal"
)

// Error is the one error type of the desk: a code, a message safe to
// show a guest, a platform or staff, and the cause for logs.
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("reservation: %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("reservation: %s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error of the same code that carries no cause, so
// errors.Is(err, ErrUnitTaken) holds for every unit-taken refusal.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Err == nil && t.Code == e.Code
}

// Sentinels to compare with errors.Is, one per code a door tells apart.
var (
	ErrNotFound   = &Error{Code: CodeNotFound, Message: "No reservation has this reference."}
	ErrUnitTaken  = &Error{Code: CodeUnitTaken, Message: "No unit is free for every slot."}
	ErrConflict   = &Error{Code: CodeConflict, Message: "The reservation changed meanwhile; read it again."}
	ErrNotAllowed = &Error{Code: CodeIllegalTransition, Message: "The reservation's state does not allow this."}
)

// ErrorCode is the code of err: "" for nil, CodeInternal for an error
// that is not the desk's.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
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
