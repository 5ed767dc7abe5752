// Package fault is the one error type of the module's domains: a code, a
// message safe to show whoever asked, and the cause for logs, with the
// few facts a protocol's answer carries besides (the field at fault, when
// to retry, the human route offered, the values a sentence names).
//
// Each domain declares its codes as constants of Code and keeps one
// function that tells its own codes from another domain's; each door
// maps codes to its protocol's words in one function. It imports the
// standard library only.
package fault

// Code names a case for doors, metrics, logs and tests. A domain's codes
// are its own constants; two domains may spell a code alike, so a domain
// finds its errors with Find and its own set of codes.
type Code string

// Error is a refusal or failure with a code.
type Error struct {
	Code Code
	// Message is safe to show a guest, an agent, a platform or staff;
	// never internal detail.
	Message string
	// Err is the cause, for logs only.
	Err error
	// Field names the input at fault: a JSON Pointer or a form field.
	Field string
	// RetryAfter, in seconds, is when trying again may succeed.
	RetryAfter int
	// Phone and Form are the human route an answer offers: the phone to
	// call and the prefilled form link, each empty when none may be shown.
	Phone string
	Form  string
	// Values are what a door's wording names besides the message: the
	// versions supported, the step refused, a proof's nonce.
	Values []string
}

// Error is the code, the message and the cause; an error no door has
// worded yet, with no message, reads as its code and cause.
func (e *Error) Error() string {
	s := string(e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error of the same code that carries no cause, so a
// domain's sentinel (an *Error without a cause) matches every error of
// its code under errors.Is.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Err == nil && t.Code == e.Code
}

// Value returns Values[i], or "" when there are fewer.
func (e *Error) Value(i int) string {
	if i < len(e.Values) {
		return e.Values[i]
	}
	return ""
}

// Find returns the first *Error in err's chain whose code mine accepts:
// the error of the domain that owns those codes, even when another
// domain's error wraps it or is wrapped by it.
func Find(err error, mine func(Code) bool) (*Error, bool) {
	for err != nil {
		if e, ok := err.(*Error); ok && mine(e.Code) {
			return e, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e, ok := Find(inner, mine); ok {
					return e, true
				}
			}
			return nil, false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return nil, false
		}
	}
	return nil, false
}

// Of returns the code of the first error in err's chain that mine
// accepts, or otherwise for any other error; "" for nil.
func Of(err error, mine func(Code) bool, otherwise Code) Code {
	if err == nil {
		return ""
	}
	if e, ok := Find(err, mine); ok {
		return e.Code
	}
	return otherwise
}
