package orp_test

import (
	"context"
	"testing"
	"time"
)

func eurAmount(n int64) map[string]any { return map[string]any{"amount_minor": n, "currency": "EUR"} }

func dealTerms(title, kind string, obligations ...map[string]any) map[string]any {
	obs := make([]any, len(obligations))
	for i, o := range obligations {
		obs[i] = o
	}
	return map[string]any{"title": title, "kind": kind, "disclosure": map[string]any{"label": "Partner mention", "lang": "en"}, "obligations": obs}
}

func placeLink(id, by, kind string, extra map[string]any) map[string]any {
	o := map[string]any{"id": id, "by": by, "action": "place", "space": map[string]any{"kinds": []string{kind}},
		"content": map[string]any{"link": true}, "destination": "https://acmenotes.example/", "proof": []string{"link"}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

// TestDealKinds runs the example deals of §8.2's table, each with the
// obligations that bind it, and checks what each action does: tracked
// links only where content asks for them and never for direct links
// (T1, T11); placements verified by their clicks (T7); pay per deal only
// once what it pays for is verified, per placement for each placement,
// per click within its cap, per conversion from a code at checkout (T9);
// after gating (§12); and deadlines counted from activation that fail
// what is not done, with a host receipt (§12).
func TestDealKinds(t *testing.T) {
	human := map[string]string{"User-Agent": browser}
	cases := []struct {
		name  string
		terms map[string]any
		check func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any)
	}{
		{"affiliate link in a newsletter", affiliateTerms, func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
			if linkOf(active, "place") == "" {
				t.Fatal("no tracked link")
			}
		}},
		{"sponsored post on X, pay per deal", dealTerms("Sponsored post", "sponsored",
			placeLink("post", "acceptor", "social.post", nil),
			map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": eurAmount(15000), "rail": "manual"}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				if len(e.payouts(deal)) != 0 {
					t.Fatal("pay per deal owed before the post is verified")
				}
				e.click(linkOf(active, "post"), human, "")
				e.host.Flush(context.Background())
				ps := e.payouts(deal)
				if len(ps) != 1 || ps[0].State != "payable" || ps[0].Basis != "receipt" || ps[0].Amount.AmountMinor != 15000 {
					t.Fatalf("payouts = %+v", ps)
				}
				if r, m := e.send(pub, e.msg(pub, "payout", map[string]any{"deal": deal}, map[string]any{"payout": ps[0].ID, "answer": "confirm"})); r.Status != 200 || body(m)["state"] != "paid" {
					t.Fatalf("confirm = %d %v", r.Status, m)
				}
				if s := e.snapshot(pub, deal); s["state"] != "completed" || obState(s, "fee") != "verified" {
					t.Fatalf("after the payee confirmed = %v %v, want completed", s["state"], s["obligations"])
				}
			}},
		{"newsletter mention for a repost", dealTerms("Mention for a repost", "swap",
			placeLink("mention", "offerer", "newsletter.issue", map[string]any{"due": "P14D"}),
			map[string]any{"id": "repost", "by": "acceptor", "action": "repost", "target": "https://x.com/indiestackweekly/status/1848000000000000000",
				"space": map[string]any{"kinds": []string{"social.repost"}}, "due": "P7D", "keep": "P14D", "proof": []string{"platform_check", "proof_url"}}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				e.clock.Advance(days(7))
				e.sweep()
				s := e.snapshot(maker, deal)
				if obState(s, "repost") != "failed" || obState(s, "mention") != "pending" {
					t.Fatalf("after 7 days = %v", s["obligations"])
				}
				rs := e.messages(maker, "receipt")
				if len(rs) != 1 || body(rs[0])["result"] != "failed" || body(rs[0])["method"] != "platform_check" {
					t.Fatalf("receipts = %v", rs)
				}
			}},
		{"traffic swap between two channels", dealTerms("Traffic swap", "traffic_swap",
			placeLink("a", "offerer", "video.description", map[string]any{"clicks": 2}),
			placeLink("b", "acceptor", "newsletter.issue", map[string]any{"clicks": 2})),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				for _, ob := range []string{"a", "b"} {
					e.click(linkOf(active, ob), human, "")
					e.clock.Advance(6 * time.Second)
					e.host.Flush(context.Background())
					if s := e.snapshot(maker, deal); obState(s, ob) != "pending" {
						t.Fatalf("%s verified before its clicks target", ob)
					}
					e.click(linkOf(active, ob), human, "")
					e.host.Flush(context.Background())
				}
				if s := e.snapshot(maker, deal); s["state"] != "completed" {
					t.Fatalf("swap = %v %v, want completed", s["state"], s["obligations"])
				}
			}},
		{"link exchange between two blogs never earns per click", dealTerms("Link exchange", "link_exchange",
			map[string]any{"id": "a", "by": "offerer", "action": "place", "content": map[string]any{"direct": true, "link": true}, "destination": "https://acmenotes.example/", "keep": "P90D", "proof": []string{"proof_url"}},
			map[string]any{"id": "b", "by": "acceptor", "action": "place", "content": map[string]any{"direct": true, "link": true}, "destination": "https://acmenotes.example/", "keep": "P90D", "proof": []string{"proof_url"}},
			map[string]any{"id": "perclick", "by": "offerer", "action": "pay", "per": "click", "amount": eurAmount(50)}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				if active["tracking"] != nil {
					t.Fatalf("direct links got tracking entries: %v", active["tracking"])
				}
				e.clock.Advance(days(8))
				e.sweep()
				if ps := e.payouts(deal); len(ps) != 0 {
					t.Fatalf("a direct link earned %+v", ps)
				}
			}},
		{"cross-sell in an app, a code at checkout", dealTerms("Cross-sell", "cross_sell",
			map[string]any{"id": "slot", "by": "acceptor", "action": "place", "space": map[string]any{"kinds": []string{"app.slot"}},
				"content": map[string]any{"code": true}, "destination": "https://acmenotes.example/", "proof": []string{"link"}},
			map[string]any{"id": "perconv", "by": "offerer", "action": "pay", "per": "conversion", "amount": eurAmount(700), "hold": "P7D"}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				code := active["tracking"].([]any)[0].(map[string]any)["code"].(string)
				e.stripe("evt_code_1", "payment_intent.succeeded", map[string]any{"id": "pi_code_1", "amount": 4900, "currency": "eur", "metadata": map[string]any{"orp_code": code}})
				ps := e.payouts(deal)
				if len(ps) != 1 || ps[0].Amount.AmountMinor != 700 || !ps[0].HoldUntil.Equal(e.clock.Now().Add(days(7))) {
					t.Fatalf("payouts = %+v, want 7.00 EUR held for the deal's own 7 days", ps)
				}
			}},
		{"paid repost, pay after the repost", dealTerms("Paid repost", "repost",
			map[string]any{"id": "repost", "by": "acceptor", "action": "repost", "target": "https://x.com/acmenotes/status/1848100000000000000", "keep": "P14D", "proof": []string{"proof_url"}},
			map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": eurAmount(8000), "after": "repost"}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				e.clock.Advance(days(8))
				e.sweep()
				if ps := e.payouts(deal); len(ps) != 0 {
					t.Fatalf("pay after an unverified repost = %+v", ps)
				}
			}},
		{"comment for credits, credit after the comment", dealTerms("Comment for credits", "comment",
			map[string]any{"id": "comment", "by": "acceptor", "action": "comment", "target": "https://community.example/t/42", "content": map[string]any{"brief": "Say what you use for notes."}, "due": "P3D", "proof": []string{"proof_url"}},
			map[string]any{"id": "credits", "by": "offerer", "action": "credit", "credits": map[string]any{"amount": 3, "unit": "months"}, "after": "comment"}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				if _, m := e.send(maker, e.msg(maker, "execute", map[string]any{"deal": deal}, map[string]any{"obligation": "credits"})); errCode(m) != "state_conflict" {
					t.Fatalf("credit before its after obligation = %v, want state_conflict", m)
				}
				e.clock.Advance(days(3))
				e.sweep()
				if s := e.snapshot(pub, deal); obState(s, "comment") != "failed" || obState(s, "credits") != "pending" {
					t.Fatalf("after the comment's deadline = %v", s["obligations"])
				}
			}},
		{"data partnership, each party shares", dealTerms("Data partnership", "data",
			map[string]any{"id": "feed_a", "by": "offerer", "action": "share", "data": map[string]any{"description": "Weekly signups by country, counts only."}, "due": "2026-11-01T00:00:00Z", "proof": []string{"attestation"}},
			map[string]any{"id": "feed_b", "by": "acceptor", "action": "share", "data": map[string]any{"description": "Weekly opens by issue, counts only."}, "due": "P30D", "proof": []string{"attestation"}}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				e.clock.Set(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
				e.sweep()
				if s := e.snapshot(pub, deal); obState(s, "feed_a") != "failed" || obState(s, "feed_b") != "pending" {
					t.Fatalf("at the first deadline = %v", s["obligations"])
				}
			}},
		{"pay per placement, per click with a cap", dealTerms("Two placements", "sponsored",
			placeLink("p1", "acceptor", "web.article", nil), placeLink("p2", "acceptor", "social.post", nil),
			map[string]any{"id": "each", "by": "offerer", "action": "pay", "per": "placement", "amount": eurAmount(1000)},
			map[string]any{"id": "clicks", "by": "offerer", "action": "pay", "per": "click", "amount": eurAmount(40), "cap": eurAmount(100)}),
			func(t *testing.T, e *env, maker, pub *party, deal string, active map[string]any) {
				for i := 0; i < 2; i++ {
					e.click(linkOf(active, "p1"), human, "")
					e.click(linkOf(active, "p2"), human, "")
					e.clock.Advance(6 * time.Second)
				}
				e.host.Flush(context.Background())
				e.clock.Advance(days(7))
				e.sweep()
				var placement, click int64
				for _, p := range e.payouts(deal) {
					switch p.Obligation {
					case "each":
						placement += p.Amount.AmountMinor
					case "clicks":
						click += p.Amount.AmountMinor
						if p.Basis != "link" {
							t.Fatalf("per click basis = %s", p.Basis)
						}
					}
				}
				if placement != 2000 || click != 100 {
					t.Fatalf("per placement %d, per click %d; want 2000 and the cap of 100 (4 clicks at 40)", placement, click)
				}
				if row := e.outcomeRow(pub); row["earned"] == nil {
					t.Fatalf("outcome row = %v, want earned from the clicks", row)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			maker, pub := e.autoParty(), e.autoParty()
			deal, active := e.directDeal(maker, pub, c.terms)
			c.check(t, e, maker, pub, deal, active)
		})
	}
}
