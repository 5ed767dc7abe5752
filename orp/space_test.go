package orp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/internal/outbound"
	"frontdesk/orp"
)

// siteServer serves one site on loopback: pages by path. The fetcher it
// returns reaches it for any host name, as DNS would for the site.
func siteServer(t *testing.T, pages map[string]string) (*httptest.Server, orp.Fetcher) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(b))
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	dial := &net.Dialer{}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dial.DialContext(ctx, network, addr)
	}}}
	return srv, orp.NewFetcherWith(c)
}

func newsletterSpace(locator string, audience map[string]any) map[string]any {
	return map[string]any{"id": "sp_news_1", "kind": "newsletter.issue", "platform": "newsletter", "title": "Indie Stack Weekly",
		"locator": locator, "topics": []string{"software.productivity"}, "languages": []string{"en"}, "audience": audience,
		"accepts": []string{"affiliate", "sponsored"}}
}

// TestSpaceVerifiedByDomain: only the host sets verified, after it finds
// the party named on the space's domain, in the well-known file or an
// HTML meta tag on the locator page (§8.1, §9.1); a locator on a private
// address is refused, and the real fetcher never reaches one.
func TestSpaceVerifiedByDomain(t *testing.T) {
	e := newEnv(t)
	pub, other := e.autoParty(), e.autoParty()
	pages := map[string]string{}
	_, fetcher := siteServer(t, pages)
	e.fetcher = fetcher
	e.publicOnly = true // the production address rule
	e.host = e.newHost(e.db)
	put := func(p *party, space map[string]any) map[string]any {
		_, m := e.send(p, e.msg(p, "space", nil, map[string]any{"action": "put", "space": space}))
		return m
	}
	aud := map[string]any{"size": "10k-100k", "source": "platform"}
	if m := put(pub, newsletterSpace("http://indiestack.example/issues", aud)); body(m)["space"].(map[string]any)["verified"] != nil {
		t.Fatalf("verified without proof: %v", m)
	}
	pages["/issues"] = `<html><head><meta name="orp-party" content="` + pub.id + `"></head></html>`
	m := put(pub, newsletterSpace("http://indiestack.example/issues", aud))
	sp := body(m)["space"].(map[string]any)
	v, _ := sp["verified"].([]any)
	if len(v) != 1 || v[0].(map[string]any)["method"] != "domain" || sp["audience"].(map[string]any)["k_min"] != float64(50) {
		t.Fatalf("space after the meta tag = %v", sp)
	}
	// The well-known file works too; another party's id on the page does not.
	delete(pages, "/issues")
	pages["/.well-known/orp-party.txt"] = "orp:hub.example/p_someoneelse\n" + other.id + "\n"
	if m := put(other, newsletterSpace("http://othersite.example/", aud)); body(m)["space"].(map[string]any)["verified"] == nil {
		t.Fatalf("well-known file not honoured: %v", m)
	}
	if m := put(pub, newsletterSpace("http://indiestack.example/issues", aud)); body(m)["space"].(map[string]any)["verified"] != nil {
		t.Fatalf("verified for a party the site does not name: %v", m)
	}
	withVerified := newsletterSpace("http://indiestack.example/issues", aud)
	withVerified["verified"] = []any{map[string]any{"method": "domain", "at": "2026-10-21T09:00:00Z"}}
	if m := put(pub, withVerified); errCode(m) != "forbidden" {
		t.Fatalf("a party setting verified = %v", m)
	}
	for _, loc := range []string{"http://127.0.0.1/issues", "http://[::1]/x", "http://10.1.2.3/", "http://localhost:8080/", "http://169.254.169.254/latest",
		"http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://localhost./", "http://LOCALHOST/", "http://app.localhost/", "http://[::ffff:127.0.0.1]/"} {
		if m := put(pub, newsletterSpace(loc, aud)); errCode(m) != "invalid_message" {
			t.Fatalf("locator %s = %v, want invalid_message", loc, m)
		}
	}
	srv, _ := siteServer(t, map[string]string{"/": "hello"})
	if _, err := orp.NewFetcher(outbound.Rule{}).Fetch(context.Background(), srv.URL+"/"); !errors.Is(err, orp.ErrPrivateAddress) {
		t.Fatalf("real fetcher on loopback = %v, want ErrPrivateAddress", err)
	}
}

// TestSpaceDiscovery: another party discovers a space without its
// locator, with fit reasons and trust, and sees only the region buckets
// that at least k_min members stand behind (§7.2, §9.2).
func TestSpaceDiscovery(t *testing.T) {
	e := newEnv(t)
	pub, maker := e.autoParty(), e.autoParty()
	aud := map[string]any{"size": "1k-10k", "k_min": 100, "source": "self_report", "regions": []any{
		map[string]any{"region": "DE", "share": "25-50%"}, // 1000 × 25% = 250: shown
		map[string]any{"region": "AT", "share": "5-10%"},  // 1000 × 5% = 50 < 100: hidden
	}}
	if _, m := e.send(pub, e.msg(pub, "space", nil, map[string]any{"action": "put", "space": newsletterSpace("http://indiestack.example/issues", aud)})); body(m)["status"] != "listed" {
		t.Fatalf("put = %v", m)
	}
	_, m := e.send(maker, e.msg(maker, "discover", nil, map[string]any{"want": "spaces", "context": map[string]any{"text": "software productivity notes"}}))
	items := body(m)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("results = %v", m)
	}
	it := items[0].(map[string]any)
	sp := it["space"].(map[string]any)
	regions := sp["audience"].(map[string]any)["regions"].([]any)
	if sp["locator"] != nil || len(regions) != 1 || regions[0].(map[string]any)["region"] != "DE" {
		t.Fatalf("space as others see it = %v", sp)
	}
	fit := it["fit"].(map[string]any)
	trust := it["trust"].(map[string]any)
	if len(fit["reasons"].([]any)) == 0 || trust["completed"] != float64(0) || trust["reputation"] != nil {
		t.Fatalf("fit %v trust %v", fit, trust)
	}
	if !strings.Contains(fit["reasons"].([]any)[0].(string), "software") {
		t.Fatalf("reasons = %v", fit["reasons"])
	}
	// The owner's own listing keeps every bucket.
	_, m = e.send(pub, e.msg(pub, "space", nil, map[string]any{"action": "put", "space": newsletterSpace("http://indiestack.example/issues", aud)}))
	if n := len(body(m)["space"].(map[string]any)["audience"].(map[string]any)["regions"].([]any)); n != 2 {
		t.Fatalf("owner's copy has %d regions", n)
	}
	// A kinds filter keeps the spaces that accept one of the kinds.
	for kind, n := range map[string]int{"sponsored": 1, "data": 0} {
		_, m = e.send(maker, e.msg(maker, "discover", nil, map[string]any{"want": "spaces", "context": map[string]any{"text": "notes"}, "filters": map[string]any{"kinds": []string{kind}}}))
		if got := len(body(m)["items"].([]any)); got != n {
			t.Fatalf("spaces accepting %s = %d, want %d", kind, got, n)
		}
	}
	// Offers are discovered with trust too, matched against the caller's
	// own space when it names one.
	e.send(maker, e.msg(maker, "offer", nil, map[string]any{"terms": affiliateTerms}))
	_, m = e.send(pub, e.msg(pub, "discover", nil, map[string]any{"want": "offers", "context": map[string]any{"space": "sp_news_1"}}))
	items = body(m)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["trust"] == nil {
		t.Fatalf("offers = %v", m)
	}
	if f := items[0].(map[string]any)["fit"].(map[string]any); f["score"] == float64(0) {
		t.Fatalf("fit against the caller's space = %v, want the shared words to count", f)
	}
}
