package orp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// cappedTerms are the spec's affiliate terms with a cap on the
// commission, so a budget can allow them and only the claims check
// holds them.
var cappedTerms = map[string]any{
	"title": "Acme Notes: 30% of first-year revenue", "kind": "affiliate", "categories": []string{"software.productivity"},
	"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
			"destination": "http://acmenotes.example/pricing", "proof": []string{"link"}},
		map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "window": "P30D",
			"cap": map[string]any{"amount_minor": 50, "currency": "EUR"}, "rail": "stripe", "proof": []string{"provider"}},
	},
}

// siteOn routes every page read of the host to srv, as if each site's
// name resolved there (plain HTTP, so the destination is http).
func siteOn(srv *httptest.Server) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, strings.TrimPrefix(srv.URL, "http://"))
	}
}

// TestL2_ClaimsCheck: with checks.claims real the host lists a standing
// offer only once its destination page bears out the figures it claims,
// and accepting a checked offer no longer escalates claims_unchecked; an
// offer claiming what the page does not say stays held. With stub every
// standing offer is held for review (§6, §11.1).
func TestL2_ClaimsCheck(t *testing.T) {
	page := "<h1>Acme Notes pricing</h1><p>Partners earn 30% of first-year revenue.</p>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(page)) }))
	defer srv.Close()
	for _, c := range []struct {
		mode, page string
		status     string
		discovered string
	}{
		{"real", page, "listed", "checked"},
		{"real", "<p>Acme Notes pricing</p>", "waiting", "failed"},
		{"stub", page, "waiting", ""},
	} {
		t.Run(c.mode+" "+c.status, func(t *testing.T) {
			e := newEnv(t)
			e.claims, e.dial = c.mode, siteOn(srv)
			e.host = e.newHost(e.db)
			page = c.page
			if got := e.host.Discovery().Capabilities["checks"].(map[string]any)["claims"]; got != c.mode {
				t.Fatalf("checks.claims = %v, want %s", got, c.mode)
			}
			maker := e.join("{}")
			s := e.claimByMail(maker.claim, "maker@example.org")
			auto := `{"steps":{"list":"auto","negotiate":"auto","accept":"auto","execute":"auto","amend":"auto","settle":"auto","share":"auto","revoke":"auto"},"budget":{"per_deal":{"amount_minor":100,"currency":"EUR"},"max_rate_bps":5000}}`
			e.host.SetConstraints(context.Background(), s.Owner, maker.id, []byte(auto))
			_, m := e.send(maker, e.msg(maker, "offer", nil, map[string]any{"terms": cappedTerms}))
			offer, hash := body(m)["id"].(string), body(m)["terms_hash"].(string)
			other := e.join("{}")
			_, found := e.send(other, e.msg(other, "discover", nil, map[string]any{"want": "offers", "context": map[string]any{"text": "notes"}}))
			got := "waiting"
			for _, it := range body(found)["items"].([]any) {
				if it.(map[string]any)["offer"].(map[string]any)["id"] == offer {
					got = "listed"
					if ch := it.(map[string]any)["checks"].(map[string]any)["claims"]; ch != c.discovered {
						t.Fatalf("checks.claims of the result = %v, want %s", ch, c.discovered)
					}
				}
			}
			if got != c.status {
				t.Fatalf("offer = %s, want %s", got, c.status)
			}
			if c.status == "listed" {
				acc := e.join("{}")
				as := e.claimByMail(acc.claim, "publisher@example.org")
				e.host.SetConstraints(context.Background(), as.Owner, acc.id, []byte(`{"steps":{"list":"auto","negotiate":"auto","accept":"auto","execute":"auto","amend":"auto","settle":"auto","share":"auto","revoke":"auto"}}`))
				_, m := e.send(acc, e.msg(acc, "accept", nil, map[string]any{"offer": offer, "terms_hash": hash}))
				if body(m)["state"] != "active" {
					t.Fatalf("auto accept of a checked offer = %v, want active", body(m))
				}
			}
		})
	}
}
