package main

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"frontdesk/internal/clock"
	"frontdesk/orp"
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
	t.Parallel()
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
	t.Parallel()
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

// TestORP_HumanApprovalOverHTTP: the owner turns on human approval for
// the accept step on the owner page; the agent's accept of the demo's
// referral offer waits, its bearer is refused on the approval URL, the
// page shows the terms and, to the signed-in owner, the form; the
// owner's submission binds the deal and shows a consent signed with the
// discovery document's key.
func TestORP_HumanApprovalOverHTTP(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	cookie := s.claimByMail(j, "publisher@example.org")
	opaque := j.Party[strings.LastIndex(j.Party, "/")+1:]
	_, home := s.do("GET", "/owner/", "", nil, map[string]string{"Cookie": "frontdesk_owner=" + cookie})
	csrf := string(regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(home)[1])
	doc := html.UnescapeString(string(regexp.MustCompile(`(?s)<textarea[^>]*>(.*?)</textarea>`).FindSubmatch(home)[1]))
	if resp, b := s.form("/owner/parties/"+opaque+"/constraints", url.Values{"csrf": {csrf}, "constraints": {doc}, "human": {"accept"}}, cookie); resp.StatusCode != 303 {
		t.Fatalf("save rules = %d %s", resp.StatusCode, b)
	}
	me := &orpParty{id: j.Party, token: j.Token}
	_, sug, _ := s.suggest(`{"text":"A weekend by the river"}`)
	var items struct {
		Items []struct {
			Offer struct {
				ID        string `json:"id"`
				TermsHash string `json:"terms_hash"`
			} `json:"offer"`
		} `json:"items"`
	}
	json.Unmarshal(sug, &items)
	code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": items.Items[0].Offer.ID, "terms_hash": items.Items[0].Offer.TermsHash}))
	w, _ := obody(m)["waiting"].(map[string]any)
	if code != 200 || w == nil {
		t.Fatalf("accept = %d %v", code, m)
	}
	approval := w["url"].(string)
	if resp, b := s.do("POST", approval, j.Token, nil, nil); resp.StatusCode != 403 || !strings.Contains(string(b), `"code":"forbidden"`) {
		t.Fatalf("the agent's bearer on a human step = %d %s, want 403 forbidden", resp.StatusCode, b)
	}
	if resp, b := s.do("GET", approval, "", nil, nil); resp.StatusCode != 200 || strings.Contains(string(b), `name="csrf"`) || !strings.Contains(string(b), "<blockquote>") {
		t.Fatalf("approval page without a session = %d %s, want the terms and no form", resp.StatusCode, b)
	}
	_, page := s.do("GET", approval, "", nil, map[string]string{"Cookie": "frontdesk_owner=" + cookie})
	if !strings.Contains(string(page), `id="approve"`) || !strings.Contains(string(page), "The acceptor must place a tracked link") {
		t.Fatalf("approval page for the owner = %s", page)
	}
	if resp, _ := s.form(approval, url.Values{"csrf": {"forged"}}, cookie); resp.StatusCode != 403 {
		t.Fatalf("approval without the CSRF token = %d, want 403", resp.StatusCode)
	}
	resp, done := s.form(approval, url.Values{"csrf": {csrf}}, cookie)
	raw := regexp.MustCompile(`(?s)<pre id="consent">(.*?)</pre>`).FindStringSubmatch(done)
	if resp.StatusCode != 200 || raw == nil {
		t.Fatalf("owner approval = %d %s", resp.StatusCode, done)
	}
	consent := []byte(html.UnescapeString(raw[1]))
	validate(t, schema.Message, consent)
	var disc orp.Discovery
	_, d := s.do("GET", "/.well-known/orp.json", "", nil, nil)
	json.Unmarshal(d, &disc)
	if !orp.VerifyHostMessage(consent, disc.Keys) || !strings.Contains(string(consent), `"assurance":"email_link"`) {
		t.Fatalf("consent = %s, want one signed with the discovery key", consent)
	}
	if st := obody(mustDecode(t, s.snapshot(me, m["deal"].(string))))["state"]; st != "active" {
		t.Fatalf("deal after the owner's approval = %v", st)
	}
}

func mustDecode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return m
}

// TestORP_SelfClaimGetsNoRedirect is the audit's self-claim: a script
// joins, posts the claim form itself, lists a web space on a foreign
// site and offers a deal with its tracked link there. The claim claims
// nothing, so the space declares no site, the offer is refused and no
// /go/ link can send browsers there. The control: once a person claims
// the party by the mailed link, the same offer lists. The discovery
// document and /terms state the rule.
func TestORP_SelfClaimGetsNoRedirect(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	me := &orpParty{id: j.Party, token: j.Token}
	claim := j.Claim[strings.LastIndex(j.Claim, "/")+1:]
	if resp, _ := s.do("POST", j.Claim, "", []byte("claim="+claim+"&confirm=yes"), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}); resp.StatusCode == 200 || resp.StatusCode == 303 {
		t.Fatalf("scripted self-claim = %d, want a refusal", resp.StatusCode)
	}
	space := map[string]any{"action": "put", "space": map[string]any{"id": "site", "kind": "web.page", "platform": "web", "title": "Sign in", "locator": "https://attacker.example/login"}}
	_, m := s.send(me, s.msg(me, "space", nil, space))
	if w, _ := obody(m)["waiting"].(map[string]any); w != nil {
		s.do("POST", w["url"].(string), j.Token, nil, nil) // the agent approves its own listing
	}
	offer := func() (int, map[string]any) {
		terms := map[string]any{"title": "Log in to claim", "kind": "affiliate", "obligations": []any{
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true}, "destination": "https://attacker.example/login", "proof": []string{"link"}},
		}}
		return s.send(me, s.msg(me, "offer", nil, map[string]any{"terms": terms}))
	}
	if code, m := offer(); code != 403 || obody(m)["code"] != "forbidden" {
		t.Fatalf("offer to the foreign site after a scripted self-claim = %d %v, want 403 forbidden", code, m)
	}
	s.claimByMail(j, "owner@example.org")
	if code, m := offer(); code != 200 {
		t.Fatalf("offer to the space's site once a person claimed the party = %d %v, want 200", code, m)
	}
	_, d := s.do("GET", "/.well-known/orp.json", "", nil, nil)
	_, terms := s.do("GET", "/terms", "", nil, nil)
	for _, b := range [][]byte{d, terms} {
		if !strings.Contains(string(b), "signed-in person has claimed") {
			t.Fatalf("the destination rule is not stated: %s", b)
		}
	}
}

// TestORP_HumanRefusalOverHTTP: on the approval page the signed-in owner
// can refuse as well as approve. The refusal is a form POST carrying the
// session's CSRF token; a forged token or no session refuses nothing.
// The refusal shows a consent signed with the discovery key whose
// decision is refused, and the awaiting deal is declined.
func TestORP_HumanRefusalOverHTTP(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	cookie := s.claimByMail(j, "publisher@example.org")
	opaque := j.Party[strings.LastIndex(j.Party, "/")+1:]
	_, home := s.do("GET", "/owner/", "", nil, map[string]string{"Cookie": "frontdesk_owner=" + cookie})
	csrf := string(regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(home)[1])
	doc := html.UnescapeString(string(regexp.MustCompile(`(?s)<textarea[^>]*>(.*?)</textarea>`).FindSubmatch(home)[1]))
	if resp, b := s.form("/owner/parties/"+opaque+"/constraints", url.Values{"csrf": {csrf}, "constraints": {doc}, "human": {"accept"}}, cookie); resp.StatusCode != 303 {
		t.Fatalf("save rules = %d %s", resp.StatusCode, b)
	}
	me := &orpParty{id: j.Party, token: j.Token}
	_, sug, _ := s.suggest(`{"text":"A weekend by the river"}`)
	var items struct {
		Items []struct {
			Offer struct {
				ID        string `json:"id"`
				TermsHash string `json:"terms_hash"`
			} `json:"offer"`
		} `json:"items"`
	}
	json.Unmarshal(sug, &items)
	code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": items.Items[0].Offer.ID, "terms_hash": items.Items[0].Offer.TermsHash}))
	w, _ := obody(m)["waiting"].(map[string]any)
	if code != 200 || w == nil {
		t.Fatalf("accept = %d %v", code, m)
	}
	approval := w["url"].(string)
	deal := m["deal"].(string)
	_, page := s.do("GET", approval, "", nil, map[string]string{"Cookie": "frontdesk_owner=" + cookie})
	if !strings.Contains(string(page), `id="refuse"`) {
		t.Fatalf("approval page for the owner has no refuse button: %s", page)
	}
	if resp, _ := s.form(approval+"/refuse", url.Values{"csrf": {"forged"}}, cookie); resp.StatusCode != 403 {
		t.Fatalf("refusal without the CSRF token = %d, want 403", resp.StatusCode)
	}
	if resp, _ := s.form(approval+"/refuse", url.Values{"csrf": {csrf}}, ""); resp.StatusCode != 401 {
		t.Fatalf("refusal without a session = %d, want 401", resp.StatusCode)
	}
	if st := obody(mustDecode(t, s.snapshot(me, deal)))["state"]; st != "awaiting" {
		t.Fatalf("deal after refused refusals = %v, want awaiting", st)
	}
	resp, done := s.form(approval+"/refuse", url.Values{"csrf": {csrf}}, cookie)
	raw := regexp.MustCompile(`(?s)<pre id="consent">(.*?)</pre>`).FindStringSubmatch(done)
	if resp.StatusCode != 200 || raw == nil || !strings.Contains(done, "You refused") {
		t.Fatalf("owner refusal = %d %s", resp.StatusCode, done)
	}
	consent := []byte(html.UnescapeString(raw[1]))
	validate(t, schema.Message, consent)
	var disc orp.Discovery
	_, d := s.do("GET", "/.well-known/orp.json", "", nil, nil)
	json.Unmarshal(d, &disc)
	if !orp.VerifyHostMessage(consent, disc.Keys) || !strings.Contains(string(consent), `"decision":"refused"`) {
		t.Fatalf("refusal = %s, want a refused consent signed with the discovery key", consent)
	}
	if st := obody(mustDecode(t, s.snapshot(me, deal)))["state"]; st != "declined" {
		t.Fatalf("deal after the owner's refusal = %v, want declined", st)
	}
	if resp, _ := s.form(approval, url.Values{"csrf": {csrf}}, cookie); resp.StatusCode != 409 {
		t.Fatalf("approving after the refusal = %d, want 409", resp.StatusCode)
	}
}
