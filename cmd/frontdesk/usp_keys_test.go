package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/usp/keyset"
	"frontdesk/usp/pop"
)

// profileKeyIDs fetches the served business profile and returns the kids
// of keys, checking that signing_keys lists the same.
func profileKeyIDs(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url + "/.well-known/usp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var p struct {
		Keys        []map[string]string `json:"keys"`
		SigningKeys []map[string]string `json:"signing_keys"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("profile: %v\n%s", err, body)
	}
	var ids []string
	for i, k := range p.Keys {
		if k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" || k["use"] != "sig" || k["d"] != "" {
			t.Fatalf("published key %v", k)
		}
		if i >= len(p.SigningKeys) || p.SigningKeys[i]["kid"] != k["kid"] {
			t.Fatalf("keys and signing_keys differ: %v / %v", p.Keys, p.SigningKeys)
		}
		ids = append(ids, k["kid"])
	}
	if len(p.SigningKeys) != len(p.Keys) {
		t.Fatalf("keys and signing_keys differ: %v / %v", p.Keys, p.SigningKeys)
	}
	return ids
}

// signedBy signs a webhook with the business's current key at now and
// returns the keyid, checking it verifies against the profile's keys.
func signedBy(t *testing.T, m *Main, now time.Time) string {
	t.Helper()
	body := []byte(`{"event":"booking.confirmed"}`)
	r, _ := http.NewRequest("POST", "https://platform.example/hooks", bytes.NewReader(body))
	ks := m.keySet()
	if err := ks.SignWebhook(t.Context(), now, r, body); err != nil {
		t.Fatal(err)
	}
	res, err := httpsig.Verify(t.Context(), httpsig.Request(r), now, ks.Resolver(now), webhookPolicy)
	if err != nil {
		t.Fatalf("webhook signed at %v does not verify: %v", now, err)
	}
	return res.Input.KeyID()
}

// webhookPolicy is what a platform demands of a webhook (§10.1.1).
var webhookPolicy = httpsig.Policy{
	Required:       []string{"@method", "@authority", "@path", "content-digest", "content-type"},
	RequireCreated: true, MaxAge: 5 * time.Minute,
}

// TestUSPKeysRotate: `frontdesk usp keys rotate` adds a key the profile
// publishes at once, which signs only after the lead time; during the
// overlap both keys verify, and the old one goes after its grace.
func TestUSPKeysRotate(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	clk := m.Clock.(*clock.Fixed)
	first := profileKeyIDs(t, m.URL)
	if len(first) != 1 {
		t.Fatalf("a fresh business publishes %d keys, want 1", len(first))
	}
	data := m.Config.Store.DataDir

	out, _, err := runCmd(t, "usp", "keys", "rotate", "--data", data)
	if err != nil || !strings.HasPrefix(out, "added signing key ") || !strings.Contains(out, "verifying for 7 days") {
		t.Fatalf("usp keys rotate = %q, %v", out, err)
	}
	keys, err := m.keySet().Keys(t.Context(), time.Time{})
	if err != nil || len(keys) != 2 || keys[0].ID != first[0] {
		t.Fatalf("stored keys after rotate: %+v, %v", keys, err)
	}
	second := keys[1]
	if !strings.Contains(out, second.ID+"  ") || !strings.Contains(out, "published, not yet signing") {
		t.Fatalf("rotate does not list the new key:\n%s", out)
	}

	// serve re-reads the store every minute; the test does it at once.
	clk.Set(second.ActiveFrom.Add(-time.Minute))
	if err := m.publishKeys(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := profileKeyIDs(t, m.URL); len(got) != 2 || got[0] != first[0] || got[1] != second.ID {
		t.Fatalf("profile after rotate lists %v, want [%s %s]", got, first[0], second.ID)
	}
	if got := signedBy(t, m, clk.Now()); got != first[0] {
		t.Fatalf("before the lead time ends, webhooks are signed by %s, want the old key %s", got, first[0])
	}
	clk.Set(second.ActiveFrom)
	if got := signedBy(t, m, clk.Now()); got != second.ID {
		t.Fatalf("after the lead time, webhooks are signed by %s, want the new key %s", got, second.ID)
	}
	// A webhook the old key signed just before still verifies in the overlap.
	body := []byte(`{}`)
	old, _ := http.NewRequest("POST", "https://platform.example/hooks", bytes.NewReader(body))
	if err := m.keySet().SignWebhook(t.Context(), second.ActiveFrom.Add(-time.Second), old, body); err != nil {
		t.Fatal(err)
	}
	during := second.ActiveFrom.Add(keyset.MinGrace - time.Hour)
	if _, err := httpsig.Verify(t.Context(), httpsig.Request(old), second.ActiveFrom, m.keySet().Resolver(during), webhookPolicy); err != nil {
		t.Fatalf("the old key no longer verifies during the overlap: %v", err)
	}
	clk.Set(second.ActiveFrom.Add(keyset.MinGrace))
	if err := m.publishKeys(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := profileKeyIDs(t, m.URL); len(got) != 1 || got[0] != second.ID {
		t.Fatalf("after the grace the profile lists %v, want only %s", got, second.ID)
	}
	if _, err := httpsig.Verify(t.Context(), httpsig.Request(old), second.ActiveFrom, m.keySet().Resolver(clk.Now()), webhookPolicy); !errors.Is(err, httpsig.ErrKeyNotFound) {
		t.Fatalf("the old key after its grace: %v, want key not found", err)
	}

	list, _, err := runCmd(t, "usp", "keys", "list", "--data", data)
	if err != nil || !strings.Contains(list, first[0]) || !strings.Contains(list, second.ID) {
		t.Fatalf("usp keys list = %q, %v", list, err)
	}
	for _, bad := range [][]string{{"usp"}, {"usp", "keys"}, {"usp", "keys", "drop"}, {"usp", "rotate"}} {
		if _, _, err := runCmd(t, append(bad, "--data", data)...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestSweepCommandRunsTheUSPPasses: `frontdesk sweep` does once what serve
// does in the background for USP: a webhook pass and the proof and
// credential sweeps.
func TestSweepCommandRunsTheUSPPasses(t *testing.T) {
	out, _, err := runCmd(t, "sweep", "--data", t.TempDir())
	if err != nil || !strings.Contains(out, "sweep: usp webhooks delivered=0 retrying=0 given_up=0 dropped=0; proofs forgotten=0 credentials removed=0\n") {
		t.Fatalf("sweep = %q, %v", out, err)
	}
}

// TestServeWithProofNonces: with usp.require_proof_nonce the server
// starts with the nonce secret every instance shares in the store.
func TestServeWithProofNonces(t *testing.T) {
	t.Parallel()
	m := startMain(t, "", func(c *config.Config) { c.USP.RequireProofNonce = true })
	if ids := profileKeyIDs(t, m.URL); len(ids) != 1 {
		t.Fatalf("profile keys %v", ids)
	}
	if _, err := m.store.Get(t.Context(), pop.KindNonceSecret, "current"); err != nil {
		t.Fatalf("nonce secret: %v", err)
	}
}
