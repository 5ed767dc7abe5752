package pop

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/jwk"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/store"
)

var (
	t0          = time.Unix(1_800_000_000, 0).UTC()
	platform    = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	intruder    = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	bookingArgs = json.RawMessage(`{"booking_id":"bkg_1","_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`)
)

func thumb(t *testing.T, priv ed25519.PrivateKey) string {
	t.Helper()
	k, err := jwk.FromPublic(priv.Public(), "")
	if err != nil {
		t.Fatal(err)
	}
	return k.Thumbprint()
}

func digestOf(t *testing.T, args json.RawMessage) string {
	t.Helper()
	_, d, err := CanonicalParams(args)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// presentation is a valid MCP presentation of credential bsc_1 bound to
// the platform key, which each case then spoils in one way.
func presentation(t *testing.T) (Request, Claims) {
	c := Claims{USPM: "usp_bookings_get", Aud: businessProfile, USPP: digestOf(t, bookingArgs), IAT: t0.Unix(), JTI: "jti-1", ATH: Hash("bsc_1")}
	return Request{Binding: MCP, Method: "usp_bookings_get", Arguments: bookingArgs, Credential: "bsc_1", BoundJKT: thumb(t, platform)}, c
}

func sign(t *testing.T, priv ed25519.PrivateKey, b Binding, c Claims) string {
	t.Helper()
	p, err := Sign(priv, b, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// forge builds a proof from a raw header and claims, signed by priv.
func forge(t *testing.T, priv ed25519.PrivateKey, hdr map[string]any, c Claims) string {
	t.Helper()
	h, _ := json.Marshal(hdr)
	p, _ := json.Marshal(c)
	enc := base64.RawURLEncoding
	s := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
	return s + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(s)))
}

func platformJWK(t *testing.T) map[string]any {
	pub := platform.Public().(ed25519.PublicKey)
	return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub)}
}

func codeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}

func TestVerifyRefusals(t *testing.T) {
	identity := append([]byte{1}, make([]byte, 31)...)
	tests := []struct {
		name  string
		spoil func(t *testing.T, r *Request, c *Claims) // may set r.Proof itself
		want  Code
	}{
		{"no proof with a bound credential", func(t *testing.T, r *Request, c *Claims) { r.Proof = "-" }, CodeMissing},
		{"not a JWS", func(t *testing.T, r *Request, c *Claims) { r.Proof = "a.b" }, CodeInvalid},
		{"REST proof on MCP", func(t *testing.T, r *Request, c *Claims) { r.Proof = sign(t, platform, REST, *c) }, CodeInvalid},
		{"HMAC alg", func(t *testing.T, r *Request, c *Claims) {
			r.Proof = forge(t, platform, map[string]any{"typ": "usp-pop+jwt", "alg": "HS256", "jwk": platformJWK(t)}, *c)
		}, CodeInvalid},
		{"ES256 alg over an Ed25519 key", func(t *testing.T, r *Request, c *Claims) {
			r.Proof = forge(t, platform, map[string]any{"typ": "usp-pop+jwt", "alg": "ES256", "jwk": platformJWK(t)}, *c)
		}, CodeInvalid},
		{"private key in the header", func(t *testing.T, r *Request, c *Claims) {
			j := platformJWK(t)
			j["d"] = base64.RawURLEncoding.EncodeToString(platform.Seed())
			r.Proof = forge(t, platform, map[string]any{"typ": "usp-pop+jwt", "alg": "EdDSA", "jwk": j}, *c)
		}, CodeInvalid},
		{"identity point as the key", func(t *testing.T, r *Request, c *Claims) {
			j := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(identity)}
			r.Proof = forge(t, platform, map[string]any{"typ": "usp-pop+jwt", "alg": "EdDSA", "jwk": j}, *c)
			r.BoundJKT = ""
			r.Credential = ""
			c.ATH = ""
		}, CodeInvalid},
		{"crit header", func(t *testing.T, r *Request, c *Claims) {
			r.Proof = forge(t, platform, map[string]any{"typ": "usp-pop+jwt", "alg": "EdDSA", "jwk": platformJWK(t), "crit": []string{"x"}}, *c)
		}, CodeInvalid},
		{"another key, correct kid", func(t *testing.T, r *Request, c *Claims) { r.Proof = sign(t, intruder, MCP, *c) }, CodeKeyMismatch},
		// The order of §10.1.6: a wrong key is reported as such even when
		// the audience is wrong too.
		{"another key and another audience", func(t *testing.T, r *Request, c *Claims) {
			c.Aud = "https://other.example/.well-known/usp"
			r.Proof = sign(t, intruder, MCP, *c)
		}, CodeKeyMismatch},
		{"tampered signature", func(t *testing.T, r *Request, c *Claims) {
			p := sign(t, platform, MCP, *c)
			r.Proof = p[:len(p)-4] + "AAAA"
		}, CodeInvalid},
		{"wrong audience", func(t *testing.T, r *Request, c *Claims) { c.Aud = "https://other.example/.well-known/usp" }, CodeInvalid},
		{"other method", func(t *testing.T, r *Request, c *Claims) { r.Method = "usp_bookings_cancel" }, CodeInvalid},
		{"arguments changed after signing", func(t *testing.T, r *Request, c *Claims) {
			r.Arguments = json.RawMessage(`{"booking_id":"bkg_2","_meta":{"usp":{"profile":"https://agent.example/p.json"}}}`)
		}, CodeInvalid},
		{"profile changed after signing", func(t *testing.T, r *Request, c *Claims) {
			r.Arguments = json.RawMessage(`{"booking_id":"bkg_1","_meta":{"usp":{"profile":"https://evil.example/p.json"}}}`)
		}, CodeInvalid},
		{"ath of another credential", func(t *testing.T, r *Request, c *Claims) { c.ATH = Hash("bsc_2") }, CodeInvalid},
		{"no ath at presentation", func(t *testing.T, r *Request, c *Claims) { c.ATH = "" }, CodeInvalid},
		{"ath at issuance", func(t *testing.T, r *Request, c *Claims) { r.Credential, r.BoundJKT = "", "" }, CodeInvalid},
		{"iat 61 s old", func(t *testing.T, r *Request, c *Claims) { c.IAT -= 61 }, CodeInvalid},
		{"iat 61 s ahead", func(t *testing.T, r *Request, c *Claims) { c.IAT += 61 }, CodeInvalid},
		{"no jti", func(t *testing.T, r *Request, c *Claims) { c.JTI = "" }, CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, c := presentation(t)
			tt.spoil(t, &req, &c)
			switch req.Proof {
			case "":
				req.Proof = sign(t, platform, MCP, c)
			case "-":
				req.Proof = ""
			}
			v := &Verifier{Audiences: []string{businessProfile}, Replay: openSQLite(t)}
			_, err := v.Verify(context.Background(), t0, req)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Verify = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestVerifyAcceptsAtTheWindowEdges(t *testing.T) {
	for _, skew := range []int64{-60, 60} {
		req, c := presentation(t)
		c.IAT += skew
		c.JTI = "edge"
		req.Proof = sign(t, platform, MCP, c)
		v := &Verifier{Audiences: []string{"https://other.example/usp", businessProfile}, Replay: openSQLite(t)}
		if _, err := v.Verify(context.Background(), t0, req); err != nil {
			t.Fatalf("iat %+ds: %v", skew, err)
		}
	}
}

func TestNonceChallenge(t *testing.T) {
	nonces := MACNonces{Secret: bytes.Repeat([]byte{3}, 32), Rand: bytes.NewReader(bytes.Repeat([]byte{5}, 64)), Lifetime: 5 * time.Minute}
	v := &Verifier{Audiences: []string{businessProfile}, Replay: openSQLite(t), Nonces: nonces}
	req, c := presentation(t)
	req.Proof = sign(t, platform, MCP, c)
	_, err := v.Verify(context.Background(), t0, req)
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != CodeNonceRequired || e.Value(0) == "" {
		t.Fatalf("Verify without a nonce = %v, want %s with a nonce", err, CodeNonceRequired)
	}
	c.Nonce = e.Value(0)
	c.JTI = "jti-2"
	c.IAT = t0.Add(10 * time.Second).Unix()
	req.Proof = sign(t, platform, MCP, c)
	if _, err := v.Verify(context.Background(), t0.Add(10*time.Second), req); err != nil {
		t.Fatalf("Verify with the issued nonce: %v", err)
	}
	// Stale and forged nonces are challenged again.
	for name, n := range map[string]string{"forged": strings.Repeat("A", 48), "other secret": mustIssue(t, MACNonces{Secret: bytes.Repeat([]byte{4}, 32), Rand: bytes.NewReader(make([]byte, 64)), Lifetime: time.Hour}, t0)} {
		c.Nonce, c.JTI = n, "jti-"+name
		req.Proof = sign(t, platform, MCP, c)
		if _, err := v.Verify(context.Background(), t0.Add(10*time.Second), req); codeOf(err) != CodeNonceRequired {
			t.Errorf("%s nonce: %v, want %s", name, err, CodeNonceRequired)
		}
	}
	if nonces.Valid(e.Value(0), t0.Add(5*time.Minute+time.Second)) {
		t.Error("nonce still valid after its lifetime")
	}
}

func mustIssue(t *testing.T, n MACNonces, now time.Time) string {
	t.Helper()
	s, err := n.Issue(now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRESTBinding(t *testing.T) {
	c := Claims{HTM: "POST", HTU: "https://Business.example.com:443/usp/bookings/bkg_1/cancel", IAT: t0.Unix(), JTI: "r1", ATH: Hash("bsc_1")}
	req := Request{Binding: REST, Method: "POST", URL: "https://business.example.com/usp/bookings/bkg_1/cancel?x=1", Credential: "bsc_1", BoundJKT: thumb(t, platform)}
	req.Proof = sign(t, platform, REST, c)
	v := &Verifier{Replay: openSQLite(t)}
	if _, err := v.Verify(context.Background(), t0, req); err != nil {
		t.Fatalf("REST proof: %v", err)
	}
	for name, spoil := range map[string]func(*Request){
		"other method": func(r *Request) { r.Method = "DELETE" },
		"other path":   func(r *Request) { r.URL = "https://business.example.com/usp/bookings/bkg_2/cancel" },
		"other host":   func(r *Request) { r.URL = "https://evil.example/usp/bookings/bkg_1/cancel" },
		"MCP binding":  func(r *Request) { r.Binding = MCP },
	} {
		r := req
		spoil(&r)
		if _, err := v.Verify(context.Background(), t0, r); codeOf(err) != CodeInvalid {
			t.Errorf("%s: %v, want %s", name, err, CodeInvalid)
		}
	}
}

// TestReplayIsSharedByInstances: two verifiers on one PostgreSQL store, as
// two instances behind a load balancer; a proof accepted by one is a
// replay at the other.
func TestReplayIsSharedByInstances(t *testing.T) {
	url := pgtest.Schema(t)
	var stores []store.Records
	for range 2 {
		db, err := postgres.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		stores = append(stores, db)
	}
	req, c := presentation(t)
	req.Proof = sign(t, platform, MCP, c)
	a := &Verifier{Audiences: []string{businessProfile}, Replay: StoreReplay{Records: stores[0]}}
	b := &Verifier{Audiences: []string{businessProfile}, Replay: StoreReplay{Records: stores[1]}}
	if _, err := a.Verify(context.Background(), t0, req); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(context.Background(), t0.Add(30*time.Second), req); codeOf(err) != CodeReplayed {
		t.Fatalf("second instance: %v, want %s", err, CodeReplayed)
	}
}

func TestReplaySweep(t *testing.T) {
	r := openSQLite(t)
	ctx := context.Background()
	for i, iat := range []time.Time{t0, t0.Add(time.Minute), t0.Add(10 * time.Minute)} {
		until := iat.Add(Window + Retention)
		if err := r.Remember(ctx, "k", string(rune('a'+i)), iat, until, iat); err != nil {
			t.Fatal(err)
		}
	}
	// The first two expire at t0+3m and t0+4m.
	n, err := r.Sweep(ctx, t0.Add(4*time.Minute+time.Second))
	if err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2", n, err)
	}
	left, err := r.Records.List(ctx, KindJTI, "", "", 10)
	if err != nil || len(left) != 1 {
		t.Fatalf("left %d records, %v; want 1", len(left), err)
	}
	// A replay inside the retention is still caught after a sweep.
	if err := r.Remember(ctx, "k", "c", t0.Add(10*time.Minute), t0.Add(13*time.Minute), t0.Add(10*time.Minute)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("Remember after sweep = %v, want ErrReplayed", err)
	}
}

// TestCanonicalParamsKeepsEverythingButAuthorization: only the one member
// goes, numbers keep their integer form, and the input is not altered.
func TestCanonicalParamsKeepsEverythingButAuthorization(t *testing.T) {
	args := json.RawMessage(`{"n":10,"big":12345678901234,"_meta":{"usp":{"authorization":{"proof":"p"},"correlation_id":"c"},"other":1},"authorization":"kept"}`)
	jcs, _, err := CanonicalParams(args)
	want := `{"_meta":{"other":1,"usp":{"correlation_id":"c"}},"authorization":"kept","big":12345678901234,"n":10}`
	if err != nil || string(jcs) != want {
		t.Fatalf("CanonicalParams = %s, %v; want %s", jcs, err, want)
	}
	for _, bad := range []string{`[]`, `null`, `{"a":1} {}`, `{"a":`} {
		if _, _, err := CanonicalParams(json.RawMessage(bad)); err == nil {
			t.Errorf("CanonicalParams(%s) accepted", bad)
		}
	}
}

// TestNonceSecretIsShared: instances on one store check each other's
// nonces.
func TestNonceSecretIsShared(t *testing.T) {
	db := openSQLite(t).Records
	a, err := NonceSecret(t.Context(), db, bytes.NewReader(bytes.Repeat([]byte{1}, 32)), t0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NonceSecret(t.Context(), db, bytes.NewReader(bytes.Repeat([]byte{2}, 32)), t0)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("second instance's secret differs: %v", err)
	}
	issuer := MACNonces{Secret: a, Rand: bytes.NewReader(make([]byte, 64)), Lifetime: time.Minute}
	checker := MACNonces{Secret: b, Lifetime: time.Minute}
	if !checker.Valid(mustIssue(t, issuer, t0), t0.Add(30*time.Second)) {
		t.Fatal("a nonce from one instance is refused by another")
	}
}

// TestSmallOrderKeyIsRefused: under the identity point as public key a
// "signature" R‖S with R = [S]B verifies for every message, so such a
// proof verifies and must be refused for its key alone.
func TestSmallOrderKeyIsRefused(t *testing.T) {
	identity := append([]byte{1}, make([]byte, 31)...)
	hdr, _ := json.Marshal(map[string]any{"typ": "usp-pop+jwt", "alg": "EdDSA", "jwk": map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(identity)}})
	_, digest, _ := CanonicalParams(bookingArgs)
	claims, _ := json.Marshal(Claims{USPM: "usp_bookings_get", Aud: businessProfile, USPP: digest, IAT: t0.Unix(), JTI: "weak"})
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims)

	// R = [a]B is the public key of a seed, S = a mod L its scalar.
	seed := make([]byte, ed25519.SeedSize)
	h := sha512.Sum512(seed)
	h[0] &= 248
	h[31] &= 127
	h[31] |= 64
	a := new(big.Int).SetBytes(reverse(h[:32]))
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	s := reverse(a.Mod(a, l).FillBytes(make([]byte, 32)))
	sig := append(append([]byte{}, ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)...), s...)
	if !ed25519.Verify(identity, []byte(signing), sig) {
		t.Fatal("the forgery does not verify; the test would prove nothing")
	}
	v := &Verifier{Audiences: []string{businessProfile}, Replay: openSQLite(t)}
	req := Request{Binding: MCP, Method: "usp_bookings_get", Arguments: bookingArgs, Proof: signing + "." + enc.EncodeToString(sig)}
	if _, err := v.Verify(context.Background(), t0, req); codeOf(err) != CodeInvalid {
		t.Fatalf("Verify = %v, want %s", err, CodeInvalid)
	}
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[len(b)-1-i] = c
	}
	return out
}
