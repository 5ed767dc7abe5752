package orp_test

import (
	"fmt"
	"testing"

	"frontdesk/internal/fault"
	"frontdesk/orp"
)

// TestAsErrorKeepsToTheHostsCodes: every domain shares one error type, so
// another domain's error (here a desk's conflict) must not be taken for
// a refusal of the host and shown to an agent; a refusal under it is.
func TestAsErrorKeepsToTheHostsCodes(t *testing.T) {
	foreign := &fault.Error{Code: "conflict", Message: "The reservation changed meanwhile; read it again."}
	if e := orp.AsError(foreign); e.Code != orp.Internal {
		t.Fatalf("AsError(another domain's error) = %v, want internal", e.Code)
	}
	if _, ok := orp.Refusal(foreign); ok {
		t.Fatal("Refusal took another domain's error for the host's")
	}
	refused := &fault.Error{Code: orp.NotFound, Message: "No such party."}
	if e := orp.AsError(&fault.Error{Code: "conflict", Err: fmt.Errorf("x: %w", refused)}); e != refused {
		t.Fatalf("AsError = %v, want the host's refusal beneath", e)
	}
}
