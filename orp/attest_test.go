package orp_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"frontdesk/orp"
)

// TestConsumerAttestation (§20.7): an optional consumer seat never
// blocks active; on a host that accepts attestations it attests the
// link receipt and the final outcome of the deal it sits on, signed
// with its key over {deal, object, seat}; attestations accumulate (the
// same one twice is kept once) and show as attested_by to every seat.
// Another seat, a forged signature and an object the deal does not have
// are refused and change nothing.
func TestConsumerAttestation(t *testing.T) {
	e := newEnv(t)
	e.attestation = true
	e.host.Close()
	e.host = e.newHost(e.db)
	s := e.seats("referral-chain.json")
	creator, curator, news := s.by["p_creator01"], s.by["p_curator01"], s.by["p_news01"]
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	x := base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	buyer := e.join(`{"key":{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}}`)
	offer := s.offer(nil)
	offer["parties"] = append(offer["parties"].([]any), map[string]any{"id": buyer.id, "role": "consumer", "required": false})
	deal := s.send(creator, "offer", nil, offer, 200)["deal"].(string)
	s.sign(curator, deal, 200)
	if m := s.sign(news, deal, 200); body(m)["state"] != "active" {
		t.Fatalf("unsigned consumer seat: %v, want active", body(m)["state"])
	}
	e.click(linkOf(s.read(creator, deal), "place"), map[string]string{"User-Agent": browser}, "")
	got := s.read(creator, deal)
	receipt := got["obligations"].([]any)[0].(map[string]any)["receipt"].(string)
	e.clock.Advance(time.Minute)
	if _, err := e.host.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	var outcome string
	for _, m := range e.inbox(buyer) {
		if m["type"] == "outcome" {
			outcome = m["id"].(string)
		}
	}
	if outcome == "" {
		t.Fatal("the consumer seat got no outcome")
	}
	attest := func(from *party, typ, id string, signer ed25519.PrivateKey) (int, map[string]any) {
		obj := map[string]any{"type": typ, "id": id}
		payload, _ := json.Marshal(map[string]any{"deal": deal, "object": obj, "seat": from.id})
		sig, err := orp.SignDetached(payload, "", signer)
		if err != nil {
			t.Fatal(err)
		}
		r, m := e.send(from, e.msg04(from, "attest", map[string]any{"deal": deal}, map[string]any{"object": obj, "seat": from.id, "signature": sig}))
		return r.Status, m
	}
	_, other, _ := ed25519.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{3}, 64)))
	for name, c := range map[string]struct {
		status int
		code   string
		try    func() (int, map[string]any)
	}{
		"another seat":   {403, "forbidden", func() (int, map[string]any) { return attest(curator, "receipt", receipt, key) }},
		"forged":         {401, "bad_signature", func() (int, map[string]any) { return attest(buyer, "receipt", receipt, other) }},
		"unknown object": {404, "not_found", func() (int, map[string]any) { return attest(buyer, "outcome", "m_host_nothing01", key) }},
	} {
		if status, m := c.try(); status != c.status || errCode(m) != c.code {
			t.Errorf("%s = %d %v, want %d %s", name, status, m, c.status, c.code)
		}
	}
	if got := s.read(creator, deal); got["attested_by"] != nil {
		t.Fatalf("refused attestations were kept: %v", got["attested_by"])
	}
	for _, obj := range [][2]string{{"receipt", receipt}, {"outcome", outcome}, {"receipt", receipt}} {
		if status, m := attest(buyer, obj[0], obj[1], key); status != 200 {
			t.Fatalf("attest %s = %d %v", obj[0], status, m)
		}
	}
	for _, p := range []*party{creator, news, buyer} {
		got := s.read(p, deal)["attested_by"].([]any)
		if len(got) != 2 || got[0].(map[string]any)["object"].(map[string]any)["id"] != receipt || got[1].(map[string]any)["object"].(map[string]any)["id"] != outcome {
			t.Fatalf("attested_by = %v, want the receipt then the outcome", got)
		}
	}
}
