package orp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// swapTerms bind both sides to place a link and nobody to pay, so no
// budget or claims check weighs on them: only the step modes do.
var swapTerms = map[string]any{
	"title": "Blog link swap", "kind": "link_exchange", "categories": []string{"software"},
	"disclosure": map[string]any{"label": "Partner mention", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "a", "by": "offerer", "action": "place", "content": map[string]any{"link": true}, "destination": "https://acmenotes.example/", "proof": []string{"link"}},
		map[string]any{"id": "b", "by": "acceptor", "action": "place", "content": map[string]any{"link": true}, "destination": "https://notes.example/", "proof": []string{"link"}},
	},
}

// constraints posts a constraints document as the party's own agent.
func (e *env) tighten(p *party, doc string) (map[string]any, error) {
	b, err := e.host.TightenConstraints(context.Background(), p.token, []byte(doc))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m, nil
}

const allAuto = `{"steps":{"list":"auto","negotiate":"auto","accept":"auto","execute":"auto","amend":"auto","settle":"auto","share":"auto","revoke":"auto"}}`

// TestL2_StepModes is L2-STEP-MODES: the owner sets a mode per step at
// the host; auto binds by mandate, ask holds the message for approval,
// off refuses it with step_off. The agent can tighten its constraints
// over ORP but never loosen them (H4).
func TestL2_StepModes(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		offerer, acceptor := e.join("{}"), e.join("{}")
		offeredBy := e.claimByMail(mustJoinClaim(t, e, offerer), "maker@example.org")
		acceptedBy := e.claimByMail(mustJoinClaim(t, e, acceptor), "publisher@example.org")
		// The agent cannot loosen its own steps.
		if _, err := e.tighten(acceptor, allAuto); orp.AsError(err).Code != orp.Forbidden {
			t.Fatalf("agent loosening its steps = %v, want forbidden", err)
		}
		for _, who := range []struct {
			s orp.OwnerSession
			p *party
		}{{offeredBy, offerer}, {acceptedBy, acceptor}} {
			if _, err := e.host.SetConstraints(ctx, who.s.Owner, who.p.id, []byte(allAuto)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.host.SetConstraints(ctx, acceptedBy.Owner, offerer.id, []byte(allAuto)); orp.AsError(err).Code != orp.NotFound {
			t.Fatalf("another owner's constraints = %v, want not_found", err)
		}
		// auto: the directed offer binds the offerer, the accept the acceptor.
		r, m := e.send(offerer, e.msg(offerer, "offer", map[string]any{"to": acceptor.id}, map[string]any{"terms": swapTerms}))
		if r.Status != 200 || body(m)["state"] != "proposed" {
			t.Fatalf("offer under auto = %d %v, want proposed and bound", r.Status, body(m))
		}
		deal, hash := m["deal"].(string), body(m)["terms_hash"].(string)
		accept := func() map[string]any {
			_, m := e.send(acceptor, e.msg(acceptor, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": hash}))
			return m
		}
		// off (the agent may tighten): the accept is refused.
		off := strings.Replace(allAuto, `"accept":"auto"`, `"accept":"off"`, 1)
		if _, err := e.tighten(acceptor, off); err != nil {
			t.Fatalf("agent tightening accept to off = %v", err)
		}
		if m := accept(); errCode(m) != "step_off" || body(m)["step"] != "accept" {
			t.Fatalf("accept under off = %v, want step_off", body(m))
		}
		// ask (only the owner may loosen off to ask): held for approval.
		ask := strings.Replace(allAuto, `"accept":"auto"`, `"accept":"ask"`, 1)
		if _, err := e.tighten(acceptor, ask); orp.AsError(err).Code != orp.Forbidden {
			t.Fatalf("agent loosening off to ask = %v, want forbidden", err)
		}
		if _, err := e.host.SetConstraints(ctx, acceptedBy.Owner, acceptor.id, []byte(ask)); err != nil {
			t.Fatal(err)
		}
		m = accept()
		w, _ := body(m)["waiting"].(map[string]any)
		if body(m)["state"] != "awaiting" || w == nil || w["step"] != "accept" || !equalJSON(w["reasons"], []string{"step_ask"}) {
			t.Fatalf("accept under ask = %v, want awaiting on step_ask", body(m))
		}
		if active := e.approve(acceptor, w["url"].(string)); body(active)["state"] != "active" {
			t.Fatalf("approved = %v", body(active))
		}
		for _, b := range body(e.approvedDeal(acceptor, deal))["bound"].([]any) {
			if b.(map[string]any)["authority"].(map[string]any)["type"] != "mandate" {
				t.Fatalf("bound row = %v, want mandate", b)
			}
		}
	})
}

func (e *env) approvedDeal(p *party, deal string) map[string]any {
	e.t.Helper()
	raw, err := e.host.Deal(context.Background(), p.token, deal)
	if err != nil {
		e.t.Fatal(err)
	}
	return decode(e.t, raw)
}

// mustJoinClaim finds the claim URL of a party joined in this test.
func mustJoinClaim(t *testing.T, e *env, p *party) string {
	t.Helper()
	if p.claim == "" {
		t.Fatal("party joined without its claim URL")
	}
	return p.claim
}

// TestL2_ConsentHostOnly is L2-CONSENT-HOST-ONLY: a consent from a party
// is forbidden (H1); under human approval the agent's bearer is refused
// on the approval URL, and only the signed-in owner's submission binds
// and produces a host consent for the exact terms_hash, signed with the
// discovery key and stating its assurance (H2, H3).
func TestL2_ConsentHostOnly(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		offerer, acceptor := e.join("{}"), e.join("{}")
		offer := e.listOffer(offerer)
		owner := e.claimByMail(acceptor.claim, "publisher@example.org")
		if err := e.host.SetHumanSteps(ctx, owner.Owner, acceptor.id, []string{"accept"}); err != nil {
			t.Fatal(err)
		}
		_, m := e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
		w := body(m)["waiting"].(map[string]any)
		deal, esc := m["deal"].(string), w["escalation"].(string)
		// A party cannot send a consent.
		_, m = e.send(acceptor, e.msg(acceptor, "consent", map[string]any{"deal": deal, "to": acceptor.id}, map[string]any{
			"consent": "cns_forged", "escalation": esc, "party": acceptor.id, "decision": "approved", "step": "accept",
			"terms_hash": affiliateHash, "assurance": "passkey", "at": stamp(e.clock.Now())}))
		if errCode(m) != "forbidden" {
			t.Fatalf("consent from a party = %v, want forbidden", body(m))
		}
		// The agent's bearer is refused on a human-approval step.
		if _, err := e.host.Approve(ctx, acceptor.token, esc); orp.AsError(err).Code != orp.Forbidden {
			t.Fatalf("agent approving a human step = %v, want forbidden", err)
		}
		if st := body(e.approvedDeal(acceptor, deal))["state"]; st != "awaiting" {
			t.Fatalf("deal after the refused bearer = %v, want awaiting", st)
		}
		// Another owner's session cannot approve it.
		other := e.join("{}")
		stranger := e.claimByMail(other.claim, "stranger@example.org")
		if _, err := e.host.ApproveAsOwner(ctx, stranger, esc); orp.AsError(err).Code != orp.NotFound {
			t.Fatalf("a stranger's approval = %v, want not_found", err)
		}
		raw, err := e.host.ApproveAsOwner(ctx, owner, esc)
		if err != nil {
			t.Fatal(err)
		}
		e.mustValidate(schema.Message, raw)
		if !orp.VerifyHostMessage(raw, e.host.Discovery().Keys) {
			t.Fatalf("consent does not verify against the discovery keys: %s", raw)
		}
		c := decode(t, raw)
		b := body(c)
		if c["type"] != "consent" || c["from"] != e.host.ID() || c["deal"] != deal || b["terms_hash"] != affiliateHash ||
			b["assurance"] != "email_link" || b["decision"] != "approved" || b["escalation"] != esc || b["party"] != acceptor.id {
			t.Fatalf("consent = %s", raw)
		}
		if st := body(e.approvedDeal(acceptor, deal))["state"]; st != "active" {
			t.Fatalf("deal after the owner's approval = %v, want active", st)
		}
		found := false
		for _, m := range e.inbox(acceptor) {
			found = found || m["type"] == "consent"
		}
		if !found {
			t.Fatal("the consent is not in the party's inbox")
		}
		if _, err := e.host.ApproveAsOwner(ctx, owner, esc); orp.AsError(err).Code != orp.StateConflict {
			t.Fatalf("approving twice = %v, want state_conflict", err)
		}
	})
}

// TestMonthlyBudget: what a party commits by mandate counts against its
// per_month budget, so the offer that would pass it escalates with
// over_budget while the earlier ones bound (§11.1).
func TestMonthlyBudget(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		maker, other := e.join("{}"), e.join("{}")
		s := e.claimByMail(maker.claim, "maker@example.org")
		doc := strings.Replace(allAuto, `}}`, `},"budget":{"per_deal":{"amount_minor":30000,"currency":"EUR"},"per_month":{"amount_minor":50000,"currency":"EUR"}},"approve_over":{"amount_minor":90000,"currency":"EUR"}}`, 1)
		if _, err := e.host.SetConstraints(context.Background(), s.Owner, maker.id, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		paid := map[string]any{"title": "A sponsored post", "kind": "sponsored", "obligations": []any{
			map[string]any{"id": "post", "by": "acceptor", "action": "place", "content": map[string]any{"link": true}, "destination": "https://acmenotes.example/", "proof": []string{"link"}},
			map[string]any{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": map[string]any{"amount_minor": 20000, "currency": "EUR"}, "rail": "stripe"},
		}}
		for i, want := range []string{"proposed", "proposed", "awaiting"} {
			_, m := e.send(maker, e.msg(maker, "offer", map[string]any{"to": other.id}, map[string]any{"terms": paid}))
			if body(m)["state"] != want {
				t.Fatalf("offer %d = %v, want %s", i+1, body(m), want)
			}
			if want == "awaiting" && !equalJSON(body(m)["waiting"].(map[string]any)["reasons"], []string{"over_budget"}) {
				t.Fatalf("reasons = %v, want over_budget", body(m)["waiting"])
			}
		}
	})
}

// TestOwnerRefusesEscalation: the signed-in owner refuses an ask. The
// host records the refusal as a signed consent with decision refused for
// the exact terms_hash and ends the awaiting deal as declined (§11.2,
// §12); another owner cannot refuse it, and a decided escalation cannot
// be refused or approved again.
func TestOwnerRefusesEscalation(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		offerer, acceptor := e.join("{}"), e.join("{}")
		offer := e.listOffer(offerer)
		owner := e.claimByMail(acceptor.claim, "publisher@example.org")
		if err := e.host.SetHumanSteps(ctx, owner.Owner, acceptor.id, []string{"accept"}); err != nil {
			t.Fatal(err)
		}
		_, m := e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
		w := body(m)["waiting"].(map[string]any)
		deal, esc := m["deal"].(string), w["escalation"].(string)
		other := e.join("{}")
		stranger := e.claimByMail(other.claim, "stranger@example.org")
		if _, err := e.host.RefuseAsOwner(ctx, stranger, esc); orp.AsError(err).Code != orp.NotFound {
			t.Fatalf("a stranger's refusal = %v, want not_found", err)
		}
		if st := body(e.approvedDeal(acceptor, deal))["state"]; st != "awaiting" {
			t.Fatalf("deal after a stranger's refusal = %v, want awaiting", st)
		}
		raw, err := e.host.RefuseAsOwner(ctx, owner, esc)
		if err != nil {
			t.Fatal(err)
		}
		e.mustValidate(schema.Message, raw)
		if !orp.VerifyHostMessage(raw, e.host.Discovery().Keys) {
			t.Fatalf("refusal does not verify against the discovery keys: %s", raw)
		}
		c := decode(t, raw)
		b := body(c)
		if c["type"] != "consent" || c["deal"] != deal || b["decision"] != "refused" || b["terms_hash"] != affiliateHash ||
			b["escalation"] != esc || b["assurance"] != "email_link" || b["step"] != "accept" {
			t.Fatalf("refusal = %s", raw)
		}
		d := body(e.approvedDeal(acceptor, deal))
		if d["state"] != "declined" || d["waiting"] != nil || len(boundParties(d)) > 1 {
			t.Fatalf("deal after the owner's refusal = %v, want declined", d)
		}
		if _, err := e.host.RefuseAsOwner(ctx, owner, esc); orp.AsError(err).Code != orp.StateConflict {
			t.Fatalf("refusing twice = %v, want state_conflict", err)
		}
		if _, err := e.host.ApproveAsOwner(ctx, owner, esc); orp.AsError(err).Code != orp.StateConflict {
			t.Fatalf("approving a refused escalation = %v, want state_conflict", err)
		}
	})
}

// TestOwnerRefusesAmendment: refusing a held amendment of an active deal
// drops it; the deal stays active under the terms in force (§9.4), with
// nothing pending and nobody waiting.
func TestOwnerRefusesAmendment(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a, b := e.autoParty(), e.autoParty()
		owner := e.claimByMail(mustJoinClaim(t, e, a), "maker@example.org")
		deal, _ := e.directDeal(a, b, affiliateTerms)
		e.setStep(a, "amend", "ask")
		_, m := e.send(a, e.msg(a, "counter", map[string]any{"deal": deal}, map[string]any{"terms": termsWith("Amended")}))
		w, _ := body(m)["waiting"].(map[string]any)
		if body(m)["state"] != "active" || w["step"] != "amend" {
			t.Fatalf("held amend = %v", m)
		}
		if _, err := e.host.RefuseAsOwner(ctx, owner, w["escalation"].(string)); err != nil {
			t.Fatal(err)
		}
		d := body(e.approvedDeal(a, deal))
		if d["state"] != "active" || d["terms_hash"] != affiliateHash || d["waiting"] != nil || d["pending"] != nil {
			t.Fatalf("deal after the refused amendment = %v, want active under the old terms", d)
		}
		// With nothing pending, the old amendment's hash binds nobody.
		newHash, _ := orp.Hash(mustMarshal(termsWith("Amended")))
		if _, m := e.send(b, e.msg(b, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": newHash})); errCode(m) == "" {
			t.Fatalf("accepting the refused amendment = %v, want a refusal", m)
		}
	})
}
