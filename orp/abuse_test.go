package orp_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"frontdesk/orp"
)

// nestingProbe is one 64 KiB message with arrays nested 32,000 deep in ext.
func nestingProbe(from string) []byte {
	head := `{"orp":"0.3","type":"hello","id":"m_deep_0001","ts":"2026-10-21T09:00:00Z","from":"` + from + `","body":{"versions":["0.3"]},"ext":{"com.example.x":`
	return []byte(head + strings.Repeat("[", 32000) + strings.Repeat("]", 32000) + `}}`)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNestingProbeIsCheap: E1's work is bounded by a depth limit, so the
// audit's probe is refused with invalid_message after a few KiB of work,
// not a gigabyte, with or without a bearer.
func TestNestingProbeIsCheap(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	for _, token := range []string{"", p.token} {
		var code string
		n := allocated(func() {
			r := e.host.Send(context.Background(), token, testAddr, nestingProbe(p.id))
			var m map[string]any
			json.Unmarshal(r.Body, &m)
			code = errCode(m)
		})
		if code != "invalid_message" {
			t.Fatalf("nesting probe answered %s, want invalid_message", code)
		}
		if n > 4<<20 {
			t.Fatalf("nesting probe allocated %d MiB, want under 4", n>>20)
		}
	}
}

// TestUnauthenticatedSendsLimitedByAddress: messages without a working
// credential are counted per address before decoding; a party's own
// messages from the same address are not.
func TestUnauthenticatedSendsLimitedByAddress(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	codes := map[string]int{}
	for i := 0; i < 40; i++ {
		token := ""
		if i%2 == 1 {
			token = "orpt_not_a_token"
		}
		r := e.host.Send(context.Background(), token, "203.0.113.5", []byte(`{"orp":`))
		var m map[string]any
		json.Unmarshal(r.Body, &m)
		codes[errCode(m)]++
	}
	if codes["rate_limited"] != 10 || codes["invalid_message"] != 30 {
		t.Fatalf("40 unauthenticated sends from one address = %v, want 30 invalid_message then 10 rate_limited", codes)
	}
	r := e.host.Send(context.Background(), "", "203.0.113.6", []byte(`{"orp":`))
	if r.Status != 400 {
		t.Fatalf("another address = %d, want 400", r.Status)
	}
	r = e.host.Send(context.Background(), p.token, "203.0.113.5", e.msg(p, "hello", nil, map[string]any{"versions": []string{"0.3"}}))
	if r.Status != 200 {
		t.Fatalf("a party's hello from the limited address = %d %s, want 200", r.Status, r.Body)
	}
}

// termsTo is affiliateTerms with another destination.
func termsTo(destination string) map[string]any {
	b, _ := json.Marshal(affiliateTerms)
	var t map[string]any
	json.Unmarshal(b, &t)
	t["obligations"].([]any)[0].(map[string]any)["destination"] = destination
	return t
}

// TestDestinationRules: two anonymous parties cannot point the host's
// links at a site nobody declared; userinfo, other ports, addresses and
// blocked domains are refused; a claimed party's listed web space
// declares its site (§18).
func TestDestinationRules(t *testing.T) {
	e := newEnv(t)
	p := e.join("{}")
	other := e.join("{}")
	cases := []struct {
		name, destination, code string
	}{
		{"userinfo", "https://acmenotes.example@evil.example/", "invalid_message"},
		{"port 22", "https://acmenotes.example:22/", "invalid_message"},
		{"address", "https://203.0.113.9/", "invalid_message"},
		{"undeclared site", "https://evil.example/", "forbidden"},
		{"look-alike", "https://acmenotes.example.evil.example/", "forbidden"},
		{"blocked", "https://shop.blocked.example/", "forbidden"},
		{"owner's site", "https://acmenotes.example/pricing", ""},
		{"owner's subdomain, default port", "https://shop.acmenotes.example:443/x", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, to := range []map[string]any{nil, {"to": other.id}} {
				r, m := e.send(p, e.msg(p, "offer", to, map[string]any{"terms": termsTo(c.destination)}))
				if got := errCode(m); got != c.code {
					t.Fatalf("offer to %s (%v) = %d %s, want %q", c.destination, to, r.Status, got, c.code)
				}
			}
		})
	}

	// An unclaimed party's space declares nothing; once claimed, it does.
	space := map[string]any{"action": "put", "space": map[string]any{"id": "blog", "kind": "web.article", "platform": "web",
		"title": "My blog", "locator": "https://myblog.example/posts"}}
	_, m := e.send(p, e.msg(p, "space", nil, space))
	e.approve(p, body(m)["waiting"].(map[string]any)["url"].(string))
	if _, m := e.send(p, e.msg(p, "offer", nil, map[string]any{"terms": termsTo("https://myblog.example/join")})); errCode(m) != "forbidden" {
		t.Fatalf("unclaimed party's own site = %v, want forbidden", m)
	}
	joined, err := e.host.Join(context.Background(), []byte("{}"), testAddr)
	if err != nil {
		t.Fatal(err)
	}
	claimed := &party{id: joined.Party, token: joined.Token}
	_, m = e.send(claimed, e.msg(claimed, "space", nil, space))
	e.approve(claimed, body(m)["waiting"].(map[string]any)["url"].(string))
	if _, err := e.host.Claim(context.Background(), joined.Claim[strings.LastIndex(joined.Claim, "/")+1:]); err != nil {
		t.Fatal(err)
	}
	if r, m := e.send(claimed, e.msg(claimed, "offer", nil, map[string]any{"terms": termsTo("https://myblog.example/join")})); r.Status != 200 {
		t.Fatalf("claimed party's declared site = %d %v, want 200", r.Status, m)
	}
}

// TestBlockedLaterSendsHome: links minted before the owner blocked their
// domain send browsers to the host's home page and count nothing.
func TestBlockedLaterSendsHome(t *testing.T) {
	e := newEnv(t)
	_, _, _, link := e.activeDeal()
	h, err := orp.New(orp.Options{Store: e.db, Clock: e.clock, Rand: newSeeded(), Origin: "https://hub.example", BlockedDomains: []string{"acmenotes.example"}})
	if err != nil {
		t.Fatal(err)
	}
	e.host = h
	if got := e.click(link, map[string]string{"User-Agent": "Mozilla/5.0"}, ""); got != "https://hub.example/" {
		t.Fatalf("redirect = %s, want the host's home page", got)
	}
}
