package orp_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"frontdesk/orp"
)

const browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

// TestStandingOfferFlow walks a standing offer to an active deal and
// checks what each party sees (§9.4, §9.5, §11.2).
func TestStandingOfferFlow(t *testing.T) {
	e := newEnv(t)
	offerer, acceptor := e.join("{}"), e.join("{}")
	offer := e.listOffer(offerer)
	r, m := e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": "sha256-" + strings.Repeat("B", 43)}))
	if r.Status != 409 || errCode(m) != "terms_mismatch" {
		t.Fatalf("wrong hash = %d %v, want terms_mismatch", r.Status, m)
	}
	if r, m := e.send(offerer, e.msg(offerer, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash})); r.Status != 403 {
		t.Fatalf("own offer = %d %v, want 403", r.Status, m)
	}
	_, m = e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
	w, _ := body(m)["waiting"].(map[string]any)
	if body(m)["state"] != "awaiting" || w == nil || w["url"] == nil || body(m)["tracking"] != nil {
		t.Fatalf("acceptor snapshot = %v, want awaiting with waiting and no links", m)
	}
	in := e.inbox(offerer)
	last := in[len(in)-1]
	if last["type"] != "deal" || body(last)["state"] != "awaiting" || body(last)["waiting"] != nil {
		t.Fatalf("offerer snapshot = %v, want awaiting without waiting details", last)
	}
	// Another party cannot approve the acceptor's escalation.
	esc := w["url"].(string)[strings.LastIndex(w["url"].(string), "/")+1:]
	if _, err := e.host.Approve(context.Background(), offerer.token, esc); err == nil {
		t.Fatal("the counterparty approved the acceptor's escalation")
	}
	active := e.approve(acceptor, w["url"].(string))
	if body(active)["state"] != "active" || len(body(active)["bound"].([]any)) != 2 {
		t.Fatalf("approved = %v", active)
	}
	tr := body(active)["tracking"].([]any)[0].(map[string]any)
	if !strings.HasPrefix(tr["link"].(string), "https://hub.example/go/") || tr["status"] != "live" || tr["param"] != "via" {
		t.Fatalf("tracking = %v", tr)
	}
}

// TestTrackedLink checks T3, T5, T7, T8 and the outcome of §14.1
// (C1-UNIVERSAL-LINK-NO-ADAPTER, L1-TEST-CLICKS, L1-PLAIN-AFTER-REVOKE).
func TestTrackedLink(t *testing.T) {
	e := newEnv(t)
	offerer, acceptor, deal, link := e.activeDeal()
	ids := map[string]bool{}
	for i, ref := range []string{"https://mail.example.com/inbox", "https://x.com/someone/status/1", ""} {
		if i > 0 {
			e.clock.Advance(6 * time.Second)
		}
		loc := e.click(link, map[string]string{"User-Agent": browser, "Referer": ref}, "")
		u, err := url.Parse(loc)
		if err != nil || u.Host != "acmenotes.example" || u.Path != "/pricing" {
			t.Fatalf("redirect %d = %s", i, loc)
		}
		via := u.Query().Get("via")
		if len(via) < 16 || ids[via] {
			t.Fatalf("click id %q is short or repeated", via)
		}
		ids[via] = true
	}
	e.clock.Advance(4999 * time.Millisecond)
	e.click(link, map[string]string{"User-Agent": browser}, "") // under 5 s after: repeat
	e.click(link+"?orp_test=1", map[string]string{"User-Agent": browser}, "")
	e.click(link, map[string]string{"User-Agent": "curl/8.5.0"}, "")
	e.click(link, map[string]string{"User-Agent": browser}, "HEAD")
	e.click(link, map[string]string{"User-Agent": browser, "Sec-Purpose": "prefetch"}, "")
	e.host.Flush(context.Background())

	d, err := e.host.Deal(context.Background(), acceptor.token, deal)
	if err != nil || !strings.Contains(string(d), `"state":"verified"`) {
		t.Fatalf("place obligation not verified by the first human click: %s %v", d, err)
	}
	receipts := 0
	for _, m := range e.inbox(acceptor) {
		if m["type"] == "receipt" && body(m)["method"] == "link" {
			receipts++
		}
	}
	if receipts != 1 {
		t.Fatalf("%d link receipts, want 1", receipts)
	}

	// A week later the sweep sends both parties an outcome.
	e.clock.Advance(7 * 24 * time.Hour)
	res, err := e.host.Sweep(context.Background())
	if err != nil || res.Outcomes != 2 {
		t.Fatalf("sweep = %+v, %v; want 2 outcomes", res, err)
	}
	in := e.inbox(offerer)
	out := in[len(in)-1]
	if out["type"] != "outcome" {
		t.Fatalf("last offerer message = %v, want outcome", out)
	}
	row := body(out)["rows"].([]any)[0].(map[string]any)
	clicks := row["clicks"].(map[string]any)
	want := map[string]float64{"human": 3, "repeat": 1, "test": 1, "bot": 1, "preview": 2}
	for k, v := range want {
		if clicks[k] != v {
			t.Fatalf("clicks = %v, want %v", clicks, want)
		}
	}
	if row["sources"] != nil {
		t.Fatalf("sources = %v: every domain had under 5 human clicks and other under 5 too", row["sources"])
	}

	// Revoke: the link turns plain, still redirects, and counts nothing.
	if r, m := e.send(offerer, e.msg(offerer, "revoke", map[string]any{"deal": deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); r.Status != 200 || body(m)["state"] != "revoked" ||
		body(m)["tracking"].([]any)[0].(map[string]any)["status"] != "plain" {
		t.Fatalf("revoke = %d %v", r.Status, m)
	}
	loc := e.click(link, map[string]string{"User-Agent": browser}, "")
	if loc != "https://acmenotes.example/pricing" {
		t.Fatalf("plain link redirect = %s, want the bare destination", loc)
	}
	if got := e.click("https://hub.example/go/unknownTOKEN1", map[string]string{"User-Agent": browser}, ""); got != "https://hub.example/" {
		t.Fatalf("unknown token = %s, want the home page", got)
	}
	res, err = e.host.Sweep(context.Background())
	if err != nil || res.Outcomes != 2 {
		t.Fatalf("final sweep = %+v, %v", res, err)
	}
	in = e.inbox(acceptor)
	final := in[len(in)-1]
	if final["type"] != "outcome" || body(final)["final"] != true {
		t.Fatalf("last message = %v, want the final outcome", final)
	}
	if c := body(final)["rows"].([]any)[0].(map[string]any)["clicks"].(map[string]any); c["human"] != float64(0) {
		t.Fatalf("clicks after revoke counted: %v", c)
	}
}

// TestClicksSurviveClose checks that Close writes every queued click.
func TestClicksSurviveClose(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	e.host.Start()
	for i := 0; i < 50; i++ {
		e.click(link, map[string]string{"User-Agent": browser}, "")
		e.clock.Advance(5 * time.Second)
	}
	e.host.Close()
	clicks, err := e.host.StoredClicks(context.Background(), link[strings.LastIndex(link, "/")+1:], time.Unix(0, 0), e.clock.Now().Add(time.Hour))
	if err != nil || len(clicks) != 50 {
		t.Fatalf("%d clicks stored after Close, want 50 (%v)", len(clicks), err)
	}
}

// TestEscalationExpires checks H5: an undecided escalation expires the
// deal after 7 days.
func TestEscalationExpires(t *testing.T) {
	e := newEnv(t)
	offerer, acceptor := e.join("{}"), e.join("{}")
	offer := e.listOffer(offerer)
	_, m := e.send(acceptor, e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash}))
	deal := m["deal"].(string)
	e.clock.Advance(7 * 24 * time.Hour)
	if res, err := e.host.Sweep(context.Background()); err != nil || res.Expired != 1 {
		t.Fatalf("sweep = %+v, %v", res, err)
	}
	d, _ := e.host.Deal(context.Background(), offerer.token, deal)
	if !strings.Contains(string(d), `"state":"expired"`) {
		t.Fatalf("deal = %s, want expired", d)
	}
}

// TestStoredClicksBySecond checks that clicks are found by their own time
// whatever page a flush put them in, a clock that moved backward included,
// and that a conversion finds its click by the click id alone.
func TestStoredClicksBySecond(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	token := link[strings.LastIndex(link, "/")+1:]
	start := e.clock.Now()
	var ids []string
	for _, step := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond, -3 * time.Second} {
		e.clock.Advance(step)
		u, _ := url.Parse(e.click(link, map[string]string{"User-Agent": browser}, ""))
		ids = append(ids, u.Query().Get("via"))
	}
	e.host.Flush(context.Background())
	count := func(from, to time.Time) int {
		clicks, err := e.host.StoredClicks(context.Background(), token, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return len(clicks)
	}
	for _, c := range []struct {
		from, to time.Time
		want     int
	}{
		{start, start.Add(time.Second), 1},
		{start.Add(time.Second), start.Add(2 * time.Second), 1},
		{start.Add(-2 * time.Second), start, 1}, // the click after the clock went back
		{start.Add(-time.Hour), start.Add(time.Hour), 3},
		{start.Add(200 * time.Millisecond), start.Add(1700 * time.Millisecond), 1},
	} {
		if got := count(c.from, c.to); got != c.want {
			t.Errorf("clicks in [%s, %s) = %d, want %d", c.from.Sub(start), c.to.Sub(start), got, c.want)
		}
	}
	if ids[0] == ids[1] || ids[1] == ids[2] || len(ids[0]) != 28 {
		t.Fatalf("click ids %q: want three distinct 28-character ids", ids)
	}
	for i, id := range ids {
		res, err := e.host.ProviderConversion(context.Background(), "stripe", orp.Conversion{Event: fmt.Sprint("evt_", i), Click: id})
		if err != nil || !res.Counted {
			t.Errorf("conversion on click %d = %+v, %v", i, res, err)
		}
	}
}

// TestClickStoredBeforeRedirect: with the click writer running, every
// redirect that hands out a click id has its click in the store when it
// returns, so a process killed right after the 302 loses none. The first
// host is neither flushed nor closed, as after a kill -9; a second host
// on the same store counts what the first left, as a restart does: on
// SQLite from the click journal's files, on PostgreSQL from the store's
// click log. Before the group commit, clicks waited up to 50 ms in
// memory.
func TestClickStoredBeforeRedirect(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		_, _, _, link := e.activeDeal()
		token := link[strings.LastIndex(link, "/")+1:]
		e.host.Start()
		t.Cleanup(e.host.Close)
		const n = 40
		ids := make(chan string, n)
		for i := range n {
			go func() {
				ua := fmt.Sprintf("%s click/%d", browser, i)
				u, _ := url.Parse(e.click(link, map[string]string{"User-Agent": ua}, ""))
				ids <- u.Query().Get("via")
			}()
		}
		want := map[string]bool{}
		for range n {
			if id := <-ids; id != "" {
				want[id] = true
			}
		}
		if len(want) != n {
			t.Fatalf("%d of %d redirects carried a click id", len(want), n)
		}
		restarted := e.newHost(e.db)
		restarted.Flush(context.Background())
		stored, err := restarted.StoredClicks(context.Background(), token, e.clock.Now().Add(-time.Minute), e.clock.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range stored {
			delete(want, c.ID)
		}
		if len(want) != 0 {
			t.Fatalf("%d acknowledged clicks are not stored when their redirects returned", len(want))
		}
	})
}
