package orp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// msg04 is msg as ORP 0.4.
func (e *env) msg04(p *party, typ string, extra map[string]any, body any) []byte {
	return bytes.Replace(e.msg(p, typ, extra, body), []byte(`"orp":"0.3"`), []byte(`"orp":"0.4"`), 1)
}

// seats is a fixture of §20.6 on this host: every party the fixture
// names joined (on auto, with a budget), its ids replaced by theirs.
type seats struct {
	e       *env
	by      map[string]*party // the fixture's opaque name → the party
	fixture map[string]any    // the fixture message, ids replaced
}

var fixtureParty = regexp.MustCompile(`orp:hub\.example/(p_[a-z]+[0-9]+)`)

func (e *env) seats(name string) *seats {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "0.4", name))
	if err != nil {
		e.t.Fatal(err)
	}
	// Every fixture validates against the 0.4 schemas as it is.
	e.mustValidate(schema.Message, raw)
	s := &seats{e: e, by: map[string]*party{}}
	for _, m := range fixtureParty.FindAllStringSubmatch(string(raw), -1) {
		if s.by[m[1]] == nil {
			s.by[m[1]] = e.autoParty()
		}
	}
	raw = fixtureParty.ReplaceAllFunc(raw, func(b []byte) []byte {
		return []byte(s.by[fixtureParty.FindStringSubmatch(string(b))[1]].id)
	})
	if err := json.Unmarshal(raw, &s.fixture); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// offer is the fixture's terms and seats as an offer: each seat without
// its signature, and only the seats whose keep says so.
func (s *seats) offer(keep func(seat map[string]any) bool) map[string]any {
	b := body(s.fixture)
	var parties []any
	for _, p := range b["parties"].([]any) {
		p := maps(p)
		if keep != nil && !keep(p) {
			continue
		}
		delete(p, "signed")
		parties = append(parties, p)
	}
	return map[string]any{"terms": b["terms"], "parties": parties}
}

func maps(v any) map[string]any {
	out := map[string]any{}
	for k, x := range v.(map[string]any) {
		out[k] = x
	}
	return out
}

// send sends a 0.4 message and fails unless it is answered with status.
func (s *seats) send(p *party, typ string, extra map[string]any, b any, status int) map[string]any {
	s.e.t.Helper()
	r, m := s.e.send(p, s.e.msg04(p, typ, extra, b))
	if r.Status != status {
		s.e.t.Fatalf("%s = %d %s, want %d", typ, r.Status, r.Body, status)
	}
	return m
}

// sign is an accept of the deal's current hash.
func (s *seats) sign(p *party, deal string, status int) map[string]any {
	s.e.t.Helper()
	return s.send(p, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": s.read(p, deal)["terms_hash"]}, status)
}

// read is p's snapshot of the deal from GET /orp/deals/{id}.
func (s *seats) read(p *party, deal string) map[string]any {
	s.e.t.Helper()
	raw, err := s.e.host.Deal(context.Background(), p.token, deal)
	if err != nil {
		s.e.t.Fatalf("read deal: %v", err)
	}
	s.e.mustValidate(schema.Message, raw)
	var m map[string]any
	json.Unmarshal(raw, &m)
	if m["orp"] != "0.4" {
		s.e.t.Fatalf("a seated deal read as %v", m["orp"])
	}
	return body(m)
}

func seatIDs(b map[string]any, signed bool) []string {
	var out []string
	for _, p := range b["parties"].([]any) {
		p := p.(map[string]any)
		if !signed || p["signed"] == true {
			out = append(out, p["id"].(string))
		}
	}
	return out
}

// TestVersionsSideBySide: discovery lists 0.4 first; a 0.4 hello is
// answered in 0.4 with leave and seat, a 0.3 hello in 0.3 without them;
// attest on a host without attestation is unknown_type; another version
// is unsupported_version naming both.
func TestVersionsSideBySide(t *testing.T) {
	e := newEnv(t)
	d := e.host.Discovery()
	if !slices.Equal(d.Orp, []string{"0.4", "0.3"}) || !slices.Contains(d.Capabilities["messages"].([]string), "leave") || !slices.Contains(d.Capabilities["messages"].([]string), "seat") {
		t.Fatalf("discovery orp = %v, messages %v", d.Orp, d.Capabilities["messages"])
	}
	b, _ := json.Marshal(d)
	e.mustValidate(schema.Discovery, b)
	p := e.join("{}")
	for _, c := range []struct {
		version string
		leave   bool
	}{{"0.4", true}, {"0.3", false}} {
		raw := e.msg(p, "hello", nil, map[string]any{"versions": []string{c.version}})
		raw = bytes.Replace(raw, []byte(`"orp":"0.3"`), []byte(`"orp":"`+c.version+`"`), 1)
		r, m := e.send(p, raw)
		caps := body(m)["capabilities"].(map[string]any)["messages"].([]any)
		if r.Status != 200 || m["orp"] != c.version || !equalJSON(body(m)["versions"], []string{c.version}) ||
			slices.Contains(caps, any("leave")) != c.leave || slices.Contains(caps, any("seat")) != c.leave {
			t.Fatalf("%s hello = %d %s", c.version, r.Status, r.Body)
		}
	}
	r, m := e.send(p, e.msg04(p, "attest", map[string]any{"deal": "deal_nope"}, map[string]any{
		"object": map[string]any{"type": "outcome", "id": "m_host_00000001"}, "seat": p.id, "signature": "e30..c2ln"}))
	if r.Status != 400 || errCode(m) != "unknown_type" || m["orp"] != "0.4" {
		t.Fatalf("attest without attestation = %d %s, want 400 unknown_type", r.Status, r.Body)
	}
	raw := bytes.Replace(e.msg(p, "hello", nil, map[string]any{"versions": []string{"0.5"}}), []byte(`"orp":"0.3"`), []byte(`"orp":"0.5"`), 1)
	if r, m := e.send(p, raw); r.Status != 400 || errCode(m) != "unsupported_version" || !equalJSON(body(m)["supported"], []string{"0.4", "0.3"}) {
		t.Fatalf("0.5 hello = %d %s", r.Status, r.Body)
	}
}

// TestReferralChain is §20.6's referral chain: the creator offers, the
// deal stays pending until the curator and the newsletter have signed,
// in either order, with identical results; links are minted once; two
// counted clicks read 1.0, 0.6 and 0.4 for every party, with the link
// receipt once they verified the place; the curator's leaving would
// break the split and is refused, changing nothing.
func TestReferralChain(t *testing.T) {
	finish := func(t *testing.T, order []string) (map[string]any, *seats, string) {
		e := newEnv(t)
		s := e.seats("referral-chain.json")
		creator := s.by["p_creator01"]
		m := s.send(creator, "offer", nil, s.offer(nil), 200)
		deal := m["deal"].(string)
		if got := body(m)["state"]; got != "pending" {
			t.Fatalf("offer = %v, want pending", got)
		}
		want, err := orp.SeatsHash(mustRaw(s.offer(nil)["terms"]), seatsOf(t, s.offer(nil)["parties"]))
		if err != nil || body(m)["terms_hash"] != want {
			t.Fatalf("terms_hash = %v, want %s", body(m)["terms_hash"], want)
		}
		for i, name := range order {
			m = s.sign(s.by[name], deal, 200)
			if state := body(m)["state"]; i < len(order)-1 && state != "pending" || i == len(order)-1 && state != "active" {
				t.Fatalf("after %s signed: %v", name, state)
			}
			if i < len(order)-1 && body(m)["tracking"] != nil {
				t.Fatal("links minted before the deal was active")
			}
		}
		return s.read(creator, deal), s, deal
	}
	a, s, deal := finish(t, []string{"p_curator01", "p_news01"})
	b, _, _ := finish(t, []string{"p_news01", "p_curator01"})
	for _, k := range []string{"state", "parties", "bound", "terms_hash", "obligations", "offerer", "acceptor"} {
		if !equalJSON(a[k], b[k]) {
			t.Fatalf("%s differs between signature orders:\n%v\n%v", k, a[k], b[k])
		}
	}
	if ids := []string{}; true {
		for _, x := range a["bound"].([]any) {
			ids = append(ids, x.(map[string]any)["party"].(string))
		}
		if !slices.IsSorted(ids) || len(ids) != 3 {
			t.Fatalf("bound = %v, want three sorted by party id", ids)
		}
	}

	// The curator leaving leaves 70: refused, nothing changed.
	before := s.read(s.by["p_creator01"], deal)
	m := s.send(s.by["p_curator01"], "leave", map[string]any{"deal": deal}, map[string]any{}, 400)
	if errCode(m) != "invalid_message" {
		t.Fatalf("leave breaking the split = %v", m)
	}
	if after := s.read(s.by["p_creator01"], deal); !equalJSON(before, after) {
		t.Fatalf("a refused leave changed the deal:\n%v\n%v", before, after)
	}

	// Two counted clicks, 5 s apart, and a bot's, which counts nothing.
	// Their link verifies the place obligation, which completes the deal.
	e := s.e
	link := linkOf(a, "place")
	e.click(link, map[string]string{"User-Agent": browser}, "")
	e.clock.Advance(5 * time.Second)
	e.click(link, map[string]string{"User-Agent": browser}, "")
	e.click(link, map[string]string{"User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, "")
	var entries []any
	for _, name := range []string{"p_creator01", "p_curator01", "p_news01"} {
		tr := s.read(s.by[name], deal)["tracking"].([]any)
		if len(tr) != 1 {
			t.Fatalf("tracking = %v", tr)
		}
		entries = append(entries, tr[0])
	}
	want := []any{
		map[string]any{"party": s.by["p_creator01"].id, "share": 1.0},
		map[string]any{"party": s.by["p_curator01"].id, "share": 0.6},
		map[string]any{"party": s.by["p_news01"].id, "share": 0.4},
	}
	for _, got := range entries {
		g := got.(map[string]any)
		if g["clicks"] != 2.0 || !equalJSON(g["click_share"], want) || !equalJSON(got, entries[0]) {
			t.Fatalf("tracking entry = %v, want 2 clicks shared %v, the same for every party", got, want)
		}
		if r, _ := g["receipt"].(map[string]any); r["method"] != "link" || r["verified_at"] == nil || r["id"] == nil {
			t.Fatalf("verified entry's receipt = %v", g["receipt"])
		}
	}

}

func mustRaw(v any) json.RawMessage { b, _ := json.Marshal(v); return b }

func seatsOf(t *testing.T, v any) []orp.Seat {
	var out []orp.Seat
	if err := json.Unmarshal(mustRaw(v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHomeSale is §20.6's five-party home sale and its mediator-left
// variant: active with the optional service seat unsigned; the service
// seat leaving keeps it active; the facilitator leaving returns it to
// pending with a vacancy, during which clicks redirect plain and are
// not stored; an optional facilitator, even signed, and the seating of
// the required replacement do not clear it; the replacement's signature
// does, and the links minted at first activation are the ones that
// live again.
func TestHomeSale(t *testing.T) {
	e := newEnv(t)
	s := e.seats("five-party-home-sale.json")
	seller := s.by["p_seller01"]
	m := s.send(seller, "offer", nil, s.offer(nil), 200)
	deal := m["deal"].(string)
	for _, name := range []string{"p_buyer01", "p_agent01", "p_notary01"} {
		m = s.sign(s.by[name], deal, 200)
	}
	b := body(m)
	if b["state"] != "active" || slices.Contains(seatIDs(b, true), s.by["p_viewer01"].id) {
		t.Fatalf("home sale = %v, want active with the service seat unsigned", b["state"])
	}
	link := linkOf(b, "listing")

	// The optional service seat leaves: still active.
	if m := s.send(s.by["p_viewer01"], "leave", map[string]any{"deal": deal}, map[string]any{}, 200); body(m)["state"] != "active" {
		t.Fatalf("after the optional seat left: %v", body(m)["state"])
	}
	// The facilitator leaves: pending, a facilitator vacancy.
	s.send(s.by["p_agent01"], "leave", map[string]any{"deal": deal}, map[string]any{}, 200)
	got := s.read(seller, deal)
	if got["state"] != "pending" || len(got["vacancies"].([]any)) != 1 || got["vacancies"].([]any)[0].(map[string]any)["role"] != "facilitator" {
		t.Fatalf("after the facilitator left: %v %v", got["state"], got["vacancies"])
	}
	e.host.Flush(context.Background())
	if loc := e.click(link, map[string]string{"User-Agent": browser}, ""); strings.Contains(loc, "via=") {
		t.Fatalf("a click while pending carried a click id: %s", loc)
	}
	token := link[strings.LastIndex(link, "/")+1:]
	if clicks, _ := e.host.StoredClicks(context.Background(), token, t0.Add(-time.Hour), t0.Add(time.Hour)); len(clicks) != 0 {
		t.Fatalf("a click while pending was stored: %v", clicks)
	}

	// An optional facilitator, signed, does not clear the vacancy.
	optional, required := e.autoParty(), e.autoParty()
	s.send(seller, "seat", map[string]any{"deal": deal}, map[string]any{"party": optional.id, "role": "facilitator", "required": false}, 200)
	if m := s.sign(optional, deal, 200); body(m)["state"] != "pending" {
		t.Fatalf("an optional facilitator's signature made the deal %v", body(m)["state"])
	}
	// The required replacement seated: still pending until it signs.
	if m := s.send(s.by["p_buyer01"], "seat", map[string]any{"deal": deal}, map[string]any{"party": required.id, "role": "facilitator", "required": true}, 200); body(m)["state"] != "pending" {
		t.Fatalf("seating the replacement made the deal %v", body(m)["state"])
	}
	m = s.sign(required, deal, 200)
	b = body(m)
	if b["state"] != "active" || b["vacancies"] != nil || linkOf(b, "listing") != link {
		t.Fatalf("after the replacement signed: %v vacancies %v link %s, want active, none, %s", b["state"], b["vacancies"], linkOf(b, "listing"), link)
	}
	if loc := e.click(link, map[string]string{"User-Agent": browser}, ""); !strings.Contains(loc, "via=") {
		t.Fatalf("a click on the active deal went plain: %s", loc)
	}
}

// TestMediatorLeft: a deal of seller, buyer and a required facilitator,
// after the facilitator left, is the mediator-left fixture: pending, its
// facilitator vacancy open. An original seat of the role does not clear
// it; a deal keeps at least 2 parties.
func TestMediatorLeft(t *testing.T) {
	e := newEnv(t)
	s := e.seats("mediator-left.json")
	seller, buyer := s.by["p_seller01"], s.by["p_buyer01"]
	agent := s.by["p_agent01"]
	offer := s.offer(nil)
	offer["parties"] = append(offer["parties"].([]any), map[string]any{"id": agent.id, "role": "facilitator", "required": true})
	m := s.send(seller, "offer", nil, offer, 200)
	deal := m["deal"].(string)
	s.sign(buyer, deal, 200)
	if m := s.sign(agent, deal, 200); body(m)["state"] != "active" {
		t.Fatalf("three signed: %v", body(m)["state"])
	}
	s.send(agent, "leave", map[string]any{"deal": deal}, map[string]any{}, 200)
	got := s.read(seller, deal)
	want := body(s.fixture)
	for _, k := range []string{"state", "parties", "offerer", "acceptor", "terms"} {
		if !equalJSON(got[k], want[k]) {
			t.Fatalf("%s = %v, want the fixture's %v", k, got[k], want[k])
		}
	}
	if v := got["vacancies"].([]any); len(v) != 1 || v[0].(map[string]any)["role"] != "facilitator" || v[0].(map[string]any)["left"] != agent.id {
		t.Fatalf("vacancies = %v", v)
	}
	// The seller leaving would leave one party.
	if m := s.send(seller, "leave", map[string]any{"deal": deal}, map[string]any{}, 400); errCode(m) != "invalid_message" {
		t.Fatalf("leaving one party = %v", m)
	}
}

// TestSeatOffersRefused: the bad split fixture, a consumer seat made
// required, two acceptors, no required seat, a deposit held by the host
// under any spelling, and identity fields beyond hash and issuer are
// refused with invalid_message; nothing is stored.
func TestSeatOffersRefused(t *testing.T) {
	e := newEnv(t)
	bad := e.seats("bad-split.json")
	creator := bad.by["p_creator01"]
	m := bad.send(creator, "offer", nil, bad.offer(nil), 400)
	if errCode(m) != "invalid_message" {
		t.Fatalf("bad split = %v", m)
	}
	s := e.seats("five-party-home-sale.json")
	seller := s.by["p_seller01"]
	change := func(name string, f func(seat map[string]any)) map[string]any {
		o := s.offer(nil)
		for _, p := range o["parties"].([]any) {
			p := p.(map[string]any)
			if p["id"] == s.by[name].id {
				f(p)
			}
		}
		return o
	}
	for name, o := range map[string]map[string]any{
		"required consumer": change("p_viewer01", func(p map[string]any) { p["role"], p["required"] = "consumer", true }),
		"two acceptors":     change("p_notary01", func(p map[string]any) { p["role"] = "acceptor" }),
		"no required seat": func() map[string]any {
			o := s.offer(nil)
			for _, p := range o["parties"].([]any) {
				p.(map[string]any)["required"] = false
			}
			return o
		}(),
		"holder host":        change("p_viewer01", func(p map[string]any) { setHolder(p, "host") }),
		"holder OfferRails":  change("p_viewer01", func(p map[string]any) { setHolder(p, "OfferRails") }),
		"holder offer-rails": change("p_viewer01", func(p map[string]any) { setHolder(p, "offer-rails") }),
		"holder hosted api":  change("p_viewer01", func(p map[string]any) { setHolder(p, "hosted api") }),
		"identity name": change("p_agent01", func(p map[string]any) {
			p["identity"] = map[string]any{"hash": p["identity"].(map[string]any)["hash"], "issuer": "registry.example", "name": "Jane"}
		}),
		"percent without cap in a mix": change("p_agent01", func(p map[string]any) { p["terms"] = map[string]any{"percent": 1} }),
	} {
		r, m := e.send(seller, e.msg04(seller, "offer", nil, o))
		if r.Status != 400 || errCode(m) != "invalid_message" {
			t.Errorf("%s = %d %s, want invalid_message", name, r.Status, r.Body)
		}
	}
	// A percent of 1 with a cap beside fixed amounts is a valid mix.
	o := change("p_agent01", func(p map[string]any) {
		p["terms"] = map[string]any{"percent": 1, "cap": map[string]any{"amount_minor": 500000, "currency": "EUR"}}
	})
	s.send(seller, "offer", nil, o, 200)
	if recs, _ := e.db.List(context.Background(), "orp.deal", "", "", 10); len(recs) != 1 {
		t.Fatalf("%d deals stored, want only the valid mix's", len(recs))
	}
}

func setHolder(p map[string]any, holder string) {
	t := maps(p["terms"])
	d := maps(t["deposit"])
	d["holder"] = holder
	t["deposit"] = d
	p["terms"] = t
}

// TestLinkSwapRing: four member seats at 25 percent go active once all
// four signed; a 0.3 deal beside it keeps its 0.3 snapshot, without
// clicks or click shares.
func TestLinkSwapRing(t *testing.T) {
	e := newEnv(t)
	s := e.seats("link-swap-ring.json")
	m := s.send(s.by["p_ring01"], "offer", nil, s.offer(nil), 200)
	deal := m["deal"].(string)
	for _, name := range []string{"p_ring03", "p_ring02", "p_ring04"} {
		m = s.sign(s.by[name], deal, 200)
	}
	if body(m)["state"] != "active" || len(body(m)["bound"].([]any)) != 4 {
		t.Fatalf("ring = %v", body(m))
	}
	_, _, old, _ := e.activeDeal()
	_ = old
	for _, p := range e.inbox(s.by["p_ring01"]) {
		if p["type"] == "deal" && p["orp"] != "0.4" {
			t.Fatalf("a seated deal's message in %v", p["orp"])
		}
	}
}

// TestZeroThreeDealUnchanged: a 0.3 deal's snapshot has no 0.4 fields.
func TestZeroThreeDealUnchanged(t *testing.T) {
	e := newEnv(t)
	_, acceptor, deal, link := e.activeDeal()
	e.click(link, map[string]string{"User-Agent": browser}, "")
	raw, err := e.host.Deal(context.Background(), acceptor.token, deal)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"orp":"0.4"`, `"clicks"`, `"click_share"`, `"parties"`, `"approved_by"`, `"vacancies"`} {
		if bytes.Contains(raw, []byte(f)) {
			t.Fatalf("a 0.3 deal read carries %s: %s", f, raw)
		}
	}
}

// TestSeatCounter (§20.2): a counter replaces the shared terms, clears
// every signature and every vacancy and takes the hash again; only the
// sender's signature remains, so the deal is pending until the other
// required seats sign the new hash, and a signature of the old hash is
// refused.
func TestSeatCounter(t *testing.T) {
	e := newEnv(t)
	s := e.seats("mediator-left.json")
	seller, buyer, agent := s.by["p_seller01"], s.by["p_buyer01"], s.by["p_agent01"]
	offer := s.offer(nil)
	offer["parties"] = append(offer["parties"].([]any), map[string]any{"id": agent.id, "role": "facilitator", "required": true})
	deal := s.send(seller, "offer", nil, offer, 200)["deal"].(string)
	s.sign(buyer, deal, 200)
	s.sign(agent, deal, 200)
	s.send(agent, "leave", map[string]any{"deal": deal}, map[string]any{}, 200)
	old := s.read(buyer, deal)["terms_hash"]
	terms := maps(body(s.fixture)["terms"])
	terms["title"] = "Test home sale, without a facilitator"
	m := s.send(seller, "counter", map[string]any{"deal": deal}, map[string]any{"terms": terms}, 200)
	b := body(m)
	if b["state"] != "pending" || b["vacancies"] != nil || !equalJSON(seatIDs(b, true), []string{seller.id}) || b["terms_hash"] == old {
		t.Fatalf("after the counter: %v vacancies %v signed %v", b["state"], b["vacancies"], seatIDs(b, true))
	}
	r, m := e.send(buyer, e.msg04(buyer, "accept", map[string]any{"deal": deal}, map[string]any{"terms_hash": old}))
	if r.Status != 409 || errCode(m) != "terms_mismatch" {
		t.Fatalf("signing the old hash = %d %v", r.Status, m)
	}
	if m := s.sign(buyer, deal, 200); body(m)["state"] != "active" {
		t.Fatalf("after the buyer signed the new hash: %v", body(m)["state"])
	}
}

// TestTwoSeats04: seller and buyer alone are a normal two-party deal; a
// 0.4 offer to one party opens it with two required seats, active once
// both signed.
func TestTwoSeats04(t *testing.T) {
	e := newEnv(t)
	seller, buyer := e.autoParty(), e.autoParty()
	s := &seats{e: e}
	m := s.send(seller, "offer", map[string]any{"to": buyer.id}, map[string]any{"terms": affiliateTerms}, 200)
	deal := m["deal"].(string)
	if body(m)["state"] != "pending" || len(body(m)["parties"].([]any)) != 2 {
		t.Fatalf("0.4 directed offer = %v", body(m))
	}
	if m := s.sign(buyer, deal, 200); body(m)["state"] != "active" {
		t.Fatalf("after the buyer signed: %v", body(m)["state"])
	}
}
