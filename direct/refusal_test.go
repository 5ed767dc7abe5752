package direct

import (
	"fmt"
	"testing"

	"frontdesk/internal/fault"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// TestAsErrorKeepsToTheCoresCodes: every domain shares one error type,
// so the desk's error is no answer of the booking core, while the core's
// answer is found under another domain's error that wraps it.
func TestAsErrorKeepsToTheCoresCodes(t *testing.T) {
	var s *Service
	if _, ok := AsError(reservation.ErrConflict); ok {
		t.Fatal("AsError took the desk's error for the booking core's")
	}
	if code, ok := s.RefusalCode(fmt.Errorf("cancel: %w", reservation.ErrConflict)); ok {
		t.Fatalf("RefusalCode = %q for the desk's error", code)
	}
	own := refuse(CodeWrongCode, route{phone: "+1 303 555 0111"})
	if code, ok := s.RefusalCode(&fault.Error{Code: "conflict", Err: own}); !ok || code != CodeWrongCode {
		t.Fatalf("RefusalCode = %q, %v; want %q", code, ok, CodeWrongCode)
	}
	if e, ok := AsError(refuse(QuoteCode(pricing.RefusalMinimumStay), route{})); !ok || e.Code != "quote_minimum_stay" {
		t.Fatal("AsError misses a refusal of the pricing rules")
	}
}
