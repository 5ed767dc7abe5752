// Package directtest holds the argument maps the booking tests call
// with: key-value lists and the demo's valid stay. It imports nothing of
// this module, so the core's own tests and the chat door's tests share
// it without an import cycle.
package directtest

// Args builds a tool call's arguments from keys and values in turn.
func Args(kv ...any) map[string]any {
	a := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		a[kv[i].(string)] = kv[i+1]
	}
	return a
}

// Stay is a valid start for Riverside's double, with extra keys and
// values set over it; a nil value removes its key.
func Stay(extra ...any) map[string]any {
	a := Args("property", "riverside", "roomtype", "double", "checkin", "2026-12-30", "checkout", "2027-01-02",
		"guest_name", "Ada Lovelace", "email", "ada@example.com", "phone", "+1 303 555 0199")
	for i := 0; i < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(a, extra[i].(string))
			continue
		}
		a[extra[i].(string)] = extra[i+1]
	}
	return a
}
