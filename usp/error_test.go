package usp_test

import (
	"testing"

	"frontdesk/internal/fault"
	"frontdesk/usp"
	"frontdesk/usp/pop"
)

// TestAsErrorKeepsToTheProtocolsCodes: another domain's error is an
// internal fault worded as server_error, never shown under its own code;
// a proof refusal is worded as the protocol error it is spelled as, with
// its nonce.
func TestAsErrorKeepsToTheProtocolsCodes(t *testing.T) {
	foreign := &fault.Error{Code: "unit_taken", Message: "No unit is free for every slot."}
	if e, internal := usp.AsError(foreign); e.Code != usp.CodeServerError || !internal {
		t.Fatalf("AsError(another domain's error) = %v, %v; want server_error, internal", e.Code, internal)
	}
	proof := &pop.Error{Code: pop.CodeNonceRequired, Message: "A fresh proof carrying the nonce given here is required.", Values: []string{"n-1"}}
	e, internal := usp.AsError(proof)
	if internal || e.Code != "proof_nonce_required" || usp.Nonce(e) != "n-1" || usp.HTTPStatus(e.Code) != 401 || usp.RPCCode(e.Code) != -32001 {
		t.Fatalf("AsError(proof) = %+v, %v", e, internal)
	}
}
