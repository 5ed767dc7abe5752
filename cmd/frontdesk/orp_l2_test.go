package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/orp"
)

// l2Terms ask the acceptor to place a tracked link with the deal's
// disclosure, kept 14 days, proved by a page the host reads or by the
// offerer's attestation. Nobody pays, so only the steps weigh on them.
var l2Terms = map[string]any{
	"title": "Acme Notes: a link in your post", "kind": "sponsored", "categories": []string{"software.productivity"},
	"disclosure": map[string]any{"label": "Partner mention", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
			"destination": "https://acmenotes.example/pricing", "keep": "P14D", "proof": []string{"proof_url", "attestation"}},
	},
}

// dealOn activates a deal on terms between a fresh maker and publisher
// through the HTTP binding, each agent approving its own asks.
func (s *orpServer) dealOn(terms map[string]any) (maker, pub *orpParty, deal, link string) {
	s.t.Helper()
	maker, pub = s.join("{}"), s.join("{}")
	code, m := s.send(maker, s.msg(maker, "offer", nil, map[string]any{"terms": terms}))
	if code != 200 {
		s.t.Fatalf("offer = %d %v", code, m)
	}
	listed := s.approve(maker, obody(m)["waiting"].(map[string]any)["url"].(string))
	_, m = s.send(pub, s.msg(pub, "accept", nil, map[string]any{"offer": obody(listed)["id"], "terms_hash": obody(listed)["terms_hash"]}))
	active := s.approve(pub, obody(m)["waiting"].(map[string]any)["url"].(string))
	if obody(active)["state"] != "active" {
		s.t.Fatalf("deal = %v", active)
	}
	return maker, pub, active["deal"].(string), obody(active)["tracking"].([]any)[0].(map[string]any)["link"].(string)
}

func (s *orpServer) obligationState(p *orpParty, deal, id string) string {
	s.t.Helper()
	for _, ob := range obody(mustDecode(s.t.(*testing.T), s.snapshot(p, deal)))["obligations"].([]any) {
		if ob.(map[string]any)["id"] == id {
			return ob.(map[string]any)["state"].(string)
		}
	}
	return ""
}

// TestORP_L2 runs the six L2 cases of §17 against the started demo server
// over the HTTP binding: L2-STEP-MODES, L2-CONSENT-HOST-ONLY,
// L2-NO-SELF-RECEIPT, L2-ATTESTATION-NO-REP, L2-CLAIMS-UNCHECKED and
// L2-RECHECK. orpLevels claims L2 because this suite passes. Proof pages
// are served on loopback, so the host is configured for development.
func TestORP_L2(t *testing.T) {
	t.Parallel()
	start := func(t *testing.T) *orpServer {
		return startORPAt(t, t.TempDir(), "", clock.NewFixed(testNow), "127.0.0.1:0", func(c *config.Config) { c.ORP.FetchPrivateAddresses = true })
	}
	t.Run("L2-STEP-MODES", func(t *testing.T) {
		s := start(t)
		j := s.joinUnclaimed()
		me := &orpParty{id: j.Party, token: j.Token}
		loosen := `{"steps":{"accept":"auto"}}`
		if resp, b := s.do("POST", "/orp/constraints", j.Token, []byte(loosen), nil); resp.StatusCode != 403 || !strings.Contains(string(b), "H4") {
			t.Fatalf("agent loosening accept = %d %s, want 403", resp.StatusCode, b)
		}
		off := `{"steps":{"list":"ask","negotiate":"ask","accept":"off","execute":"ask","amend":"ask","settle":"ask","share":"ask","revoke":"auto"}}`
		if resp, b := s.do("POST", "/orp/constraints", j.Token, []byte(off), nil); resp.StatusCode != 200 {
			t.Fatalf("agent tightening accept to off = %d %s", resp.StatusCode, b)
		}
		_, offer := s.listOffer()
		if code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": offer, "terms_hash": e2eHash})); code != 403 || obody(m)["code"] != "step_off" {
			t.Fatalf("accept under off = %d %v, want step_off", code, m)
		}
		cookie := s.claimByMail(j, "owner@example.org")
		if resp, _ := s.do("GET", "/orp/constraints", j.Token, nil, nil); resp.StatusCode != 200 {
			t.Fatalf("GET constraints = %d", resp.StatusCode)
		}
		// The owner loosens accept to ask (the owner page's form calls
		// this; TestORP_HumanApprovalOverHTTP drives it), and ask holds
		// the accept for approval.
		ses, err := s.main.orp.host.OwnerSession(context.Background(), cookie)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.main.orp.host.SetConstraints(context.Background(), ses.Owner, j.Party, []byte(strings.Replace(off, `"accept":"off"`, `"accept":"ask"`, 1))); err != nil {
			t.Fatal(err)
		}
		code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": offer, "terms_hash": e2eHash}))
		if w, _ := obody(m)["waiting"].(map[string]any); code != 200 || obody(m)["state"] != "awaiting" || w["step"] != "accept" {
			t.Fatalf("accept under ask = %d %v, want awaiting", code, m)
		}
	})
	t.Run("L2-CONSENT-HOST-ONLY", func(t *testing.T) {
		s := start(t)
		_, pub, deal, _ := s.dealOn(l2Terms)
		code, m := s.send(pub, s.msg(pub, "consent", map[string]any{"deal": deal, "to": pub.id}, map[string]any{
			"consent": "cns_forged", "escalation": "esc_forged", "party": pub.id, "decision": "approved", "step": "accept",
			"terms_hash": e2eHash, "assurance": "passkey", "at": testNow.Format(time.RFC3339)}))
		if code != 403 || obody(m)["code"] != "forbidden" {
			t.Fatalf("consent from a party = %d %v, want forbidden", code, m)
		}
		// The owner's side: TestORP_HumanApprovalOverHTTP.
	})
	t.Run("L2-NO-SELF-RECEIPT", func(t *testing.T) {
		s := start(t)
		_, pub, deal, _ := s.dealOn(l2Terms)
		for _, method := range []string{"attestation", "proof_url"} {
			code, m := s.send(pub, s.msg(pub, "receipt", map[string]any{"deal": deal}, map[string]any{
				"obligation": "place", "result": "verified", "method": method, "at": testNow.Format(time.RFC3339)}))
			if code != 403 || obody(m)["code"] != "forbidden" {
				t.Fatalf("self-receipt by %s = %d %v, want 403 forbidden", method, code, m)
			}
		}
		if st := s.obligationState(pub, deal, "place"); st != "pending" {
			t.Fatalf("obligation = %s, want pending", st)
		}
	})
	t.Run("L2-ATTESTATION-NO-REP", func(t *testing.T) {
		s := start(t)
		maker, pub, deal, _ := s.dealOn(l2Terms)
		code, m := s.send(maker, s.msg(maker, "receipt", map[string]any{"deal": deal}, map[string]any{
			"obligation": "place", "result": "verified", "method": "attestation", "at": testNow.Format(time.RFC3339)}))
		if code != 200 || m["type"] != "deal" {
			t.Fatalf("attestation = %d %v", code, m)
		}
		if st := s.obligationState(pub, deal, "place"); st != "verified" {
			t.Fatalf("obligation = %s, want verified for the attester", st)
		}
		in, err := s.main.orp.host.ReputationInputs(context.Background(), pub.id)
		if err != nil || len(in) != 0 {
			t.Fatalf("reputation inputs = %v %v, want none from an attestation", in, err)
		}
	})
	t.Run("L2-CLAIMS-UNCHECKED", func(t *testing.T) {
		s := start(t)
		_, d := s.do("GET", "/.well-known/orp.json", "", nil, nil)
		var disc orp.Discovery
		json.Unmarshal(d, &disc)
		if disc.Capabilities["checks"].(map[string]any)["claims"] != "none" {
			t.Fatalf("checks.claims = %v, want none as configured", disc.Capabilities["checks"])
		}
		// Even a party whose owner set every step to auto waits on a
		// standing offer whose claims nobody checked.
		j := s.joinUnclaimed()
		cookie := s.claimByMail(j, "owner@example.org")
		ses, _ := s.main.orp.host.OwnerSession(context.Background(), cookie)
		auto := `{"steps":{"list":"auto","negotiate":"auto","accept":"auto","execute":"auto","amend":"auto","settle":"auto","share":"auto","revoke":"auto"}}`
		if _, err := s.main.orp.host.SetConstraints(context.Background(), ses.Owner, j.Party, []byte(auto)); err != nil {
			t.Fatal(err)
		}
		me := &orpParty{id: j.Party, token: j.Token}
		_, offer := s.listOffer()
		code, m := s.send(me, s.msg(me, "accept", nil, map[string]any{"offer": offer, "terms_hash": e2eHash}))
		w, _ := obody(m)["waiting"].(map[string]any)
		if code != 200 || obody(m)["state"] != "awaiting" || w == nil || !strings.Contains(mustString(w["reasons"]), "claims_unchecked") {
			t.Fatalf("auto accept of an unchecked offer = %d %v, want awaiting on claims_unchecked", code, m)
		}
		_, b, _ := s.suggest(`{"text":"notes"}`)
		if !strings.Contains(string(b), `"claims":"not_checked"`) {
			t.Fatalf("suggest items = %s, want checks.claims not_checked", b)
		}
	})
	t.Run("L2-RECHECK", func(t *testing.T) {
		s := start(t)
		maker, pub, deal, link := s.dealOn(l2Terms)
		var mu sync.Mutex
		page := `<p>Partner mention: <a href="` + link + `">Acme Notes</a></p>`
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			w.Write([]byte(page))
		}))
		defer srv.Close()
		s.send(pub, s.msg(pub, "execute", map[string]any{"deal": deal}, map[string]any{"obligation": "place", "proof_url": srv.URL + "/post"}))
		wait := obody(mustDecode(t, s.snapshot(pub, deal)))["waiting"]
		if w, ok := wait.(map[string]any); ok {
			s.approve(pub, w["url"].(string)) // the agent approves its execute ask
		}
		s.sweep()
		if st := s.obligationState(pub, deal, "place"); st != "verified" {
			t.Fatalf("obligation after the first read = %s, want verified", st)
		}
		mu.Lock()
		page = `<p>Partner mention, link removed</p>`
		mu.Unlock()
		s.clock.Advance(24 * time.Hour)
		s.sweep()
		if st := s.obligationState(pub, deal, "place"); st != "failed" {
			t.Fatalf("obligation after the failed recheck = %s, want failed", st)
		}
		ds, err := s.main.orp.host.Disputes(context.Background(), deal)
		if err != nil || len(ds) != 1 || ds[0].Claim != "removed_early" {
			t.Fatalf("disputes = %v %v, want one removed_early", ds, err)
		}
		failed := false
		for _, m := range s.inbox(maker) {
			failed = failed || m["type"] == "receipt" && obody(m)["result"] == "failed"
		}
		if !failed {
			t.Fatal("no failed receipt in the maker's inbox")
		}
	})
}

func mustString(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestORP_StaffListsPartnerOffers: an owner of the business lists a
// referral offer from the staff screen; the business's party offers it
// on the ORP host beside the demo's own, and a clerk may not list one.
func TestORP_StaffListsPartnerOffers(t *testing.T) {
	t.Parallel()
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	addStaff(t, s.main)
	olga, carl := signIn(t, s.main, "olga"), signIn(t, s.main, "carl")
	if status, _, body := olga.do("GET", "/staff/partners", nil); status != 200 || !strings.Contains(body, "10.00% of each booking") {
		t.Fatalf("partner page = %d %s, want the demo's referral offer", status, body)
	}
	if status, _, _ := carl.do("POST", "/staff/partners", url.Values{"csrf": {carl.csrf}, "percent": {"5"}}); status != 403 {
		t.Fatalf("a clerk listing an offer = %d, want 403", status)
	}
	if status, _, body := olga.do("POST", "/staff/partners", url.Values{"csrf": {olga.csrf}, "percent": {"abc"}}); status != 422 || !strings.Contains(body, "Nothing was listed") {
		t.Fatalf("a bad share = %d %s", status, body)
	}
	if status, h, _ := olga.do("POST", "/staff/partners", url.Values{"csrf": {olga.csrf}, "percent": {"7.5"}}); status != 303 || h.Get("Location") != "/staff/partners?saved=1" {
		t.Fatalf("listing = %d %v", status, h)
	}
	_, b, _ := s.suggest(`{"text":"river weekend"}`)
	if !strings.Contains(string(b), "7.50% of each booking") || !strings.Contains(string(b), "10.00% of each booking") {
		t.Fatalf("suggest = %s, want both of the business's offers", b)
	}
}

// TestORP_KeysRotate: `frontdesk orp keys rotate` adds a host signing key;
// after the restart the host signs with it and the discovery document
// publishes both, newest first, so a message signed before still
// verifies.
func TestORP_KeysRotate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startORP(t, dir, "", clock.NewFixed(testNow))
	discoveryKeys := func() []orp.JWK {
		_, b := s.do("GET", "/.well-known/orp.json", "", nil, nil)
		var d orp.Discovery
		json.Unmarshal(b, &d)
		return d.Keys
	}
	before := discoveryKeys()
	_, pub, deal, _ := s.dealOn(l2Terms)
	old := s.snapshot(pub, deal)
	s.stop()
	out, _, err := runCmd(t, "orp", "keys", "rotate", "--data", dir)
	if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(out, "signs") {
		t.Fatalf("orp keys rotate = %q, %v", out, err)
	}
	s = startORPAt(t, dir, "", clock.NewFixed(testNow.Add(time.Hour)), strings.TrimPrefix(s.url, "http://"))
	after := discoveryKeys()
	if len(before) != 1 || len(after) != 2 || after[1].Kid != before[0].Kid || after[0].Kid == before[0].Kid {
		t.Fatalf("keys before %v, after %v, want the new key first and the old one kept", before, after)
	}
	fresh := s.snapshot(pub, deal)
	if !orp.VerifyHostMessage(old, after) || !orp.VerifyHostMessage(fresh, after) {
		t.Fatal("a snapshot signed before or after the rotation does not verify against the published keys")
	}
	if orp.VerifyHostMessage(fresh, before) {
		t.Fatal("the host still signs with the old key after the rotation")
	}
}
