package staff

import "errors"

// Code names what went wrong, for the door that renders it.
type Code string

// The error codes of this package.
const (
	CodeInvalid   Code = "invalid"    // bad input; Message says which field
	CodeExists    Code = "exists"     // the username is taken
	CodeDenied    Code = "denied"     // wrong username or password
	CodeLimited   Code = "limited"    // too many sign-in attempts for now
	CodeSignedOut Code = "signed_out" // no session, or it ended
	CodeInternal  Code = "internal"   // storage trouble; Err has the cause
)

// Error is this package's one error type: a code, a message safe to show
// staff, and the cause for logs.
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

func internal(op string, err error) error {
	return &Error{Code: CodeInternal, Message: "staff data cannot be read or written right now", Err: errors.Join(errors.New(op), err)}
}
