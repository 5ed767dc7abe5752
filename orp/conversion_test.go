package orp_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"frontdesk/orp"
)

func viaOf(t *testing.T, location string) string {
	t.Helper()
	u, err := url.Parse(location)
	if err != nil || u.Query().Get("via") == "" {
		t.Fatalf("redirect %q has no click id", location)
	}
	return u.Query().Get("via")
}

func eur(n int64) *orp.Money { return &orp.Money{AmountMinor: n, Currency: "EUR"} }

// TestConversionsByClickID attributes provider events and the payer's own
// reports by click id (T10, P4, P5) and checks what the outcome counts.
func TestConversionsByClickID(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	offerer, acceptor, deal, link := e.activeDeal()
	via := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
	e.clock.Advance(10 * time.Second)
	testVia := viaOf(t, e.click(link+"?orp_test=1", map[string]string{"User-Agent": browser}, ""))
	e.host.Flush(ctx)

	sale := orp.Conversion{Event: "evt_sale_1", Click: via, Amount: eur(6400)}
	res, err := e.host.ProviderConversion(ctx, "stripe", sale)
	if err != nil || !res.Counted || res.Deal != deal || res.Obligation != "place" || res.Basis != "provider" {
		t.Fatalf("provider sale = %+v, %v", res, err)
	}
	// The same event again changes nothing; other content under its id is a replay.
	if again, err := e.host.ProviderConversion(ctx, "stripe", sale); err != nil || again != res {
		t.Fatalf("repeat = %+v, %v", again, err)
	}
	changed := sale
	changed.Amount = eur(1)
	if _, err := e.host.ProviderConversion(ctx, "stripe", changed); orp.AsError(err).Code != orp.Replay {
		t.Fatalf("changed event = %v, want replay", err)
	}

	cases := []struct {
		name    string
		token   string
		body    string
		code    orp.Code
		counted bool
	}{
		{"the publisher cannot learn a click id exists", acceptor.token, `{"event":"r1","click":"` + via + `"}`, orp.NotFound, false},
		{"the payer reports its own sale", offerer.token, `{"event":"r2","click":"` + via + `","amount":{"amount_minor":1000,"currency":"EUR"}}`, "", true},
		{"a test click converts nothing", offerer.token, `{"event":"r3","click":"` + testVia + `"}`, "", false},
		{"another currency", offerer.token, `{"event":"r4","click":"` + via + `","amount":{"amount_minor":1,"currency":"USD"}}`, orp.InvalidMessage, false},
		{"no buyer data fits", offerer.token, `{"event":"r5","click":"` + via + `","email":"a@b.example"}`, orp.InvalidMessage, false},
		{"click and code", offerer.token, `{"event":"r6","click":"` + via + `","code":"ABCD2345"}`, orp.InvalidMessage, false},
		{"unknown click", offerer.token, `{"event":"r7","click":"AAAAAAAAAAAAAAAAAAAAAA"}`, orp.NotFound, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.host.ReportConversion(ctx, c.token, []byte(c.body))
			if c.code != "" {
				if orp.AsError(err).Code != c.code {
					t.Fatalf("report = %+v, %v, want %s", res, err, c.code)
				}
				return
			}
			if err != nil || res.Counted != c.counted || res.Basis != "attestation" {
				t.Fatalf("report = %+v, %v, want counted %v", res, err, c.counted)
			}
		})
	}
	if res, err := e.host.ProviderConversion(ctx, "stripe", orp.Conversion{Event: "evt_refund_1", Click: via, Amount: eur(1000), Refund: true}); err != nil || !res.Counted {
		t.Fatalf("provider refund = %+v, %v", res, err)
	}

	// A week later the outcome counts them: the payer's report is kept
	// apart and, since the pay obligation's proof is provider only, earns
	// nothing (P4).
	e.clock.Advance(7 * 24 * time.Hour)
	if _, err := e.host.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	row := e.outcomeRow(acceptor)
	got, _ := json.Marshal(map[string]any{"conversions": row["conversions"], "refunds": row["refunds"], "attested": row["attested_conversions"], "revenue": row["revenue"], "earned": row["earned"]})
	want := `{"attested":1,"conversions":1,"earned":{"amount_minor":1620,"currency":"EUR"},"refunds":1,"revenue":{"amount_minor":5400,"currency":"EUR"}}`
	if string(got) != want {
		t.Fatalf("outcome conversions = %s, want %s", got, want)
	}

	// After the 30-day window a sale on that click no longer counts.
	e.clock.Advance(24 * 24 * time.Hour)
	if res, err := e.host.ProviderConversion(ctx, "stripe", orp.Conversion{Event: "evt_late", Click: via}); err != nil || res.Counted {
		t.Fatalf("late sale = %+v, %v, want not counted", res, err)
	}
}

// TestConversionsByCode attributes a checkout code to its deal while the
// entry is live, and counts nothing once it is plain (T9, T8).
func TestConversionsByCode(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	maker, pub := e.join("{}"), e.join("{}")
	terms := map[string]any{
		"title": "Acme Notes code", "kind": "affiliate", "disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "code": true},
				"destination": "https://acmenotes.example/", "proof": []string{"link"}},
			map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "amount": map[string]any{"amount_minor": 500, "currency": "EUR"}, "proof": []string{"provider"}},
		},
	}
	_, m := e.send(maker, e.msg(maker, "offer", nil, map[string]any{"terms": terms}))
	listed := e.approve(maker, body(m)["waiting"].(map[string]any)["url"].(string))
	_, m = e.send(pub, e.msg(pub, "accept", nil, map[string]any{"offer": body(listed)["id"], "terms_hash": body(listed)["terms_hash"]}))
	dealID := m["deal"].(string)
	active := e.approve(pub, body(m)["waiting"].(map[string]any)["url"].(string))
	code, _ := body(active)["tracking"].([]any)[0].(map[string]any)["code"].(string)
	if len(code) < 4 || len(code) > 32 {
		t.Fatalf("tracking code = %q", code)
	}
	res, err := e.host.ProviderConversion(ctx, "stripe", orp.Conversion{Event: "evt_code_1", Code: code, Amount: eur(9900)})
	if err != nil || !res.Counted || res.Deal != dealID {
		t.Fatalf("code sale = %+v, %v", res, err)
	}
	if r, m := e.send(maker, e.msg(maker, "revoke", map[string]any{"deal": dealID}, map[string]any{"scope": "deal", "reason": "owner_request"})); r.Status != 200 {
		t.Fatalf("revoke = %d %v", r.Status, m)
	}
	if res, err := e.host.ProviderConversion(ctx, "stripe", orp.Conversion{Event: "evt_code_2", Code: code}); err != nil || res.Counted {
		t.Fatalf("code sale after revoke = %+v, %v, want not counted", res, err)
	}
}
