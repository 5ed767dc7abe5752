package staff

import (
	"errors"

	"frontdesk/internal/fault"
)

// Code names what went wrong, for the door that renders it.
type Code = fault.Code

// The error codes of this package.
const (
	CodeInvalid   fault.Code = "invalid"    // bad input; Message says which field
	CodeExists    fault.Code = "exists"     // the username is taken
	CodeDenied    fault.Code = "denied"     // wrong username or password
	CodeLimited   fault.Code = "limited"    // too many sign-in attempts for now
	CodeSignedOut fault.Code = "signed_out" // no session, or it ended
	CodeInternal  fault.Code = "internal"   // storage trouble; Err has the cause
)

// Error is the module's one error type (internal/fault): a code, a
// message safe to show staff, and the cause for logs.
type Error = fault.Error

// staffCode reports whether c is one of this package's codes.
func staffCode(c Code) bool {
	switch c {
	case CodeInvalid, CodeExists, CodeDenied, CodeLimited, CodeSignedOut, CodeInternal:
		return true
	}
	return false
}

// AsError returns the first of this package's errors in err's chain.
func AsError(err error) (*Error, bool) { return fault.Find(err, staffCode) }

// ErrorCode returns the code of err, CodeInternal for any other error.
func ErrorCode(err error) Code {
	if e, ok := fault.Find(err, staffCode); ok {
		return e.Code
	}
	return CodeInternal
}

func internal(op string, err error) error {
	return &Error{Code: CodeInternal, Message: "staff data cannot be read or written right now", Err: errors.Join(errors.New(op), err)}
}
