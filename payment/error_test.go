package payment

import (
	"fmt"
	"testing"

	"frontdesk/internal/fault"
)

// TestErrorCodeKeepsToPaymentCodes: every domain shares one error type,
// so another domain's refusal reads as internal here, never as a payment
// refusal whose message the guest's page would show.
func TestErrorCodeKeepsToPaymentCodes(t *testing.T) {
	foreign := &fault.Error{Code: "conflict", Message: "The reservation changed meanwhile; read it again."}
	if got := ErrorCode(foreign); got != CodeInternal {
		t.Fatalf("ErrorCode(another domain's error) = %q, want %q", got, CodeInternal)
	}
	if _, ok := AsError(foreign); ok {
		t.Fatal("AsError took another domain's error for a payment one")
	}
	own := fail(CodeState, "The payment cannot be refunded now.")
	if got := ErrorCode(fmt.Errorf("refund: %w", &fault.Error{Code: "conflict", Err: own})); got != CodeState {
		t.Fatalf("ErrorCode = %q, want %q", got, CodeState)
	}
	if got := ErrorCode(nil); got != "" {
		t.Fatalf("ErrorCode(nil) = %q, want none", got)
	}
}
