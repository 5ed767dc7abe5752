package orp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"frontdesk/orp"
)

// saleDeal is an active affiliate deal with one provider sale and its
// held payout.
func (e *env) saleDeal() (maker, pub *party, deal, payout string) {
	e.t.Helper()
	maker, pub = e.autoParty(), e.autoParty()
	deal, active := e.directDeal(maker, pub, affiliateTerms)
	via := viaOf(e.t, e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, ""))
	e.host.Flush(context.Background())
	e.stripe("evt_sale_"+deal, "checkout.session.completed", map[string]any{"id": "cs_" + deal, "amount_total": 10000, "currency": "eur",
		"client_reference_id": via, "payment_intent": "pi_" + deal})
	ps := e.payouts(deal)
	if len(ps) != 1 || ps[0].State != "held" {
		e.t.Fatalf("payouts = %+v", ps)
	}
	return maker, pub, deal, ps[0].ID
}

// TestDisputeHoldsPayout: a dispute opened on the placement makes the
// deal disputed and keeps the payout that depends on it held past its
// hold; the counterparty answers; the resolver rejects it, and the payout
// is released and the deal active again (§15.2). The opener lost, which
// counts in its reputation.
func TestDisputeHoldsPayout(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		maker, pub, deal, po := e.saleDeal()
		open := e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "place", "claim": "invalid_traffic",
			"statement": "The clicks came in one burst.", "evidence": []any{map[string]any{"url": "https://status.example/burst"}}, "remedy": "reverse_payout"})
		r, m := e.send(maker, open)
		if r.Status != 200 || body(m)["state"] != "disputed" {
			t.Fatalf("open = %d %v", r.Status, m)
		}
		dispute := e.messages(pub, "dispute")[0]["id"].(string)
		if _, m := e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "place", "claim": "other", "statement": "Again."})); errCode(m) != "state_conflict" {
			t.Fatalf("second dispute on one obligation = %v", m)
		}
		if _, m := e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "respond", "dispute": dispute, "statement": "Me?"})); errCode(m) != "forbidden" {
			t.Fatalf("opener responds = %v", m)
		}
		if r, m := e.send(pub, e.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "respond", "dispute": dispute, "statement": "One newsletter went out at 9:00."})); r.Status != 200 {
			t.Fatalf("respond = %d %v", r.Status, m)
		}
		if _, m := e.send(pub, e.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "resolve", "dispute": dispute, "resolution": "rejected"})); errCode(m) != "forbidden" {
			t.Fatalf("a party resolves = %v", m)
		}
		e.clock.Advance(days(31))
		e.sweep()
		if ps := e.payouts(deal); ps[0].State != "held" {
			t.Fatalf("payout during the dispute = %s, want held", ps[0].State)
		}
		if err := e.host.ResolveDispute(ctx, "wrong", deal, dispute, "rejected"); orp.AsError(err).Code != orp.Unauthorized {
			t.Fatalf("resolve without the resolver token = %v", err)
		}
		v, err := e.host.ViewDispute(ctx, testResolverToken, deal, dispute)
		if err != nil || len(v.Statements) != 2 || v.Claim != "invalid_traffic" {
			t.Fatalf("view = %+v, %v", v, err)
		}
		if err := e.host.ResolveDispute(ctx, testResolverToken, deal, dispute, "rejected"); err != nil {
			t.Fatal(err)
		}
		if got := e.lastPayout(pub, po); got["state"] != "payable" {
			t.Fatalf("payout after the resolution = %v, want payable", got)
		}
		if s := e.snapshot(pub, deal); s["state"] != "active" {
			t.Fatalf("deal after the resolution = %v", s["state"])
		}
		res := e.messages(maker, "dispute")
		if len(res) != 2 || body(res[1])["action"] != "resolve" || body(res[1])["resolution"] != "rejected" || res[1]["sig"] == nil {
			t.Fatalf("resolve messages = %v", res)
		}
		if err := e.host.ResolveDispute(ctx, testResolverToken, deal, dispute, "upheld"); orp.AsError(err).Code != orp.StateConflict {
			t.Fatalf("second resolution = %v", err)
		}
		rep, _ := e.host.Reputation(ctx, maker.id)
		if rep.DisputesLost != 1 {
			t.Fatalf("opener's lost disputes = %d, want 1", rep.DisputesLost)
		}
	})
}

// TestDisputeUpheldReverses: an upheld dispute on the placement fails it
// and reverses the payout that depends on it; a withdrawn one releases
// its hold.
func TestDisputeUpheldReverses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	maker, pub, deal, po := e.saleDeal()
	e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "place", "claim": "not_done", "statement": "No issue went out."}))
	dispute := e.messages(pub, "dispute")[0]["id"].(string)
	if err := e.host.ResolveDispute(ctx, testResolverToken, deal, dispute, "upheld"); err != nil {
		t.Fatal(err)
	}
	if got := e.lastPayout(pub, po); got["state"] != "reversed" {
		t.Fatalf("payout = %v, want reversed", got)
	}
	if s := e.snapshot(maker, deal); obState(s, "place") != "failed" || s["state"] != "active" {
		t.Fatalf("deal = %v %v", s["state"], s["obligations"])
	}

	maker, pub, deal, _ = e.saleDeal()
	e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "place", "claim": "other", "statement": "A question."}))
	dispute = e.messages(pub, "dispute")[0]["id"].(string)
	if _, m := e.send(pub, e.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "withdraw", "dispute": dispute})); errCode(m) != "forbidden" {
		t.Fatalf("respondent withdraws = %v", m)
	}
	if _, m := e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "withdraw", "dispute": dispute})); body(m)["state"] != "active" {
		t.Fatalf("withdraw = %v", m)
	}
}

// TestNotPaidAfterDue: the payee may open not_paid only once a payout is
// payable and its due has passed (S4).
func TestNotPaidAfterDue(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	terms := termsWith("A sponsored post, paid within a week")
	terms["kind"] = "sponsored"
	terms["obligations"] = []any{
		map[string]any{"id": "post", "by": "acceptor", "action": "place", "space": map[string]any{"kinds": []string{"social.post"}},
			"content": map[string]any{"link": true}, "destination": "https://acmenotes.example/", "proof": []string{"link"}},
		map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": map[string]any{"amount_minor": 20000, "currency": "EUR"}, "due": "P7D", "rail": "manual"},
	}
	deal, active := e.directDeal(maker, pub, terms)
	openNotPaid := func() map[string]any {
		_, m := e.send(pub, e.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "fee", "claim": "not_paid", "statement": "Nothing arrived."}))
		return m
	}
	if m := openNotPaid(); errCode(m) != "state_conflict" {
		t.Fatalf("not_paid with nothing owed = %v", m)
	}
	e.click(linkOf(active, "post"), map[string]string{"User-Agent": browser}, "")
	e.host.Flush(context.Background())
	ps := e.payouts(deal)
	if len(ps) != 1 || ps[0].State != "payable" || ps[0].Amount.AmountMinor != 20000 {
		t.Fatalf("payouts once the post is verified = %+v, want one payable", ps)
	}
	if m := openNotPaid(); errCode(m) != "state_conflict" {
		t.Fatalf("not_paid before due = %v", m)
	}
	e.clock.Advance(days(7) + time.Minute)
	if m := openNotPaid(); body(m)["state"] != "disputed" {
		t.Fatalf("not_paid after due = %v", m)
	}
}

// TestDisputeClaims: every claim type opens a dispute on an active deal;
// not_paid also on a revoked deal whose earned money is still owed, and
// the deal is revoked again once the dispute closes.
func TestDisputeClaims(t *testing.T) {
	e := newEnv(t)
	maker, pub := e.autoParty(), e.autoParty()
	deal, active := e.directDeal(maker, pub, dealTerms("A post, paid on the day", "sponsored",
		placeLink("post", "acceptor", "social.post", nil),
		map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": eurAmount(9000)}))
	for _, claim := range []string{"not_done", "removed_early", "disclosure_missing", "content_mismatch", "invalid_traffic", "bad_receipt", "other"} {
		open := e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "post", "claim": claim, "statement": "See the post."})
		var id struct{ ID string }
		json.Unmarshal(open, &id)
		if r, m := e.send(maker, open); r.Status != 200 || body(m)["state"] != "disputed" {
			t.Fatalf("open %s = %d %v", claim, r.Status, m)
		}
		if _, m := e.send(maker, e.msg(maker, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "withdraw", "dispute": id.ID})); body(m)["state"] != "active" {
			t.Fatalf("withdraw %s = %v", claim, m)
		}
	}
	e.click(linkOf(active, "post"), map[string]string{"User-Agent": browser}, "")
	e.host.Flush(context.Background())
	e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"}))
	open := e.msg(pub, "dispute", map[string]any{"deal": deal}, map[string]any{"action": "open", "obligation": "fee", "claim": "not_paid", "statement": "The fee is owed."})
	var id struct{ ID string }
	json.Unmarshal(open, &id)
	if _, m := e.send(pub, open); body(m)["state"] != "disputed" {
		t.Fatalf("not_paid on a revoked deal = %v", m)
	}
	if err := e.host.ResolveDispute(context.Background(), testResolverToken, deal, id.ID, "upheld"); err != nil {
		t.Fatal(err)
	}
	if s := e.snapshot(pub, deal); s["state"] != "revoked" {
		t.Fatalf("after the resolution = %v, want revoked", s["state"])
	}
	if ps := e.payouts(deal); len(ps) != 1 || ps[0].State != "payable" {
		t.Fatalf("payouts = %+v, want the fee still owed", ps)
	}
}
