package fault

import (
	"errors"
	"fmt"
	"testing"
)

const (
	codeTaken  Code = "taken"
	codeAbsent Code = "absent"
	codeOther  Code = "other"
)

func mine(c Code) bool { return c == codeTaken || c == codeAbsent }

func TestFind(t *testing.T) {
	cause := errors.New("disk full")
	own := &Error{Code: codeTaken, Message: "Taken.", Err: cause}
	other := &Error{Code: codeOther, Message: "Another domain's.", Err: own}
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"nil", nil, nil},
		{"a plain error", cause, nil},
		{"its own error", own, own},
		{"wrapped with %w", fmt.Errorf("book: %w", own), own},
		{"under another domain's error", other, own},
		{"in a join", errors.Join(cause, fmt.Errorf("x: %w", own)), own},
		{"only another domain's", &Error{Code: codeOther}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Find(tt.err, mine)
			if got != tt.want || ok != (tt.want != nil) {
				t.Fatalf("Find = %v, %v; want %v", got, ok, tt.want)
			}
		})
	}
}

func TestOf(t *testing.T) {
	if got := Of(nil, mine, codeOther); got != "" {
		t.Fatalf("Of(nil) = %q", got)
	}
	if got := Of(errors.New("x"), mine, codeOther); got != codeOther {
		t.Fatalf("Of(plain) = %q, want %q", got, codeOther)
	}
	if got := Of(fmt.Errorf("x: %w", &Error{Code: codeAbsent}), mine, codeOther); got != codeAbsent {
		t.Fatalf("Of = %q, want %q", got, codeAbsent)
	}
}

// TestIs: a sentinel without a cause matches every error of its code.
func TestIs(t *testing.T) {
	sentinel := &Error{Code: codeTaken, Message: "Taken."}
	err := fmt.Errorf("hold: %w", &Error{Code: codeTaken, Message: "Room 4 is taken.", Err: errors.New("full")})
	if !errors.Is(err, sentinel) {
		t.Fatal("errors.Is misses an error of the sentinel's code")
	}
	if errors.Is(err, &Error{Code: codeAbsent}) {
		t.Fatal("errors.Is matches another code")
	}
	if errors.Is(err, &Error{Code: codeTaken, Err: errors.New("full")}) {
		t.Fatal("errors.Is matches a target that has a cause")
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Code: codeTaken, Message: "Taken."}, "taken: Taken."},
		{&Error{Code: codeTaken, Message: "Taken.", Err: errors.New("full")}, "taken: Taken.: full"},
		{&Error{Code: codeTaken}, "taken"},
		{&Error{Code: codeTaken, Err: errors.New("full")}, "taken: full"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Fatalf("Error() = %q, want %q", got, tt.want)
		}
	}
	e := &Error{Values: []string{"0.4"}}
	if e.Value(0) != "0.4" || e.Value(1) != "" {
		t.Fatalf("Value = %q, %q", e.Value(0), e.Value(1))
	}
}
