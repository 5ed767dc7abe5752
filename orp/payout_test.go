package orp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"frontdesk/orp"
)

// TestAffiliateOfferToPaidThenRefund runs a whole affiliate deal: offer,
// accept, a human click, a signed provider sale carrying the click id, a
// payout held for the default P30D, payable after the hold, sent by the
// payer's held settle step, confirmed by the payee, then a provider
// refund that reverses it (§14, S1-S5, P5). The outcome rows carry the
// money and nothing that names a person.
func TestAffiliateOfferToPaidThenRefund(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		maker, pub := e.autoParty(), e.autoParty()
		e.setStep(maker, "settle", "ask")
		deal, active := e.directDeal(maker, pub, affiliateTerms)
		via := viaOf(t, e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, ""))
		e.host.Flush(ctx)

		// A bad signature, a stale one and an unknown provider change nothing.
		sale := map[string]any{"id": "cs_test_1", "object": "checkout.session", "amount_total": 10000, "currency": "eur",
			"client_reference_id": via, "payment_intent": "pi_test_1"}
		b, _ := json.Marshal(map[string]any{"id": "evt_sale_1", "type": "checkout.session.completed", "data": map[string]any{"object": sale}})
		for name, c := range map[string]struct {
			sig  string
			code orp.Code
		}{
			"wrong secret":              {orp.StripeSignature(b, "whsec_other", e.clock.Now()), orp.BadSignature},
			"outside the replay window": {orp.StripeSignature(b, testWebhookSecret, e.clock.Now().Add(-6*time.Minute)), orp.Stale},
			"no signature":              {"", orp.Unauthorized},
		} {
			if _, err := e.host.ProviderEvent(ctx, "stripe", c.sig, b); orp.AsError(err).Code != c.code {
				t.Fatalf("%s: %v, want %s", name, err, c.code)
			}
		}
		if len(e.payouts(deal)) != 0 {
			t.Fatal("a refused event recorded a payout")
		}

		res := e.stripe("evt_sale_1", "checkout.session.completed", sale)
		if !res.Applied || !res.Counted || res.Deal != deal {
			t.Fatalf("sale = %+v", res)
		}
		// The same event again, and the same purchase's payment intent
		// event, count nothing more.
		if again := e.stripe("evt_sale_1", "checkout.session.completed", sale); !again.Counted {
			t.Fatalf("repeat = %+v, want the first answer", again)
		}
		pi := map[string]any{"id": "pi_test_1", "object": "payment_intent", "amount_received": 10000, "currency": "eur", "metadata": map[string]any{"orp_click": via}}
		if dup := e.stripe("evt_pi_1", "payment_intent.succeeded", pi); dup.Counted {
			t.Fatalf("second event of one purchase = %+v, want not counted", dup)
		}
		// A second purchase through a second click; an outcome with a single
		// sale would describe one buyer, and waits (§14.1).
		e.clock.Advance(6 * time.Second)
		via2 := viaOf(t, e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, ""))
		e.host.Flush(ctx)
		e.stripe("evt_sale_2", "charge.succeeded", map[string]any{"id": "ch_test_2", "amount": 6000, "currency": "eur", "payment_intent": "pi_test_2", "metadata": map[string]any{"orp_click": via2}})
		ps := e.payouts(deal)
		if len(ps) != 2 || ps[1].Amount.AmountMinor != 1800 || ps[0].State != "held" || ps[0].Amount != (orp.Money{AmountMinor: 3000, Currency: "EUR"}) || ps[0].Basis != "provider" ||
			!ps[0].HoldUntil.Equal(t0.Add(days(30))) || ps[0].Payee != pub.id || ps[0].Payer != maker.id {
			t.Fatalf("payouts = %+v, want 30.00 and 18.00 EUR held for 30 days", ps)
		}
		po := ps[0].ID
		if got := e.lastPayout(pub, po); got["state"] != "held" || got["hold_until"] != "2026-11-20T09:00:00Z" || got["rail"] != "stripe" {
			t.Fatalf("payee's payout = %v", got)
		}

		e.clock.Advance(days(7))
		e.sweep()
		row := e.outcomeRow(pub)
		money, _ := json.Marshal(map[string]any{"conversions": row["conversions"], "refunds": row["refunds"], "revenue": row["revenue"], "earned": row["earned"]})
		if want := `{"conversions":2,"earned":{"amount_minor":4800,"currency":"EUR"},"refunds":0,"revenue":{"amount_minor":16000,"currency":"EUR"}}`; string(money) != want {
			t.Fatalf("outcome = %s, want %s", money, want)
		}
		for _, m := range append(e.messages(pub, "outcome"), e.messages(maker, "outcome")...) {
			raw, _ := json.Marshal(m)
			noPersonalData(t, raw, via, via2)
		}

		// Not payable before the hold ends; the payer cannot send early.
		if r, m := e.send(maker, e.msg(maker, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "sent", "ref": "tr_1"})); errCode(m) != "state_conflict" {
			t.Fatalf("sent inside the hold = %d %v", r.Status, m)
		}
		e.clock.Advance(days(23))
		e.sweep()
		if got := e.lastPayout(pub, po); got["state"] != "payable" {
			t.Fatalf("after the hold = %v, want payable", got)
		}
		// The payee cannot say it was sent; the payer's settle step asks.
		if _, m := e.send(pub, e.msg(pub, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "sent"})); errCode(m) != "forbidden" {
			t.Fatalf("payee sent = %v", m)
		}
		r, m := e.send(maker, e.msg(maker, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "sent", "ref": "tr_1"}))
		if r.Status != 200 || body(m)["state"] != "payable" {
			t.Fatalf("held settle = %d %v", r.Status, m)
		}
		w := e.snapshot(maker, deal)["waiting"].(map[string]any)
		if w["step"] != "settle" {
			t.Fatalf("waiting = %v", w)
		}
		e.approve(maker, w["url"].(string))
		if got := e.lastPayout(pub, po); got["state"] != "sent" || got["ref"] != "tr_1" {
			t.Fatalf("after the settle approval = %v, want sent with the rail's ref", got)
		}
		if _, m := e.send(pub, e.msg(pub, "payout", map[string]any{"deal": deal}, map[string]any{"payout": po, "answer": "confirm"})); body(m)["state"] != "paid" {
			t.Fatalf("confirm = %v", m)
		}

		// A refund of the sale reverses its payout, paid or not (P5).
		refund := map[string]any{"id": "ch_test_1", "object": "charge", "amount": 10000, "amount_refunded": 10000, "currency": "eur", "payment_intent": "pi_test_1"}
		if res := e.stripe("evt_refund_1", "charge.refunded", refund); !res.Applied || !res.Counted {
			t.Fatalf("refund = %+v", res)
		}
		if got := e.lastPayout(pub, po); got["state"] != "reversed" {
			t.Fatalf("after the refund = %v, want reversed", got)
		}
		if ps := e.payouts(deal); ps[1].State != "payable" {
			t.Fatalf("the other sale's payout = %s, want payable", ps[1].State)
		}
	})
}

// TestIdentifyingOutcomeDelayed: a period with a single sale would tell
// both parties what one buyer paid, so its outcome waits until the
// period holds more events; the next outcome covers the whole time
// (§14.1). A final outcome is never held back.
func TestIdentifyingOutcomeDelayed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	maker, pub := e.autoParty(), e.autoParty()
	deal, active := e.directDeal(maker, pub, affiliateTerms)
	link := linkOf(active, "place")
	sale := func(n int) {
		via := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
		e.host.Flush(ctx)
		e.stripe(fmt.Sprintf("evt_one_%d", n), "payment_intent.succeeded", map[string]any{"id": fmt.Sprintf("pi_one_%d", n), "amount": 2500, "currency": "eur", "metadata": map[string]any{"orp_click": via}})
		e.clock.Advance(6 * time.Second)
	}
	sale(1)
	e.clock.Advance(days(7))
	e.sweep()
	if n := len(e.messages(pub, "outcome")); n != 0 {
		t.Fatalf("%d outcomes describing one sale, want none yet", n)
	}
	sale(2)
	e.clock.Advance(days(1))
	e.sweep()
	row := e.outcomeRow(pub)
	if row["conversions"] != float64(2) || row["revenue"].(map[string]any)["amount_minor"] != float64(5000) {
		t.Fatalf("outcome = %v, want both sales", row)
	}
	sale(3)
	e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"}))
	e.sweep()
	outs := e.messages(pub, "outcome")
	if last := body(outs[len(outs)-1]); last["final"] != true {
		t.Fatalf("final outcome = %v", last)
	}
}

// TestPayerReportOwnMoney: the payer's own report of a sale counts in
// the outcome's conversions, revenue and earned, and earns a payout with
// basis attestation, only when the pay obligation lists attestation in
// its proof; otherwise it stays apart as attested_conversions and makes
// no money payable (P4). Go code in the process reports the same way.
func TestPayerReportOwnMoney(t *testing.T) {
	for _, c := range []struct {
		name    string
		proof   []string
		payouts int
		want    string
	}{
		{"proof lists attestation", []string{"provider", "attestation"}, 2,
			`{"attested":2,"conversions":2,"earned":{"amount_minor":1500,"currency":"EUR"},"revenue":{"amount_minor":5000,"currency":"EUR"}}`},
		{"proof is provider only", []string{"provider"}, 0,
			`{"attested":2,"conversions":0,"earned":null,"revenue":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			maker, pub := e.autoParty(), e.autoParty()
			terms := termsWith("Acme Notes: 30%, reported by the merchant")
			terms["obligations"] = []any{affiliateTerms["obligations"].([]any)[0],
				map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "window": "P30D", "proof": c.proof}}
			deal, active := e.directDeal(maker, pub, terms)
			via := viaOf(t, e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, ""))
			e.host.Flush(ctx)
			if res, err := e.host.ReportConversion(ctx, maker.token, []byte(`{"event":"own_1","click":"`+via+`","amount":{"amount_minor":2000,"currency":"EUR"},"sale":"order_1"}`)); err != nil || !res.Counted {
				t.Fatalf("report = %+v, %v", res, err)
			}
			if res, err := e.host.PayerConversion(ctx, maker.id, orp.Conversion{Event: "own_2", Click: via, Amount: eur(3000), Sale: "order_2"}); err != nil || !res.Counted || res.Basis != "attestation" {
				t.Fatalf("in-process report = %+v, %v", res, err)
			}
			ps := e.payouts(deal)
			if len(ps) != c.payouts {
				t.Fatalf("payouts = %+v, want %d", ps, c.payouts)
			}
			for _, p := range ps {
				if p.Basis != "attestation" || p.Payer != maker.id {
					t.Fatalf("payout = %+v", p)
				}
			}
			e.clock.Advance(days(7))
			e.sweep()
			row := e.outcomeRow(pub)
			got, _ := json.Marshal(map[string]any{"conversions": row["conversions"], "attested": row["attested_conversions"], "revenue": row["revenue"], "earned": row["earned"]})
			if string(got) != c.want {
				t.Fatalf("outcome = %s, want %s", got, c.want)
			}
		})
	}
}

// TestPayoutRailAnswers: with the settle step off the payer settles
// outside ORP and its sent is refused, the payee confirms a payable
// payout; a payee's not_received sends a sent payout back to payable;
// the rail's own payout.paid and payout.failed events mark payouts paid
// or failed with the rail's reference, once per event (§14.2).
func TestPayoutRailAnswers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	maker, pub := e.autoParty(), e.autoParty()
	terms := dealTerms("Four posts, paid per placement", "sponsored",
		placeLink("p1", "acceptor", "social.post", nil), placeLink("p2", "acceptor", "social.post", nil),
		placeLink("p3", "acceptor", "social.post", nil), placeLink("p4", "acceptor", "social.post", nil),
		map[string]any{"id": "each", "by": "offerer", "action": "pay", "per": "placement", "amount": eurAmount(1000), "rail": "stripe"})
	deal, active := e.directDeal(maker, pub, terms)
	for _, ob := range []string{"p1", "p2", "p3", "p4"} {
		e.click(linkOf(active, ob), map[string]string{"User-Agent": browser}, "")
	}
	e.host.Flush(ctx)
	ps := e.payouts(deal)
	if len(ps) != 4 {
		t.Fatalf("payouts = %+v", ps)
	}
	answer := func(p *party, po, a string) map[string]any {
		// Addressed to the host, as the spec's own answer is.
		_, m := e.send(p, e.msg(p, "payout", map[string]any{"deal": deal, "to": e.host.ID()}, map[string]any{"payout": po, "answer": a, "ref": "tr_" + po}))
		return m
	}
	e.setStep(maker, "settle", "off")
	if m := answer(maker, ps[0].ID, "sent"); errCode(m) != "step_off" {
		t.Fatalf("sent with settle off = %v", m)
	}
	if m := answer(pub, ps[0].ID, "confirm"); body(m)["state"] != "paid" {
		t.Fatalf("confirm of a payable payout = %v", m)
	}
	e.setStep(maker, "settle", "auto")
	if m := answer(maker, ps[1].ID, "sent"); body(m)["state"] != "sent" {
		t.Fatalf("sent = %v", m)
	}
	if m := answer(pub, ps[1].ID, "not_received"); body(m)["state"] != "payable" {
		t.Fatalf("not_received = %v", m)
	}
	if m := answer(pub, ps[0].ID, "not_received"); errCode(m) != "state_conflict" {
		t.Fatalf("not_received of a paid payout = %v", m)
	}
	rail := func(id, typ, po string) orp.ProviderResult {
		return e.stripe(id, typ, map[string]any{"id": "po_rail_" + id, "object": "payout", "metadata": map[string]any{"orp_deal": deal, "orp_payout": po}})
	}
	if res := rail("evt_paid_1", "payout.paid", ps[2].ID); !res.Applied {
		t.Fatalf("payout.paid = %+v", res)
	}
	if res := rail("evt_paid_1", "payout.paid", ps[2].ID); res.Applied {
		t.Fatalf("the same event again = %+v, want nothing applied", res)
	}
	if res := rail("evt_failed_1", "payout.failed", ps[3].ID); !res.Applied {
		t.Fatalf("payout.failed = %+v", res)
	}
	if res := e.stripe("evt_other", "customer.created", map[string]any{"id": "cus_1"}); res.Applied {
		t.Fatalf("an unrelated event = %+v", res)
	}
	got := map[string]string{}
	for _, p := range e.payouts(deal) {
		got[p.ID] = p.State + " " + p.Ref
	}
	want := map[string]string{ps[0].ID: "paid ", ps[1].ID: "payable tr_" + ps[1].ID, ps[2].ID: "paid po_rail_evt_paid_1", ps[3].ID: "failed po_rail_evt_failed_1"}
	for id, w := range want {
		if got[id] != w {
			t.Fatalf("payout states = %v, want %v", got, want)
		}
	}
}

// TestPayerRefundCannotReverseProviderPayout: a payer's own refund report
// never reverses a payout that a provider's event earned (P4).
func TestPayerRefundCannotReverseProviderPayout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	maker, pub := e.autoParty(), e.autoParty()
	terms := termsWith("Acme Notes: 30%")
	terms["obligations"] = []any{affiliateTerms["obligations"].([]any)[0],
		map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "proof": []string{"provider", "attestation"}}}
	deal, active := e.directDeal(maker, pub, terms)
	via := viaOf(t, e.click(linkOf(active, "place"), map[string]string{"User-Agent": browser}, ""))
	e.host.Flush(ctx)
	e.stripe("evt_p1", "payment_intent.succeeded", map[string]any{"id": "pi_p1", "amount": 10000, "currency": "eur", "metadata": map[string]any{"orp_click": via}})
	if _, err := e.host.ReportConversion(ctx, maker.token, []byte(`{"event":"own_refund","click":"`+via+`","amount":{"amount_minor":10000,"currency":"EUR"},"refund":true}`)); err != nil {
		t.Fatal(err)
	}
	if ps := e.payouts(deal); len(ps) != 1 || ps[0].State != "held" {
		t.Fatalf("payouts = %+v, want the provider's payout still held", ps)
	}
}
