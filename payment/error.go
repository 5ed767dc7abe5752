package payment

import "errors"

// Code names what went wrong, for the door that words it.
type Code string

// The error codes of this package.
const (
	CodeInvalid     Code = "invalid"     // bad input; Message says which
	CodeNotFound    Code = "not_found"   // no such payment
	CodeState       Code = "state"       // the payment is not in a state that allows it
	CodeForged      Code = "forged"      // an event whose signature does not verify
	CodeStale       Code = "stale"       // an event signed outside the replay window
	CodeUnavailable Code = "unavailable" // the provider did not answer; try again
	CodeNoProvider  Code = "not_set_up"  // no provider is configured
	CodeInternal    Code = "internal"    // storage trouble; Err has the cause
)

// Error is this package's one error type: a code, a message safe to show
// a guest or staff, and the cause for logs.
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the code of err, CodeInternal for any other error.
func ErrorCode(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeInternal
}

func fail(code Code, message string) error { return &Error{Code: code, Message: message} }

func internal(op string, err error) error {
	return &Error{Code: CodeInternal, Message: "Payment records cannot be read or written right now.", Err: errors.Join(errors.New(op), err)}
}
