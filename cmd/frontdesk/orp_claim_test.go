package main

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"frontdesk/internal/clock"
	"frontdesk/orp/schema"
)

// joined is what an unclaimed party's join answers: its id and the link
// its owner claims it with.
type joined struct{ Party, Claim string }

// joinUnclaimed joins a party over HTTP, as an agent would.
func (s *orpServer) joinUnclaimed() joined {
	s.t.Helper()
	resp, b := s.do("POST", "/orp/join", "", []byte(`{}`), nil)
	if resp.StatusCode != 201 {
		s.t.Fatalf("join = %d %s", resp.StatusCode, b)
	}
	var j joined
	if err := json.Unmarshal(b, &j); err != nil {
		s.t.Fatal(err)
	}
	return j
}

// TestORP_ClaimPage shows the claim page on GET without changing
// anything, and claims the party once on a POST from that page that
// carries the claim id and the confirmation.
func TestORP_ClaimPage(t *testing.T) {
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	claimURL, _ := url.Parse(j.Claim)
	claim := strings.TrimPrefix(claimURL.Path, "/claim/")
	form := func(v url.Values, origin string) (int, string) {
		hdr := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
		if origin != "" {
			hdr["Origin"] = origin
		}
		resp, b := s.do("POST", j.Claim, "", []byte(v.Encode()), hdr)
		return resp.StatusCode, string(b)
	}

	for i := 0; i < 2; i++ {
		resp, b := s.do("GET", j.Claim, "", nil, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(b), j.Party) || !strings.Contains(string(b), `method="post"`) || resp.Header.Get("Referrer-Policy") != "same-origin" {
			t.Fatalf("GET claim page = %d %s", resp.StatusCode, b)
		}
	}
	for _, c := range []struct {
		name   string
		form   url.Values
		origin string
		status int
	}{
		{"without the confirmation", url.Values{"claim": {claim}}, s.url, 400},
		{"with another claim id", url.Values{"claim": {"clm_other"}, "confirm": {"yes"}}, s.url, 400},
		{"from another site", url.Values{"claim": {claim}, "confirm": {"yes"}}, "https://evil.example", 403},
	} {
		if status, page := form(c.form, c.origin); status != c.status || strings.Contains(page, "own_") {
			t.Fatalf("%s = %d %s, want %d and no owner key", c.name, status, page, c.status)
		}
	}
	status, page := form(url.Values{"claim": {claim}, "confirm": {"yes"}}, s.url)
	if status != 200 || !strings.Contains(page, "own_") {
		t.Fatalf("claim = %d %s", status, page)
	}
	if status, page := form(url.Values{"claim": {claim}, "confirm": {"yes"}}, s.url); status != 409 || strings.Contains(page, "own_") {
		t.Fatalf("second claim = %d %s", status, page)
	}
	if resp, b := s.do("GET", j.Claim, "", nil, nil); !strings.Contains(string(b), "already been claimed") {
		t.Fatalf("claim page after claiming = %d %s", resp.StatusCode, b)
	}
	if resp, _ := s.do("GET", "/claim/clm_nosuchclaim00", "", nil, nil); resp.StatusCode != 404 {
		t.Fatalf("unknown claim = %d", resp.StatusCode)
	}
}

// TestORP_ConversionReport takes the payer's own report of a sale by
// click id over HTTP, and refuses the publisher side (T10, P4).
func TestORP_ConversionReport(t *testing.T) {
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	maker, pub, deal, link := s.activeDeal()
	_, loc := s.click("GET", link, map[string]string{"User-Agent": browserUA})
	u, _ := url.Parse(loc)
	via := u.Query().Get("via")
	report := []byte(`{"event":"order-1001","click":"` + via + `","amount":{"amount_minor":9600,"currency":"EUR"}}`)
	var resp struct {
		Deal    string
		Basis   string
		Counted bool
	}
	s.main.orp.host.Flush(context.Background())
	if r, b := s.do("POST", "/orp/conversions", maker.token, report, nil); r.StatusCode != 200 {
		t.Fatalf("report = %d %s", r.StatusCode, b)
	} else {
		json.Unmarshal(b, &resp)
	}
	if resp.Deal != deal || resp.Basis != "attestation" || !resp.Counted {
		t.Fatalf("report = %+v", resp)
	}
	r, b := s.do("POST", "/orp/conversions", pub.token, report, nil)
	if r.StatusCode != 404 || !strings.Contains(string(b), `"not_found"`) {
		t.Fatalf("publisher report = %d %s", r.StatusCode, b)
	}
	validate(t, schema.Message, b)
}
