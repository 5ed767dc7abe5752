package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"frontdesk/internal/clock"
	"frontdesk/orp/schema"
)

// joined is what an unclaimed party's join answers: its id and the link
// its owner claims it with.
type joined struct{ Party, Claim, Token string }

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

// mailedLink is the newest one-time sign-in link mailed to addr.
func (s *orpServer) mailedLink(addr string) string {
	s.t.Helper()
	msgs, err := s.main.devMail.Messages(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].To) == 1 && msgs[i].To[0] == addr {
			for _, line := range strings.Split(msgs[i].Text, "\n") {
				if strings.Contains(line, "/owner/link/") {
					return strings.TrimSpace(line)
				}
			}
		}
	}
	s.t.Fatalf("no sign-in link mailed to %s", addr)
	return ""
}

// form posts a form from this host's own page, with an owner cookie.
func (s *orpServer) form(path string, v url.Values, cookie string) (*http.Response, string) {
	s.t.Helper()
	hdr := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": s.url}
	if cookie != "" {
		hdr["Cookie"] = "frontdesk_owner=" + cookie
	}
	resp, b := s.do("POST", path, "", []byte(v.Encode()), hdr)
	return resp, string(b)
}

// claimByMail claims the party of j as a person without a passkey: the
// address on the page beside the claim page, the link from the mail, the
// button on the link's page. It returns the owner's session cookie.
func (s *orpServer) claimByMail(j joined, addr string) string {
	s.t.Helper()
	if resp, page := s.form(j.Claim+"/email", url.Values{"email": {addr}}, ""); resp.StatusCode != 200 || !strings.Contains(page, "on its way") {
		s.t.Fatalf("claim by email = %d %s", resp.StatusCode, page)
	}
	link := s.mailedLink(addr)
	for i := 0; i < 2; i++ { // opening the link twice uses nothing
		if resp, b := s.do("GET", link, "", nil, nil); resp.StatusCode != 200 || !strings.Contains(string(b), "Claim and sign in") {
			s.t.Fatalf("GET link = %d %s", resp.StatusCode, b)
		}
	}
	resp, page := s.form(link, nil, "")
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/owner/" {
		s.t.Fatalf("using the link = %d %s", resp.StatusCode, page)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "frontdesk_owner" && c.HttpOnly && c.SameSite == http.SameSiteLaxMode && c.Path == "/" {
			if resp, _ := s.form(link, nil, ""); resp.StatusCode != 404 {
				s.t.Fatalf("the link used twice = %d, want 404", resp.StatusCode)
			}
			return c.Value
		}
	}
	s.t.Fatalf("no owner session cookie: %v", resp.Header)
	return ""
}

// TestORP_ClaimPage: the claim page shows the party and records nothing;
// a form carrying only the claim id and a confirmation, as a script
// would send, claims nothing (the audit's self-claim); a person claims
// with the one-time link mailed from the page beside it, once, and is
// then signed in to the owner page, which shows the party and rotates
// its bearer token.
func TestORP_ClaimPage(t *testing.T) {
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	claimURL, _ := url.Parse(j.Claim)
	claim := strings.TrimPrefix(claimURL.Path, "/claim/")
	for i := 0; i < 2; i++ {
		resp, b := s.do("GET", j.Claim, "", nil, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(b), j.Party) || resp.Header.Get("Referrer-Policy") != "same-origin" ||
			strings.Contains(string(b), `type="email"`) || strings.Contains(string(b), `type="password"`) {
			t.Fatalf("GET claim page = %d %s", resp.StatusCode, b)
		}
	}
	for _, c := range []struct {
		name   string
		form   url.Values
		status int
	}{
		{"a script's confirmation", url.Values{"claim": {claim}, "confirm": {"yes"}}, 400},
		{"a made-up passkey answer", url.Values{"ceremony": {"cer_made_up"}, "credential": {`{"id":"x"}`}}, 404},
	} {
		if resp, page := s.form(j.Claim, c.form, ""); resp.StatusCode != c.status || strings.Contains(page, "already been claimed") {
			t.Fatalf("%s = %d %s, want %d and nothing claimed", c.name, resp.StatusCode, page, c.status)
		}
	}
	if resp, _ := s.do("POST", j.Claim+"/email", "", []byte("email=a%40example.org"), map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}); resp.StatusCode != 403 {
		t.Fatalf("a cross-site claim form = %d, want 403", resp.StatusCode)
	}
	cookie := s.claimByMail(j, "owner@example.org")
	if _, b := s.do("GET", j.Claim, "", nil, nil); !strings.Contains(string(b), "already been claimed") {
		t.Fatalf("claim page after claiming = %s", b)
	}
	resp, page := s.do("GET", "/owner/", "", nil, map[string]string{"Cookie": "frontdesk_owner=" + cookie})
	if resp.StatusCode != 200 || !strings.Contains(string(page), j.Party) {
		t.Fatalf("owner page = %d %s", resp.StatusCode, page)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if csrf == nil {
		t.Fatalf("no CSRF token on the owner page: %s", page)
	}
	opaque := j.Party[strings.LastIndex(j.Party, "/")+1:]
	if resp, _ := s.form("/owner/parties/"+opaque+"/token", url.Values{"csrf": {"wrong"}}, cookie); resp.StatusCode != 403 {
		t.Fatalf("rotation without the CSRF token = %d, want 403", resp.StatusCode)
	}
	resp, rotated := s.form("/owner/parties/"+opaque+"/token", url.Values{"csrf": {string(csrf[1])}}, cookie)
	token := regexp.MustCompile(`id="new-token">(orpt_[A-Za-z0-9]+)<`).FindStringSubmatch(rotated)
	if resp.StatusCode != 200 || token == nil {
		t.Fatalf("rotate = %d %s", resp.StatusCode, rotated)
	}
	if resp, _ := s.do("GET", "/orp/inbox", j.Token, nil, nil); resp.StatusCode != 401 {
		t.Fatalf("the old token after rotation = %d, want 401", resp.StatusCode)
	}
	if resp, _ := s.do("GET", "/orp/inbox", token[1], nil, nil); resp.StatusCode != 200 {
		t.Fatalf("the new token = %d, want 200", resp.StatusCode)
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
