package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/relay"
)

// TestSplitORPAttribution: the hub and three locations as processes, on
// both engines, the ORP host at Riverside Inn (split.orp_location). A
// partner accepts the business's referral offer and its tracked link is
// clicked at the hub; a booking with the click at Old Town Lodge, which
// holds no deal, is reported to Riverside Inn through the hub and pays
// the partner there. With Riverside Inn stopped, a booking at Airport
// Suites keeps its report, which arrives once Riverside Inn is back, and
// once.
func TestSplitORPAttribution(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitORPAttribution(t, engine) })
	}
}

func testSplitORPAttribution(t *testing.T, engine string) {
	d := startSplit(t, engine)
	s := &orpServer{t: t, url: d.hub, clock: clock.NewFixed(time.Now())}
	partner, deal := splitReferralDeal(t, s)
	link := trackedLink(s.deal(partner, deal), "place")
	var clicks []string
	for range 2 {
		status, loc := s.click("GET", link, map[string]string{"User-Agent": browserUA})
		if status != http.StatusFound {
			t.Fatalf("the tracked link at the hub = %d %s", status, loc)
		}
		clicks = append(clicks, via(t, loc))
	}
	// payouts are the partner's payouts at the ORP host, each in its
	// latest state, and how many of them are reversed.
	payouts := func() (states map[string]string, reversed int) {
		states = map[string]string{}
		for _, m := range s.inbox(partner) {
			if m["type"] == "payout" {
				states[obody(m)["payout"].(string)] = obody(m)["state"].(string)
			}
		}
		for _, st := range states {
			if st == "reversed" {
				reversed++
			}
		}
		return states, reversed
	}
	waitPayouts := func(want, wantReversed int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			states, reversed := payouts()
			if len(states) == want && reversed == wantReversed {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the partner's payouts at the ORP host: %v, want %d, %d of them reversed", states, want, wantReversed)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	stay := bookFormAt(t, d, "oldtown", clicks[0], "grace.orp@example.com")
	waitPayouts(1, 0)
	// The guest withdraws the request before the stay: Old Town Lodge
	// tells the ORP host of the end, which reverses the payout.
	req, _ := http.NewRequest(http.MethodPost, d.hub+stay+"/withdraw", nil)
	req.Header.Set("Origin", d.hub)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("withdrawal at the hub = %d", resp.StatusCode)
	}
	waitPayouts(1, 1)

	d.stop("riverside")
	bookFormAt(t, d, "airport", clicks[1], "alan.orp@example.com")
	time.Sleep(time.Second) // the report is tried, and fails, while Riverside Inn is down
	d.restart(t, "riverside")
	waitPayouts(2, 1)
	// Airport Suites' report told again, byte for byte as it keeps it,
	// as after an answer lost on the way back: the ORP host counts its
	// sale once.
	ref := regexp.MustCompile(`APS-[0-9A-F]{16}`).FindString(d.staffList(t, "airport"))
	d.stop("airport")
	c := config.Store{DataDir: filepath.Join(d.dir, "airport-data")}
	if engine == "postgres" {
		c = config.Store{Database: d.stores["airport"][1]}
	}
	st, err := openStore(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := st.Get(context.Background(), "relay.orp-report", ref)
	st.Close()
	if err != nil {
		t.Fatalf("airport's report of %s: %v", ref, err)
	}
	body, _ := json.Marshal(map[string]any{"slug": "riverside", "args": map[string]any{"sale": json.RawMessage(kept.Value)}})
	req, _ = http.NewRequest(http.MethodPost, d.origins["riverside"]+relay.PathPrefix+relay.OpORPReport, bytes.NewReader(body))
	relay.Sign(req, body, d.keys, time.Now(), fmt.Sprintf("%032x", time.Now().UnixNano()))
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(answer) != `{"result":true}` {
		t.Fatalf("%s's report told again = %d %s", ref, resp.StatusCode, answer)
	}
	if states, _ := payouts(); len(states) != 2 {
		t.Fatalf("the partner's payouts once a report was told twice: %v, want 2", states)
	}
}

// splitReferralDeal is a partner's active deal on the business's own
// referral offer (orp.referral_bps), accepted through the hub.
func splitReferralDeal(t *testing.T, s *orpServer) (*orpParty, string) {
	t.Helper()
	status, b, partner := s.suggest(`{"text":"A weekend by the river: where we stayed and what we booked","join":{}}`)
	var sug map[string]any
	json.Unmarshal(b, &sug)
	items, _ := sug["items"].([]any)
	if status != http.StatusOK || partner == nil || len(items) != 1 {
		t.Fatalf("suggest through the hub = %d %s", status, b)
	}
	offer := items[0].(map[string]any)["offer"].(map[string]any)
	_, m := s.send(partner, s.msg(partner, "accept", nil, map[string]any{"offer": offer["id"], "terms_hash": offer["terms_hash"]}))
	deal, _ := m["deal"].(string)
	if active := s.approve(partner, obody(m)["waiting"].(map[string]any)["url"].(string)); obody(active)["state"] != "active" {
		t.Fatalf("deal through the hub = %v, want active", active)
	}
	return partner, deal
}

// bookFormAt sends location slug's booking form at the hub, signed, with
// a partner's click id, and returns the path of the stay page it lands
// on.
func bookFormAt(t *testing.T, d *splitDeployment, slug, click, email string) string {
	t.Helper()
	in := time.Now().AddDate(0, 0, 45).Format(time.DateOnly)
	out := time.Now().AddDate(0, 0, 47).Format(time.DateOnly)
	form := url.Values{"roomtype": {"double"}, "checkin": {in}, "checkout": {out}, "guests": {"2"}, "name": {"Grace Hopper"},
		"email": {email}, "phone": {"(303) 555-0142"}, "signature": {signaturetest.Drawn(t)},
		"token": {formToken(t, d.hub+"/book/"+slug)}, "via": {click}}
	resp, err := http.PostForm(d.hub+"/book/"+slug, form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.Path, "/stay/") {
		t.Fatalf("the form at %s ended at %s = %d\n%s", slug, resp.Request.URL, resp.StatusCode, b)
	}
	return resp.Request.URL.Path
}
