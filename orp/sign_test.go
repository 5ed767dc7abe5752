package orp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/orp/schema"
)

// TestHostSignsItsMessages: every deal snapshot and receipt the host
// sends verifies against the discovery document's keys (§4.1, §18); a
// changed byte does not; an error message is not signed.
func TestHostSignsItsMessages(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		keys := e.host.Discovery().Keys
		if len(keys) != 1 || keys[0].Kty != "OKP" || keys[0].Crv != "Ed25519" || keys[0].Alg != "EdDSA" || keys[0].Use != "sig" {
			t.Fatalf("discovery keys = %+v, want one Ed25519 signing key", keys)
		}
		d, _ := json.Marshal(e.host.Discovery())
		e.mustValidate(schema.Discovery, d)
		_, acceptor, _, link := e.activeDeal()
		e.click(link, map[string]string{"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"}, "")
		e.host.Flush(context.Background())
		signed := map[string]int{}
		for _, m := range e.inbox(acceptor) {
			raw, _ := json.Marshal(m)
			typ := m["type"].(string)
			if !orp.VerifyHostMessage(raw, keys) {
				t.Fatalf("%s does not verify against the discovery keys: %s", typ, raw)
			}
			signed[typ]++
			tampered := bytes.Replace(raw, []byte(`"state":"`), []byte(`"state":"x`), 1)
			if !bytes.Equal(tampered, raw) && orp.VerifyHostMessage(tampered, keys) {
				t.Fatalf("a changed %s still verifies", typ)
			}
		}
		if signed["deal"] == 0 || signed["receipt"] == 0 {
			t.Fatalf("signed messages = %v, want deals and a receipt", signed)
		}
		_, m := e.send(acceptor, []byte(`{"orp":"0.3"}`))
		if m["sig"] != nil {
			t.Fatalf("error message carries a sig: %v", m)
		}
	})
}

// TestHostKeyRotation: a rotation signs with a new key, publishes it
// first, and keeps the old one, so what it signed still verifies; the
// ring survives reopening.
func TestHostKeyRotation(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		old, err := orp.OpenSigner(ctx, e.db, e.clock.Now(), newSeeded())
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte(`{"orp":"0.3","type":"consent","id":"m_host_00000001","ts":"2026-10-21T09:00:00Z","from":"orp:hub.example/host","body":{}}`)
		signedOld, err := old.Sign(msg)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(24 * time.Hour)
		rotated, err := orp.RotateSigner(ctx, e.db, e.clock.Now(), newSeeded())
		if err != nil {
			t.Fatal(err)
		}
		if rotated.KeyID() == old.KeyID() {
			t.Fatalf("rotated kid = %s, the old one", rotated.KeyID())
		}
		reopened, err := orp.OpenSigner(ctx, e.db, e.clock.Now(), newSeeded())
		if err != nil {
			t.Fatal(err)
		}
		keys := reopened.Keys()
		if reopened.KeyID() != rotated.KeyID() || len(keys) != 2 || keys[0].Kid != rotated.KeyID() || keys[1].Kid != old.KeyID() {
			t.Fatalf("reopened ring = %s %+v, want the rotated key first and the old one kept", reopened.KeyID(), keys)
		}
		signedNew, _ := reopened.Sign(msg)
		if !orp.VerifyHostMessage(signedOld, keys) || !orp.VerifyHostMessage(signedNew, keys) {
			t.Fatal("a message signed before or after the rotation does not verify")
		}
		if orp.VerifyHostMessage(signedOld, keys[:1]) {
			t.Fatal("a message signed with the old key verifies against the new key alone")
		}
	})
}
