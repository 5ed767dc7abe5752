package direct

// Error is the one error the booking core returns for an answer that is
// not a success. The core names the case by Code and gives the data its
// wording needs, the human route among it; each door words it (the chat
// door with the refusal catalogue and assembly rules of §12). Err is the internal cause when there is one, for the
// door to log once and count, never to show.
type Error struct {
	// Code names the case for doors, metrics, logs and tests.
	Code string
	// Message is the public message: set by the core for a door that has
	// no wording of its own, or by the door that worded Code.
	Message string
	// Phone and Form are the human route the answer offers: the phone to
	// call and the prefilled booking form, empty when none may be shown.
	Phone string
	Form  string
	// Values are what the sentence names besides the phone: a
	// reference, a deployment context, the pricing rules' worded refusal.
	Values []string
	Err    error
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return "booking: " + e.Code
}

func (e *Error) Unwrap() error { return e.Err }

// RefusalCode names the case, for a door that words it by its code.
func (e *Error) RefusalCode() string { return e.Code }

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

// refuse is the answer code with the route rt offers.
func refuse(code string, rt route, values ...string) *Error {
	return &Error{Code: code, Phone: rt.phone, Form: rt.form, Values: values}
}
