package orp_test

import (
	"context"
	"testing"

	"frontdesk/orp"
)

// TestIssuedCodes: the deal's offerer issues partner codes for a running
// deal; a sale reported with one counts for the deal like its link; the
// acceptor, a party off the deal and a deal that ended are refused; a
// code stops counting once the deal's links are plain.
func TestIssuedCodes(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	deal, _ := e.directDeal(maker, pub, affiliateTerms)
	ctx := context.Background()
	c, err := e.host.IssueCode(ctx, maker.token, deal)
	if err != nil || c.Deal != deal || c.Obligation != "place" || len(c.Code) != 10 {
		t.Fatalf("IssueCode = %+v %v", c, err)
	}
	c2, err := e.host.IssueCode(ctx, maker.token, deal)
	if err != nil || c2.Code == c.Code {
		t.Fatalf("second code = %+v %v, want a new code", c2, err)
	}
	if _, err := e.host.IssueCode(ctx, pub.token, deal); orp.AsError(err).Code != orp.Forbidden {
		t.Fatalf("the acceptor issuing = %v, want forbidden", err)
	}
	if _, err := e.host.IssueCode(ctx, e.join("{}").token, deal); orp.AsError(err).Code != orp.NotFound {
		t.Fatalf("a stranger issuing = %v, want not_found", err)
	}
	res := e.stripe("evt_code_1", "payment_intent.succeeded", map[string]any{"id": "pi_code_1", "amount": 10000, "currency": "eur", "metadata": map[string]any{"orp_code": c.Code}})
	if !res.Applied || !res.Counted || res.Deal != deal {
		t.Fatalf("sale with an issued code = %+v", res)
	}
	if r, m := e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); r.Status != 200 {
		t.Fatalf("revoke = %d %v", r.Status, m)
	}
	if _, err := e.host.IssueCode(ctx, maker.token, deal); orp.AsError(err).Code != orp.StateConflict {
		t.Fatalf("issuing on a revoked deal = %v, want state_conflict", err)
	}
	res = e.stripe("evt_code_2", "payment_intent.succeeded", map[string]any{"id": "pi_code_2", "amount": 10000, "currency": "eur", "metadata": map[string]any{"orp_code": c2.Code}})
	if res.Counted {
		t.Fatalf("sale with a code after revocation = %+v, want not counted", res)
	}
}
