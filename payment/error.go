package payment

import (
	"errors"

	"frontdesk/internal/fault"
)

// Code names what went wrong, for the door that words it.
type Code = fault.Code

// The error codes of this package.
const (
	CodeInvalid     fault.Code = "invalid"     // bad input; Message says which
	CodeNotFound    fault.Code = "not_found"   // no such payment
	CodeState       fault.Code = "state"       // the payment is not in a state that allows it
	CodeForged      fault.Code = "forged"      // an event whose signature does not verify
	CodeStale       fault.Code = "stale"       // an event signed outside the replay window
	CodeUnavailable fault.Code = "unavailable" // the provider did not answer; try again
	CodeNoProvider  fault.Code = "not_set_up"  // no provider is configured
	CodeInternal    fault.Code = "internal"    // storage trouble; Err has the cause
)

// Error is the module's one error type (internal/fault): a code, a
// message safe to show a guest or staff, and the cause for logs.
type Error = fault.Error

// paymentCode reports whether c is one of this package's codes.
func paymentCode(c Code) bool {
	switch c {
	case CodeInvalid, CodeNotFound, CodeState, CodeForged, CodeStale, CodeUnavailable, CodeNoProvider, CodeInternal:
		return true
	}
	return false
}

// AsError returns the first of this package's errors in err's chain.
func AsError(err error) (*Error, bool) { return fault.Find(err, paymentCode) }

// ErrorCode returns the code of err: "" for nil, CodeInternal for an
// error that is not this package's.
func ErrorCode(err error) Code { return fault.Of(err, paymentCode, CodeInternal) }

func fail(code Code, message string) error { return &Error{Code: code, Message: message} }

func internal(op string, err error) error {
	return &Error{Code: CodeInternal, Message: "Payment records cannot be read or written right now.", Err: errors.Join(errors.New(op), err)}
}
