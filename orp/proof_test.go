package orp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// placeTerms asks the acceptor to place a tracked link with the deal's
// disclosure, proved by a page the host reads or by the offerer's
// attestation, kept for keep.
func placeTerms(keep string, proof ...string) map[string]any {
	place := map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
		"destination": "https://acmenotes.example/pricing", "proof": proof, "due": "P7D"}
	if keep != "" {
		place["keep"] = keep
	}
	return map[string]any{
		"title": "Acme Notes: a link in your blog post", "kind": "sponsored", "categories": []string{"software.productivity"},
		"disclosure":  map[string]any{"label": "Partner mention", "lang": "en"},
		"obligations": []any{place},
	}
}

// dealWith activates a deal on terms between a fresh offerer and
// acceptor whose execute step is auto, and returns the acceptor's link.
func (e *env) dealWith(terms map[string]any) (offerer, acceptor *party, deal, link string) {
	e.t.Helper()
	offerer, acceptor = e.join("{}"), e.join("{}")
	r, m := e.send(offerer, e.msg(offerer, "offer", nil, map[string]any{"terms": terms}))
	if r.Status != 200 {
		e.t.Fatalf("offer = %d %v", r.Status, m)
	}
	listed := e.approve(offerer, body(m)["waiting"].(map[string]any)["url"].(string))
	offer, hash := body(listed)["id"].(string), body(listed)["terms_hash"].(string)
	_, m = e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": hash}))
	active := e.approve(acceptor, body(m)["waiting"].(map[string]any)["url"].(string))
	if body(active)["state"] != "active" {
		e.t.Fatalf("deal = %v", active)
	}
	e.setStep(acceptor, "execute", "auto")
	deal = active["deal"].(string)
	if tr, ok := body(active)["tracking"].([]any); ok && len(tr) > 0 {
		link = tr[0].(map[string]any)["link"].(string)
	}
	return offerer, acceptor, deal, link
}

// pages serves test pages on loopback; a page can change between reads.
type pages struct {
	mu   sync.Mutex
	body map[string]string
	srv  *httptest.Server
}

func newPages(t *testing.T) *pages {
	p := &pages{body: map[string]string{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		b, ok := p.body[r.URL.Path]
		p.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(b))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pages) set(path, b string) string {
	p.mu.Lock()
	p.body[path] = b
	p.mu.Unlock()
	return p.srv.URL + path
}

// receipts are the receipts in p's inbox about obligation.
func (e *env) receipts(p *party, obligation string) []map[string]any {
	var out []map[string]any
	for _, m := range e.inbox(p) {
		if m["type"] == "receipt" && body(m)["obligation"] == obligation {
			out = append(out, m)
		}
	}
	return out
}

func (e *env) obligationState(p *party, deal, id string) string {
	e.t.Helper()
	raw, err := e.host.Deal(context.Background(), p.token, deal)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, ob := range body(decode(e.t, raw))["obligations"].([]any) {
		if ob.(map[string]any)["id"] == id {
			return ob.(map[string]any)["state"].(string)
		}
	}
	return ""
}

// TestProofURLReceipts: the host reads the page an execute names and
// answers with a proof_url receipt: verified when it shows the tracked
// link and the disclosure; failed when either is missing (found says
// which), when the page is over 1 MiB, or when it is on a private
// address and the host is not configured for development (§13).
func TestProofURLReceipts(t *testing.T) {
	for _, c := range []struct {
		name       string
		page       func(link string) string
		publicOnly bool
		result     string
		found      map[string]any
	}{
		{"found", func(l string) string { return `<p>Partner mention: <a href="` + l + `">Acme Notes</a></p>` }, false, "verified",
			map[string]any{"link": true, "disclosure": true}},
		{"missing link", func(l string) string { return `<p>Partner mention: Acme Notes</p>` }, false, "failed",
			map[string]any{"link": false, "disclosure": true}},
		{"missing disclosure", func(l string) string { return `<p><a href="` + l + `">Acme Notes</a></p>` }, false, "failed",
			map[string]any{"link": true, "disclosure": false}},
		{"oversized", func(l string) string {
			return `<p>Partner mention: <a href="` + l + `">x</a></p>` + strings.Repeat("x", 1<<20)
		}, false, "failed", nil},
		{"private address refused", func(l string) string { return `<p>Partner mention: <a href="` + l + `">x</a></p>` }, true, "failed", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.publicOnly = c.publicOnly
			e.host = e.newHost(e.db)
			offerer, acceptor, deal, link := e.dealWith(placeTerms("", "proof_url"))
			url := newPages(t).set("/post", c.page(link))
			r, m := e.send(acceptor, e.msg(acceptor, "execute", map[string]any{"deal": deal}, map[string]any{"obligation": "place", "proof_url": url}))
			if r.Status != 200 {
				t.Fatalf("execute = %d %v", r.Status, m)
			}
			for _, p := range []*party{offerer, acceptor} {
				rs := e.receipts(p, "place")
				if len(rs) != 1 {
					t.Fatalf("%d receipts, want 1", len(rs))
				}
				b := body(rs[0])
				if b["result"] != c.result || b["method"] != "proof_url" || b["url"] != url || rs[0]["from"] != e.host.ID() {
					t.Fatalf("receipt = %v, want a host proof_url receipt %s", b, c.result)
				}
				if c.found != nil && !equalJSON(b["found"], c.found) {
					t.Fatalf("found = %v, want %v", b["found"], c.found)
				}
			}
			if got := e.obligationState(acceptor, deal, "place"); got != c.result {
				t.Fatalf("obligation = %s, want %s", got, c.result)
			}
		})
	}
}

// TestL2_NoSelfReceipt is L2-NO-SELF-RECEIPT: a receipt from the obligor
// about its own obligation is forbidden, whatever its method, and
// changes nothing (P2). An attestation from the obligor answered
// unsupported_type before.
func TestL2_NoSelfReceipt(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		_, acceptor, deal, _ := e.dealWith(placeTerms("", "proof_url", "attestation"))
		for _, method := range []string{"attestation", "proof_url", "link"} {
			_, m := e.send(acceptor, e.msg(acceptor, "receipt", map[string]any{"deal": deal},
				map[string]any{"obligation": "place", "result": "verified", "method": method, "at": stamp(e.clock.Now())}))
			if errCode(m) != "forbidden" {
				t.Fatalf("self-receipt by %s = %v, want forbidden", method, body(m))
			}
		}
		if got := e.obligationState(acceptor, deal, "place"); got != "pending" {
			t.Fatalf("obligation = %s after refused self-receipts, want pending", got)
		}
	})
}

// TestL2_AttestationNoRep is L2-ATTESTATION-NO-REP: the counterparty's
// attestation verifies the obligation within the deal, and adds nothing
// to the obligor's reputation inputs, while a host receipt does (P3).
func TestL2_AttestationNoRep(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		offerer, acceptor, deal, _ := e.dealWith(placeTerms("", "proof_url", "attestation"))
		before, err := e.host.ReputationInputs(context.Background(), acceptor.id)
		if err != nil {
			t.Fatal(err)
		}
		r, m := e.send(offerer, e.msg(offerer, "receipt", map[string]any{"deal": deal},
			map[string]any{"obligation": "place", "result": "verified", "method": "attestation", "at": stamp(e.clock.Now())}))
		if r.Status != 200 || m["type"] != "deal" {
			t.Fatalf("attestation = %d %v", r.Status, m)
		}
		if got := e.obligationState(acceptor, deal, "place"); got != "verified" {
			t.Fatalf("obligation after attestation = %s, want verified", got)
		}
		after, err := e.host.ReputationInputs(context.Background(), acceptor.id)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Fatalf("reputation inputs %d → %d after an attestation, want unchanged", len(before), len(after))
		}
		// The control: a host receipt is an input.
		_, other, deal2, link := e.dealWith(placeTerms("", "proof_url"))
		url := newPages(t).set("/p", `Partner mention <a href="`+link+`">x</a>`)
		e.send(other, e.msg(other, "execute", map[string]any{"deal": deal2}, map[string]any{"obligation": "place", "proof_url": url}))
		in, _ := e.host.ReputationInputs(context.Background(), other.id)
		if len(in) != 1 || in[0].Method != "proof_url" || in[0].Result != "verified" {
			t.Fatalf("reputation inputs after a host receipt = %+v, want one proof_url", in)
		}
	})
}

// TestL2_Recheck is L2-RECHECK: an obligation with keep is checked again
// a day after verification; the page lost its link, so the obligation
// fails with a host receipt and the host opens a removed_early dispute
// (P6). The clock is the injected one.
func TestL2_Recheck(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		offerer, acceptor, deal, link := e.dealWith(placeTerms("P14D", "proof_url"))
		pg := newPages(t)
		url := pg.set("/post", `Partner mention <a href="`+link+`">Acme Notes</a>`)
		e.send(acceptor, e.msg(acceptor, "execute", map[string]any{"deal": deal}, map[string]any{"obligation": "place", "proof_url": url}))
		rs := e.receipts(offerer, "place")
		if len(rs) != 1 || body(rs[0])["result"] != "verified" || body(rs[0])["next_check"] != stamp(e.clock.Now().Add(24*time.Hour)) {
			t.Fatalf("first receipt = %v, want verified with next_check a day on", rs)
		}
		// Half a day on, nothing is due.
		e.clock.Advance(12 * time.Hour)
		pg.set("/post", `Partner mention, the link was removed`)
		if _, err := e.host.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := e.obligationState(acceptor, deal, "place"); got != "verified" {
			t.Fatalf("obligation before the recheck = %s", got)
		}
		e.clock.Advance(12 * time.Hour)
		if _, err := e.host.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		rs = e.receipts(offerer, "place")
		if len(rs) != 2 || body(rs[1])["result"] != "failed" || body(rs[1])["found"].(map[string]any)["link"] != false {
			t.Fatalf("receipts after the recheck = %v, want a failed one", rs)
		}
		if got := e.obligationState(acceptor, deal, "place"); got != "failed" {
			t.Fatalf("obligation after the failed recheck = %s, want failed", got)
		}
		ds, err := e.host.Disputes(context.Background(), deal)
		if err != nil || len(ds) != 1 || ds[0].Claim != "removed_early" || ds[0].Obligation != "place" || ds[0].Opener != e.host.ID() {
			t.Fatalf("disputes = %+v %v, want one removed_early opened by the host", ds, err)
		}
		raw, _ := e.host.Deal(context.Background(), offerer.token, deal)
		if st := body(decode(t, raw))["state"]; st != "disputed" {
			t.Fatalf("deal state = %v, want disputed", st)
		}
	})
}

// TestDueWithoutProofFails: an obligation still pending when its due
// passes is failed with a host receipt (§12).
func TestDueWithoutProofFails(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		offerer, acceptor, deal, _ := e.dealWith(placeTerms("", "proof_url"))
		e.clock.Advance(7*24*time.Hour - time.Second)
		e.host.Sweep(context.Background())
		if got := e.obligationState(acceptor, deal, "place"); got != "pending" {
			t.Fatalf("obligation before due = %s", got)
		}
		e.clock.Advance(time.Second)
		if _, err := e.host.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		rs := e.receipts(offerer, "place")
		if len(rs) != 1 || body(rs[0])["result"] != "failed" || rs[0]["from"] != e.host.ID() {
			t.Fatalf("receipts = %v, want one failed host receipt", rs)
		}
		if got := e.obligationState(acceptor, deal, "place"); got != "failed" {
			t.Fatalf("obligation = %s, want failed", got)
		}
	})
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	return m
}

// TestWitnessReceipt: a verifier the host names reports a finding and
// the host issues a witness receipt naming it; a party the host does not
// name, or a party of the deal, cannot (§13).
func TestWitnessReceipt(t *testing.T) {
	e := newEnv(t)
	w := e.join("{}")
	e.witnesses = []string{w.id}
	e.host = e.newHost(e.db)
	offerer, acceptor, deal, _ := e.dealWith(placeTerms("", "witness"))
	finding := `{"deal":"` + deal + `","obligation":"place","result":"verified","url":"https://acmenotes.example/post","found":{"link":true,"disclosure":true}}`
	for _, p := range []*party{acceptor, offerer} {
		if _, err := e.host.WitnessReceipt(context.Background(), p.token, []byte(finding)); orp.AsError(err).Code != orp.Forbidden {
			t.Fatalf("a finding from a party not named = %v, want forbidden", err)
		}
	}
	raw, err := e.host.WitnessReceipt(context.Background(), w.token, []byte(finding))
	if err != nil {
		t.Fatal(err)
	}
	e.mustValidate(schema.Message, raw)
	rs := e.receipts(acceptor, "place")
	if len(rs) != 1 || body(rs[0])["method"] != "witness" || body(rs[0])["witness"] != w.id || rs[0]["from"] != e.host.ID() {
		t.Fatalf("receipts = %v, want a host witness receipt naming the witness", rs)
	}
	if got := e.obligationState(acceptor, deal, "place"); got != "verified" {
		t.Fatalf("obligation = %s", got)
	}
}
