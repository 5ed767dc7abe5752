package usp_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/jwk"
	"frontdesk/internal/uspspec"
	"frontdesk/inventory"
	"frontdesk/mail"
	"frontdesk/mcpfront"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/usp"
	"frontdesk/usp/credential"
	"frontdesk/usp/pop"
	"frontdesk/usp/uspmcp"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

// bookingsProfile is a keyless platform profile: a platform that proves
// possession of its key needs no published key.
const bookingsProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// audience is the business profile URI a proof names.
const audience = usptest.Origin + usp.ProfilePath

// trustBusiness serves a business with every mechanism this package
// implements, in the order cmd/frontdesk chains them, over both bindings
// on loopback; platform profiles come from a local TLS server.
type trustBusiness struct {
	mcpURL, restURL string
	plat            *usptest.Platforms
	clock           *clock.Fixed
	signer          *ecdsa.PrivateKey // the signing platform's key, published at /signed.json
	creds           *usp.BookingCredentials
	business        *usp.Business
	store           *sqlite.DB
	webhooks        *uspmcp.Webhooks
	bookings        *direct.Service // the staff side of the same core
}

// credentials counts the stored credentials of a booking.
func (tb *trustBusiness) credentials(t *testing.T, bookingID string) int {
	t.Helper()
	recs, err := tb.store.List(context.Background(), credential.Kind, bookingID+"/", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

func startTrust(t *testing.T) *trustBusiness { t.Helper(); return startTrustWith(t, nil) }

// startTrustWith is startTrust with the proof verifier changed by
// configure, such as to require nonces.
func startTrustWith(t *testing.T, configure func(*pop.Verifier)) *trustBusiness {
	t.Helper()
	signer, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := jwk.FromPublic(&signer.PublicKey, "platform-2026")
	if err != nil {
		t.Fatal(err)
	}
	pk := pub.Publish()
	pk.Use, pk.Alg = "sig", "ES256"
	keys, _ := json.Marshal([]jwk.Public{pk})
	signed := strings.TrimSuffix(bookingsProfile, "}") + `,"keys":` + string(keys) + `,"webhook_url":"https://hooks.signer.example/usp"}`
	hooked := strings.TrimSuffix(bookingsProfile, "}") + `,"webhook_url":"https://hooks.platform.example/usp"}`
	plat := usptest.NewPlatforms(t, map[string]string{"/pop.json": bookingsProfile, "/other.json": bookingsProfile, "/signed.json": signed, "/hooked.json": hooked,
		"/catalog-only.json": catalogOnlyProfile, "/orphan-subscriptions.json": orphanSubscriptionsProfile})

	cfg := usptest.WithPlatform(usptest.Manual(usptest.Unpaid(config.Demo())))
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFixed(usptest.Now)
	profiles := usp.NewProfiles(usp.ProfileOptions{AllowPrivate: true, RootCAs: plat.Roots(), Clock: clk})
	pricer := pricing.New(cfg.Portfolio, usptest.Origin)
	uc := usptest.USPConfig(cfg)
	bookings := direct.New(direct.Options{Config: usptest.BookingConfig(cfg), Store: st, Pricer: pricer, Clock: clk, Rand: rand.Reader, Mail: mail.NewDev(st, clk, nil)})
	verifier := &pop.Verifier{Audiences: []string{audience}, Replay: pop.StoreReplay{Records: st}}
	if configure != nil {
		configure(verifier)
	}
	creds := &usp.BookingCredentials{Issuer: credential.Issuer{Records: st, Rand: rand.Reader}, Verifier: verifier, Reservations: st, Origin: usptest.Origin, Clock: clk}
	chain := usp.Chain{
		creds,
		&usp.KeyProofs{Verifier: verifier, Origin: usptest.Origin, Clock: clk},
		&usp.RequestSignatures{Profiles: profiles, Clock: clk},
		usp.NewAPIKeys(uc.Platforms),
		usp.StaffSessions{Check: func(_ context.Context, token string) (string, error) {
			if token == usptest.StaffToken {
				return "desk", nil
			}
			return "", errors.New("no session")
		}},
	}
	wh := uspmcp.NewWebhooks()
	b, err := usp.New(usp.Options{
		Config: uc, Inventory: inventory.New(st), Pricer: pricer, Clock: clk, Origin: usptest.Origin, Profiles: profiles,
		Store: st, Bookings: bookings.Core(), Authenticator: chain, Credentials: creds, Observe: wh.Observe,
	})
	if err != nil {
		t.Fatal(err)
	}
	mcpSrv := httptest.NewServer(mcpfront.Handler(uspmcp.New(b, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}, Streams: wh}))
	t.Cleanup(mcpSrv.Close)
	restSrv := httptest.NewServer(restMux(b))
	t.Cleanup(restSrv.Close)
	return &trustBusiness{mcpURL: mcpSrv.URL, restURL: restSrv.URL, plat: plat, clock: clk, signer: signer, creds: creds, business: b, store: st, webhooks: wh, bookings: bookings}
}

// keyPlatform is a platform that generated its own Ed25519 key and
// proves possession of it; it never publishes it.
type keyPlatform struct {
	priv    ed25519.PrivateKey
	jkt     string
	profile string
	cs      *mcp.ClientSession
	now     func() int64
	jti     atomic.Int64
}

func (tb *trustBusiness) keyPlatform(t *testing.T, seed byte, profile string) *keyPlatform {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	k, _ := jwk.FromPublic(priv.Public(), "")
	client := mcp.NewClient(&mcp.Implementation{Name: "platform", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: tb.mcpURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &keyPlatform{priv: priv, jkt: k.Thumbprint(), profile: tb.plat.URL + profile, cs: cs, now: func() int64 { return tb.clock.Now().Unix() }}
}

// claims are a fresh proof's claims for tool and args, presenting cred
// when it is not empty.
func (p *keyPlatform) claims(t *testing.T, tool string, args map[string]any, cred string) pop.Claims {
	t.Helper()
	raw, _ := json.Marshal(args)
	_, digest, err := pop.CanonicalParams(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := pop.Claims{USPM: tool, Aud: audience, USPP: digest, IAT: p.now(), JTI: fmt.Sprintf("jti-%d", p.jti.Add(1))}
	if cred != "" {
		c.ATH = pop.Hash(cred)
	}
	return c
}

// args are the arguments of a call with the platform's _meta.
func (p *keyPlatform) args(in map[string]any) map[string]any {
	out := map[string]any{"_meta": map[string]any{"usp": map[string]any{"profile": p.profile}}}
	for k, v := range in {
		out[k] = v
	}
	return out
}

// authorize puts _meta.usp.authorization on args, after the proof was
// made over them (the digest leaves it out).
func authorize(args map[string]any, mechanism, cred, proof string) map[string]any {
	a := map[string]any{"mechanism": mechanism}
	if cred != "" {
		a["credential"] = cred
	}
	if proof != "" {
		a["proof"] = proof
	}
	args["_meta"].(map[string]any)["usp"].(map[string]any)["authorization"] = a
	return args
}

// signed calls tool with a proof by the platform's key, and cred with it
// when not empty.
func (p *keyPlatform) signed(t *testing.T, tool string, in map[string]any, cred string) (map[string]any, error) {
	t.Helper()
	args := p.args(in)
	proof, err := pop.Sign(p.priv, pop.MCP, p.claims(t, tool, args, cred))
	if err != nil {
		t.Fatal(err)
	}
	mechanism := usp.MechanismPoP
	if cred != "" {
		mechanism = usp.MechanismCredential
	}
	return p.call(t, tool, authorize(args, mechanism, cred, proof))
}

func (p *keyPlatform) call(t *testing.T, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		t.Fatalf("%s: tool error %+v", tool, res.Content)
	}
	return res.StructuredContent.(map[string]any), nil
}

// refusedWith checks err is the JSON-RPC protocol error with data.code.
func refusedWith(t *testing.T, what string, err error, code string) {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("%s: %v, want the JSON-RPC error %s", what, err, code)
	}
	var data struct{ Code string }
	json.Unmarshal(rpc.Data, &data)
	if data.Code != code {
		t.Fatalf("%s: data.code %q (%s), want %s", what, data.Code, rpc.Message, code)
	}
}

// forge makes a proof with a header of the caller's choosing, signed by
// priv (or with no signature for alg none).
func forge(priv ed25519.PrivateKey, header map[string]any, c pop.Claims, sign bool) string {
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(header)
	b, _ := json.Marshal(c)
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(b)
	if !sign {
		return input + "."
	}
	return input + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(input)))
}

func buyer() map[string]any {
	return map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}
}

// shuttleSlot is the id of the demo shuttle's n-th slot on the test day.
func shuttleSlot(t *testing.T, p *keyPlatform, n int) string {
	t.Helper()
	out, err := p.call(t, "usp_availability_query", p.args(map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"}))
	if err != nil {
		t.Fatal(err)
	}
	return out["slots"].([]any)[n].(map[string]any)["id"].(string)
}

// TestProofOfPossessionOverMCP: a platform with a fresh key books with a
// proof and gets a credential bound to that key; the booking opens to
// that key (bare proof) and to its credential with a proof by that key,
// and to nothing else. Each refusal of the black-box list is a
// JSON-RPC error with its code.
func TestProofOfPossessionOverMCP(t *testing.T) {
	tb := startTrust(t)
	schemas := uspspec.Load(t)
	a := tb.keyPlatform(t, 1, "/pop.json")
	b := tb.keyPlatform(t, 2, "/other.json")

	create := map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, a, 0), "buyer": buyer()}
	args := a.args(create)
	proof, _ := pop.Sign(a.priv, pop.MCP, a.claims(t, "usp_bookings_create", args, ""))
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "usp_bookings_create", Arguments: authorize(args, usp.MechanismPoP, "", proof)})
	if err != nil || res.IsError {
		t.Fatalf("create with a proof: %v %+v", err, res)
	}
	envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
	schemas.Check(t, schemas.MCPResult(t, "usp_bookings_create"), envelope)
	created := res.StructuredContent.(map[string]any)
	id := created["booking"].(map[string]any)["id"].(string)
	cred, _ := created["booking_scoped_credential"].(map[string]any)
	if cred == nil || !strings.HasPrefix(cred["value"].(string), "bsc_") || cred["cnf"].(map[string]any)["jkt"] != a.jkt {
		t.Fatalf("credential = %v, want one bound to %s", cred, a.jkt)
	}
	value := cred["value"].(string)

	// The same creation again under one idempotency key answers the kept
	// result without a credential, and no kept answer holds one.
	keyed := a.args(map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, a, 6), "buyer": buyer()})
	keyed["_meta"].(map[string]any)["usp"].(map[string]any)["idempotency_key"] = "3d0c9a43-0000-4000-8000-0000000000aa"
	var firstCred any
	for i := range 2 {
		args := map[string]any{}
		raw, _ := json.Marshal(keyed)
		json.Unmarshal(raw, &args)
		p, _ := pop.Sign(a.priv, pop.MCP, a.claims(t, "usp_bookings_create", args, ""))
		out, err := a.call(t, "usp_bookings_create", authorize(args, usp.MechanismPoP, "", p))
		if err != nil || out["booking"] == nil {
			t.Fatalf("keyed create %d: %v %v", i, out, err)
		}
		if i == 0 {
			firstCred = out["booking_scoped_credential"]
		} else if out["booking_scoped_credential"] != nil {
			t.Fatalf("the replayed creation returned a credential: %v", out["booking_scoped_credential"])
		}
	}
	if firstCred == nil {
		t.Fatal("the keyed creation returned no credential")
	}
	kept, _ := tb.store.List(context.Background(), "usp-idempotency", "", "", 100)
	for _, r := range kept {
		if strings.Contains(string(r.Value), credential.Prefix) {
			t.Fatalf("an idempotency record keeps a credential: %s", r.Value)
		}
	}
	if len(kept) == 0 {
		t.Fatal("no idempotency record was kept")
	}

	// The replay of that very call: the same proof again.
	replayArgs := a.args(create)
	_, err = a.call(t, "usp_bookings_create", authorize(replayArgs, usp.MechanismPoP, "", proof))
	refusedWith(t, "replayed proof", err, "pop_proof_replayed")

	got, err := a.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, "")
	if err != nil || got["booking"].(map[string]any)["id"] != id {
		t.Fatalf("get by the booking's key: %v %v", got, err)
	}
	if _, leaked := got["booking_scoped_credential"]; leaked {
		t.Fatal("a read returned a credential")
	}
	if got, err := a.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, value); err != nil || got["booking"].(map[string]any)["id"] != id {
		t.Fatalf("get with the credential and its proof: %v %v", got, err)
	}

	getArgs := func(p *keyPlatform) map[string]any { return p.args(map[string]any{"booking_id": id}) }
	pubA, _ := jwk.FromPublic(a.priv.Public(), "")
	x := pubA.Publish().X
	cases := []struct {
		name string
		call func() error
		code string
	}{
		{"wrong audience", func() error {
			args := getArgs(a)
			c := a.claims(t, "usp_bookings_get", args, "")
			c.Aud = "https://elsewhere.example/.well-known/usp"
			p, _ := pop.Sign(a.priv, pop.MCP, c)
			_, err := a.call(t, "usp_bookings_get", authorize(args, usp.MechanismPoP, "", p))
			return err
		}, "pop_proof_invalid"},
		{"alg none", func() error {
			args := getArgs(a)
			p := forge(a.priv, map[string]any{"alg": "none", "typ": "usp-pop+jwt", "jwk": map[string]string{"kty": "OKP", "crv": "Ed25519", "x": x}}, a.claims(t, "usp_bookings_get", args, ""), false)
			_, err := a.call(t, "usp_bookings_get", authorize(args, usp.MechanismPoP, "", p))
			return err
		}, "pop_proof_invalid"},
		{"substituted curve", func() error {
			args := getArgs(a)
			p := forge(a.priv, map[string]any{"alg": "EdDSA", "typ": "usp-pop+jwt", "jwk": map[string]string{"kty": "OKP", "crv": "X448", "x": x}}, a.claims(t, "usp_bookings_get", args, ""), true)
			_, err := a.call(t, "usp_bookings_get", authorize(args, usp.MechanismPoP, "", p))
			return err
		}, "pop_proof_invalid"},
		{"parameters changed after signing", func() error {
			args := a.args(map[string]any{"booking_id": id, "notes": "one bag"})
			p, _ := pop.Sign(a.priv, pop.MCP, a.claims(t, "usp_bookings_update", args, ""))
			args["notes"] = "nine bags"
			_, err := a.call(t, "usp_bookings_update", authorize(args, usp.MechanismPoP, "", p))
			return err
		}, "pop_proof_invalid"},
		{"credential without its proof", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), usp.MechanismCredential, value, ""))
			return err
		}, "pop_proof_missing"},
		{"credential without its proof, declared as an API key", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), usp.MechanismAPIKey, value, ""))
			return err
		}, "pop_proof_missing"},
		// Vector 007 for every declared mechanism: the declaration is
		// outside the digest, so none of them, known or not, turns a
		// key-bound credential into a bearer token or hides why it fails.
		{"credential without its proof, declared as bearer", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), "bearer", value, ""))
			return err
		}, "pop_proof_missing"},
		{"credential without its proof, declared as oauth2_bearer", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), "oauth2_bearer", value, ""))
			return err
		}, "pop_proof_missing"},
		{"credential without its proof, declared as platform_key_pop", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), usp.MechanismPoP, value, ""))
			return err
		}, "pop_proof_missing"},
		{"credential without its proof, declared as a request signature", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), usp.MechanismSignature, value, ""))
			return err
		}, "pop_proof_missing"},
		{"credential without its proof, declared as mtls", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), "mtls", value, ""))
			return err
		}, "pop_proof_missing"},
		{"an unknown mechanism with no credential", func() error {
			_, err := a.call(t, "usp_bookings_get", authorize(getArgs(a), "bearer", "", ""))
			return err
		}, "authentication_required"},
		{"credential with another key's proof", func() error {
			_, err := b.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, value)
			return err
		}, "pop_key_mismatch"},
		{"another platform's key", func() error {
			_, err := b.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, "")
			return err
		}, "booking_not_found"},
		{"a platform confirms", func() error {
			_, err := a.signed(t, "usp_bookings_confirm", map[string]any{"booking_id": id}, value)
			return err
		}, "authentication_required"},
		{"a platform confirms with its key", func() error {
			_, err := a.signed(t, "usp_bookings_confirm", map[string]any{"booking_id": id}, "")
			return err
		}, "authentication_required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refusedWith(t, c.name, c.call(), c.code) })
	}

	// The credential opens its own booking only: B's credential for B's
	// booking does not open A's.
	other := map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, b, 1), "buyer": buyer()}
	made, err := b.signed(t, "usp_bookings_create", other, "")
	if err != nil {
		t.Fatal(err)
	}
	bValue := made["booking_scoped_credential"].(map[string]any)["value"].(string)
	_, err = b.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, bValue)
	refusedWith(t, "another booking's credential", err, "authentication_required")

	// Cancelled, the booking is terminal and its credential opens nothing.
	if out, err := a.signed(t, "usp_bookings_cancel", map[string]any{"booking_id": id}, value); err != nil || out["booking"].(map[string]any)["status"] != "canceled" {
		t.Fatalf("cancel with the credential: %v %v", out, err)
	}
	_, err = a.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, value)
	refusedWith(t, "credential of a cancelled booking", err, "authentication_required")
	// The cancellation deleted it, and only it: the sweep finds nothing.
	if n := tb.credentials(t, id); n != 0 {
		t.Fatalf("%d credentials of the cancelled booking left", n)
	}
	if n, err := tb.creds.Sweep(context.Background()); err != nil || n != 0 {
		t.Fatalf("credential sweep = %d, %v; want nothing left to sweep", n, err)
	}
	if got, err := b.signed(t, "usp_bookings_get", map[string]any{"booking_id": made["booking"].(map[string]any)["id"]}, bValue); err != nil || got["booking"] == nil {
		t.Fatalf("a live booking's credential after the sweep: %v %v", got, err)
	}
}

// rest is one REST request of a test platform.
type rest struct {
	method, path, body string
	header             map[string]string
}

func (tb *trustBusiness) send(t *testing.T, r *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func (tb *trustBusiness) request(t *testing.T, q rest) *http.Request {
	t.Helper()
	r, err := http.NewRequest(q.method, tb.restURL+q.path, strings.NewReader(q.body))
	if err != nil {
		t.Fatal(err)
	}
	if q.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	return r
}

// sign adds Content-Digest (for a body) and an RFC 9421 signature by key
// over the components §9.1.4 requires.
func sign(t *testing.T, r *http.Request, body string, keyID string, key *ecdsa.PrivateKey, components ...string) {
	t.Helper()
	signAt(t, r, body, keyID, key, time.Time{}, components...)
}

// signAt is sign with a created parameter (none when created is zero).
func signAt(t *testing.T, r *http.Request, body string, keyID string, key *ecdsa.PrivateKey, created time.Time, components ...string) {
	t.Helper()
	if components == nil {
		components = []string{"@method", "@authority", "@path", "usp-agent"}
		if r.Header.Get("Idempotency-Key") != "" {
			components = append(components, "idempotency-key")
		}
		if body != "" {
			components = append(components, "content-digest", "content-type")
		}
	}
	if body != "" {
		d, _ := httpsig.ContentDigest([]byte(body), httpsig.SHA256)
		r.Header.Set("Content-Digest", d)
	}
	var cs []httpsig.Component
	for _, c := range components {
		cs = append(cs, httpsig.C(c))
	}
	s, err := httpsig.Sign(httpsig.Request(r), httpsig.SignOptions{Components: cs, Created: created}, httpsig.SigningKey{ID: keyID, Algorithm: httpsig.ECDSAP256SHA256, Key: key}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s.SetHeaders(r.Header)
}

// problem checks a REST refusal: its status and problem type.
func problem(t *testing.T, what string, status int, doc map[string]any, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus || !strings.HasSuffix(fmt.Sprint(doc["type"]), "/"+strings.ReplaceAll(code, "_", "-")) {
		t.Fatalf("%s: %d %v, want %d %s", what, status, doc, wantStatus, code)
	}
}

// TestSignedRequestsAndDPoPOverREST: a platform signs REST requests with
// the key its profile publishes; another uses DPoP proofs and its
// credential as "Authorization: DPoP". Tampering, unknown keys, missing
// coverage and a bound credential sent as a bearer token are refused.
func TestSignedRequestsAndDPoPOverREST(t *testing.T) {
	tb := startTrust(t)
	a := tb.keyPlatform(t, 3, "/pop.json")
	signedAgent := `profile="` + tb.plat.URL + `/signed.json"`
	slot := shuttleSlot(t, a, 2)
	body := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot)
	hdr := map[string]string{"USP-Agent": signedAgent, "Idempotency-Key": "7a6b2c1d-0000-4000-8000-00000000000a"}

	r := tb.request(t, rest{"POST", "/usp/bookings", body, hdr})
	sign(t, r, body, "platform-2026", tb.signer)
	status, doc := tb.send(t, r)
	if status != http.StatusCreated {
		t.Fatalf("signed create: %d %v", status, doc)
	}
	id := doc["booking"].(map[string]any)["id"].(string)
	if cred, _ := doc["booking_scoped_credential"].(map[string]any); cred == nil || cred["cnf"] != nil {
		t.Fatalf("credential of a signed create = %v, want one without cnf", cred)
	}
	// Its webhooks go where the profile that its key signed for says.
	if url, err := tb.business.WebhookURL(context.Background(), "127.0.0.1"); err != nil || url != "https://hooks.signer.example/usp" {
		t.Fatalf("webhook url of the signing platform = %q, %v", url, err)
	}
	r = tb.request(t, rest{"GET", "/usp/bookings/" + id, "", map[string]string{"USP-Agent": signedAgent}})
	sign(t, r, "", "platform-2026", tb.signer)
	if status, doc := tb.send(t, r); status != 200 || doc["booking"].(map[string]any)["id"] != id {
		t.Fatalf("signed get: %d %v", status, doc)
	}

	tampered := tb.request(t, rest{"POST", "/usp/bookings", strings.Replace(body, "Ada", "Eve", 1), map[string]string{"USP-Agent": signedAgent}})
	sign(t, tampered, body, "platform-2026", tb.signer)
	status, doc = tb.send(t, tampered)
	problem(t, "body changed after signing", status, doc, 400, "digest_mismatch")

	r = tb.request(t, rest{"GET", "/usp/bookings/" + id, "", map[string]string{"USP-Agent": signedAgent}})
	sign(t, r, "", "platform-1999", tb.signer)
	status, doc = tb.send(t, r)
	problem(t, "unknown keyid", status, doc, 401, "key_not_found")

	r = tb.request(t, rest{"POST", "/usp/bookings/" + id + "/cancel", `{}`, map[string]string{"USP-Agent": signedAgent}})
	sign(t, r, `{}`, "platform-2026", tb.signer, "@method", "@authority", "@path")
	status, doc = tb.send(t, r)
	problem(t, "content-digest not covered", status, doc, 401, "signature_invalid")

	// created may differ from the business's clock by the proofs'
	// window (±60 s) either way, as between two hosts' clocks drifting.
	for _, c := range []struct {
		name   string
		offset time.Duration
		status int
	}{
		{"created 1 s ahead", time.Second, 200},
		{"created 5 s ahead", 5 * time.Second, 200},
		{"created 60 s ahead", 60 * time.Second, 200},
		{"created 61 s ahead", 61 * time.Second, 401},
		{"created 60 s ago", -60 * time.Second, 200},
		{"created 61 s ago", -61 * time.Second, 401},
		{"created a day ago", -24 * time.Hour, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tb.request(t, rest{"GET", "/usp/bookings/" + id, "", map[string]string{"USP-Agent": signedAgent}})
			signAt(t, r, "", "platform-2026", tb.signer, tb.clock.Now().Add(c.offset))
			status, doc := tb.send(t, r)
			if c.status == 200 && status != 200 {
				t.Fatalf("%s: %d %v, want 200", c.name, status, doc)
			}
			if c.status != 200 {
				problem(t, c.name, status, doc, 401, "signature_expired")
				// Either way, the words are the window's: a signature from
				// the future has not "expired".
				if d := fmt.Sprint(doc["detail"]); !strings.Contains(d, "outside the freshness window") || strings.Contains(d, "has expired") {
					t.Fatalf("%s: detail %q, want the freshness window named", c.name, d)
				}
			}
		})
	}

	// DPoP: a proof per request, htm and htu for the business's origin.
	dpop := func(method, path, cred string) string {
		c := pop.Claims{HTM: method, HTU: usptest.Origin + path, IAT: tb.clock.Now().Unix(), JTI: fmt.Sprintf("rest-%d", a.jti.Add(1))}
		if cred != "" {
			c.ATH = pop.Hash(cred)
		}
		p, err := pop.Sign(a.priv, pop.REST, c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	popAgent := `profile="` + a.profile + `"`
	body2 := strings.Replace(body, slot, shuttleSlot(t, a, 3), 1)
	status, doc = tb.send(t, tb.request(t, rest{"POST", "/usp/bookings", body2, map[string]string{"USP-Agent": popAgent, "DPoP": dpop("POST", "/usp/bookings", "")}}))
	if status != http.StatusCreated {
		t.Fatalf("DPoP create: %d %v", status, doc)
	}
	mine := doc["booking"].(map[string]any)["id"].(string)
	cred := doc["booking_scoped_credential"].(map[string]any)
	if cred["cnf"].(map[string]any)["jkt"] != a.jkt {
		t.Fatalf("DPoP credential = %v", cred)
	}
	value := cred["value"].(string)
	path := "/usp/bookings/" + mine
	status, doc = tb.send(t, tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": popAgent, "Authorization": "DPoP " + value, "DPoP": dpop("GET", path, value)}}))
	if status != 200 || doc["booking"].(map[string]any)["id"] != mine {
		t.Fatalf("get with the credential and a DPoP proof: %d %v", status, doc)
	}
	status, doc = tb.send(t, tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": popAgent, "Authorization": "Bearer " + value}}))
	problem(t, "bound credential as a bearer token", status, doc, 401, "pop_proof_missing")
	status, doc = tb.send(t, tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": popAgent, "Authorization": "DPoP " + value, "DPoP": dpop("GET", "/usp/bookings/other", value)}}))
	problem(t, "proof for another URL", status, doc, 401, "pop_proof_invalid")

	// The signing platform cannot read the DPoP platform's booking.
	r = tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": signedAgent}})
	sign(t, r, "", "platform-2026", tb.signer)
	status, doc = tb.send(t, r)
	problem(t, "another platform's booking", status, doc, 404, "booking_not_found")
}

// TestWebhooksOfAKeyPlatform: a platform known only by its key gets its
// webhooks at the webhook_url of the profile its key presented; the end
// of a hold is no booking event, while the cancellation of a booking
// renders as a BookingEvent with the booking in data.
func TestWebhooksOfAKeyPlatform(t *testing.T) {
	tb := startTrust(t)
	schemas := uspspec.Load(t)
	p := tb.keyPlatform(t, 4, "/hooked.json")
	ctx := context.Background()
	if url, err := tb.business.WebhookURL(ctx, "key-"+p.jkt); err != nil || url != "" {
		t.Fatalf("before any call: %q, %v; want none", url, err)
	}
	slot := shuttleSlot(t, p, 4)
	hold, err := p.signed(t, "usp_availability_hold", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.signed(t, "usp_availability_release", map[string]any{"hold_id": hold["hold"].(map[string]any)["id"]}, ""); err != nil {
		t.Fatal(err)
	}
	made, err := p.signed(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot, "buyer": buyer()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.signed(t, "usp_bookings_cancel", map[string]any{"booking_id": made["booking"].(map[string]any)["id"]}, ""); err != nil {
		t.Fatal(err)
	}
	if url, err := tb.business.WebhookURL(ctx, "key-"+p.jkt); err != nil || url != "https://hooks.platform.example/usp" {
		t.Fatalf("webhook url = %q, %v", url, err)
	}
	recs, err := tb.store.List(ctx, webhook.Kind, "", "", 100)
	if err != nil || len(recs) != 2 {
		t.Fatalf("outbox = %d events, %v; want the hold's end and the cancellation", len(recs), err)
	}
	var bodies int
	for _, rec := range recs {
		var e webhook.Event
		json.Unmarshal(rec.Value, &e)
		body, err := tb.business.EventBody(ctx, e)
		if errors.Is(err, webhook.ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		bodies++
		schemas.Check(t, "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/BookingEvent", body)
		var ev webhook.BookingEvent
		json.Unmarshal(body, &ev)
		var data map[string]any
		json.Unmarshal(ev.Data, &data)
		if ev.Event != "booking.canceled" || ev.BookingID != made["booking"].(map[string]any)["id"] || data["status"] != "canceled" || ev.EventID != e.ID {
			t.Fatalf("event body %s", body)
		}
		// The booking as saved: cancelled by the buyer's platform, not
		// the default of a business cancellation.
		if c, _ := data["cancellation"].(map[string]any); c["canceled_by"] != "buyer" {
			t.Fatalf("cancellation in the event = %v", data["cancellation"])
		}
	}
	if bodies != 1 {
		t.Fatalf("%d events rendered, want the cancellation only", bodies)
	}
}

// rawMCP is an MCP session over plain HTTP, as any client makes it, so
// that the test sees every message the server sends, notifications of
// methods no SDK knows included.
type rawMCP struct {
	t   *testing.T
	url string
	id  string
}

func (m *rawMCP) post(body string) (*http.Response, string) {
	m.t.Helper()
	r, _ := http.NewRequest("POST", m.url, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if m.id != "" {
		r.Header.Set("Mcp-Session-Id", m.id)
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// TestWebhookReachesThePlatformsMCPSession: a session on which a platform
// authenticated a privileged call receives that platform's webhooks as
// usp_webhook notifications without an id on its open stream; another
// platform's session does not.
func TestWebhookReachesThePlatformsMCPSession(t *testing.T) {
	tb := startTrust(t)
	p := tb.keyPlatform(t, 5, "/pop.json")
	m := &rawMCP{t: t, url: tb.mcpURL}
	resp, body := m.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m.id = resp.Header.Get("Mcp-Session-Id"); m.id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	m.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get, _ := http.NewRequestWithContext(ctx, "GET", m.url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", m.id)
	get.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 64<<10)
		var pending string
		for {
			n, err := stream.Body.Read(buf)
			pending += string(buf[:n])
			for {
				i := strings.Index(pending, "\n")
				if i < 0 {
					break
				}
				if line := pending[:i]; strings.HasPrefix(line, "data: ") {
					lines <- strings.TrimPrefix(line, "data: ")
				}
				pending = pending[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()

	// Before any privileged call the session is nobody's.
	if n := tb.webhooks.Notify(ctx, "key-"+p.jkt, []byte(`{"event":"booking.confirmed"}`)); n != 0 {
		t.Fatalf("an anonymous session got %d notifications", n)
	}
	args := p.args(map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, p, 5)})
	proof, _ := pop.Sign(p.priv, pop.MCP, p.claims(t, "usp_availability_hold", args, ""))
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "usp_availability_hold", "arguments": authorize(args, usp.MechanismPoP, "", proof)}})
	if resp, body := m.post(string(call)); resp.StatusCode != 200 || !strings.Contains(body, `"hold"`) {
		t.Fatalf("hold on the raw session: %d %s", resp.StatusCode, body)
	}
	if n := tb.webhooks.Notify(ctx, "key-someone-else", []byte(`{}`)); n != 0 {
		t.Fatalf("another platform's webhook reached %d streams", n)
	}
	payload := `{"event":"booking.confirmed","event_id":"evt_X_0000000002","booking_id":"X","timestamp":"2026-03-01T12:00:00Z"}`
	if n := tb.webhooks.Notify(ctx, "key-"+p.jkt, []byte(payload)); n != 1 {
		t.Fatalf("the platform's webhook reached %d streams, want 1", n)
	}
	select {
	case line := <-lines:
		var msg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if _, hasID := msg["id"]; hasID || string(msg["method"]) != `"usp_webhook"` || string(msg["params"]) != payload {
			t.Fatalf("notification = %s", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification on the stream")
	}
}

// TestNonceChallenge: with nonces required, a proof without one is
// refused with proof_nonce_required and the nonce to use (data.nonce over
// MCP, DPoP-Nonce over REST); the same call with a fresh proof carrying
// it passes.
func TestNonceChallenge(t *testing.T) {
	tb := startTrustWith(t, func(v *pop.Verifier) {
		v.Nonces = pop.MACNonces{Secret: bytes.Repeat([]byte{9}, 32), Rand: rand.Reader, Lifetime: 5 * time.Minute}
	})
	a := tb.keyPlatform(t, 8, "/pop.json")
	create := map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, a, 7), "buyer": buyer()}
	_, err := a.signed(t, "usp_bookings_create", create, "")
	refusedWith(t, "a proof without a nonce", err, "proof_nonce_required")
	var rpc *jsonrpc.Error
	errors.As(err, &rpc)
	var data struct{ Nonce string }
	json.Unmarshal(rpc.Data, &data)
	if data.Nonce == "" {
		t.Fatalf("no data.nonce in %s", rpc.Data)
	}
	args := a.args(create)
	c := a.claims(t, "usp_bookings_create", args, "")
	c.Nonce = data.Nonce
	proof, _ := pop.Sign(a.priv, pop.MCP, c)
	made, err := a.call(t, "usp_bookings_create", authorize(args, usp.MechanismPoP, "", proof))
	if err != nil || made["booking"] == nil {
		t.Fatalf("create with the nonce: %v %v", made, err)
	}

	path := "/usp/bookings/" + made["booking"].(map[string]any)["id"].(string)
	dpop := func(nonce string) string {
		p, _ := pop.Sign(a.priv, pop.REST, pop.Claims{HTM: "GET", HTU: usptest.Origin + path, IAT: tb.clock.Now().Unix(), JTI: fmt.Sprintf("n-%d", a.jti.Add(1)), Nonce: nonce})
		return p
	}
	agent := `profile="` + a.profile + `"`
	resp, err := http.DefaultClient.Do(tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": agent, "DPoP": dpop("")}}))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != 401 || nonce == "" {
		t.Fatalf("REST without a nonce: %d, DPoP-Nonce %q", resp.StatusCode, nonce)
	}
	if status, doc := tb.send(t, tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": agent, "DPoP": dpop(nonce)}})); status != 200 {
		t.Fatalf("REST with the nonce: %d %v", status, doc)
	}
}

// TestCredentialEndsWithItsBooking: whatever ends a platform's booking
// (the platform's cancel, staff declining, cancelling or completing it,
// the sweep expiring it) deletes its credential in the same write, and
// the booking's other doors still answer; a confirmation keeps it.
func TestCredentialEndsWithItsBooking(t *testing.T) {
	tb := startTrust(t)
	a := tb.keyPlatform(t, 31, "/pop.json")
	create := func(n int) (id, value string) {
		t.Helper()
		out, err := a.signed(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, a, n), "buyer": buyer()}, "")
		if err != nil || out["booking"] == nil {
			t.Fatalf("create: %v %v", out, err)
		}
		id = out["booking"].(map[string]any)["id"].(string)
		if tb.credentials(t, id) != 1 {
			t.Fatalf("booking %s was issued no stored credential", id)
		}
		return id, out["booking_scoped_credential"].(map[string]any)["value"].(string)
	}
	staff := func(to reservation.State) func(t *testing.T, id, value string) {
		return func(t *testing.T, id, _ string) {
			if _, _, err := tb.bookings.Core().Decide(context.Background(), reservation.Decision{Reference: id, To: to, By: "desk"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	confirmThen := func(to reservation.State) func(t *testing.T, id, value string) {
		return func(t *testing.T, id, value string) {
			staff(reservation.Confirmed)(t, id, value)
			if n := tb.credentials(t, id); n != 1 {
				t.Fatalf("confirming left %d credentials, want the one", n)
			}
			staff(to)(t, id, value)
		}
	}
	for i, c := range []struct {
		name string
		end  func(t *testing.T, id, value string)
	}{
		{"cancelled by the platform", func(t *testing.T, id, value string) {
			if out, err := a.signed(t, "usp_bookings_cancel", map[string]any{"booking_id": id}, value); err != nil || out["booking"].(map[string]any)["status"] != "canceled" {
				t.Fatalf("cancel: %v %v", out, err)
			}
		}},
		{"declined by staff", staff(reservation.Declined)},
		{"cancelled by staff", confirmThen(reservation.Cancelled)},
		{"completed", confirmThen(reservation.Completed)},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, value := create(i)
			c.end(t, id, value)
			if n := tb.credentials(t, id); n != 0 {
				t.Fatalf("%d credentials left after the booking ended", n)
			}
			if got, err := a.signed(t, "usp_bookings_get", map[string]any{"booking_id": id}, ""); err != nil || got["booking"] == nil {
				t.Fatalf("the ended booking by its platform's key: %v %v", got, err)
			}
		})
	}
	t.Run("expired by the sweep", func(t *testing.T) {
		id, _ := create(6)
		tb.clock.Advance(48 * time.Hour) // past the slot: a pending booking lapses
		if n, err := tb.business.Expire(context.Background()); err != nil || n == 0 {
			t.Fatalf("expire = %d, %v", n, err)
		}
		if n := tb.credentials(t, id); n != 0 {
			t.Fatalf("%d credentials left after the booking expired", n)
		}
	})
}

// TestProofOfPossessionOverREST is the black-box list on the REST
// binding, where a proof is a DPoP header (htm and htu in place of usp_m
// and aud; REST proofs do not cover the body, which an RFC 9421
// signature's Content-Digest does): a replayed proof, a proof for another
// origin, alg none, a substituted curve, a proof or signature for another
// request, a credential without its proof or with another key's, another
// platform reading the booking and a platform confirming are all refused.
func TestProofOfPossessionOverREST(t *testing.T) {
	tb := startTrust(t)
	a := tb.keyPlatform(t, 41, "/pop.json")
	b := tb.keyPlatform(t, 42, "/other.json")
	claims := func(p *keyPlatform, method, target, cred string) pop.Claims {
		c := pop.Claims{HTM: method, HTU: target, IAT: tb.clock.Now().Unix(), JTI: fmt.Sprintf("rest-%d", p.jti.Add(1))}
		if cred != "" {
			c.ATH = pop.Hash(cred)
		}
		return c
	}
	dpop := func(p *keyPlatform, method, path, cred string) string {
		t.Helper()
		proof, err := pop.Sign(p.priv, pop.REST, claims(p, method, usptest.Origin+path, cred))
		if err != nil {
			t.Fatal(err)
		}
		return proof
	}
	agent := func(p *keyPlatform) string { return `profile="` + p.profile + `"` }

	body := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, shuttleSlot(t, a, 4))
	createProof := dpop(a, "POST", "/usp/bookings", "")
	status, doc := tb.send(t, tb.request(t, rest{"POST", "/usp/bookings", body, map[string]string{"USP-Agent": agent(a), "DPoP": createProof}}))
	if status != http.StatusCreated {
		t.Fatalf("DPoP create: %d %v", status, doc)
	}
	id := doc["booking"].(map[string]any)["id"].(string)
	value := doc["booking_scoped_credential"].(map[string]any)["value"].(string)
	path := "/usp/bookings/" + id
	pubA, _ := jwk.FromPublic(a.priv.Public(), "")
	x := pubA.Publish().X

	// get sends a GET of the booking with the given DPoP proof and
	// Authorization value (none when empty).
	get := func(p *keyPlatform, proof, authorization string) (int, map[string]any) {
		h := map[string]string{"USP-Agent": agent(p)}
		if proof != "" {
			h["DPoP"] = proof
		}
		if authorization != "" {
			h["Authorization"] = authorization
		}
		return tb.send(t, tb.request(t, rest{"GET", path, "", h}))
	}
	if status, doc := get(a, dpop(a, "GET", path, ""), ""); status != 200 || doc["booking"].(map[string]any)["id"] != id {
		t.Fatalf("get by the booking's key: %d %v", status, doc)
	}
	signedAgent := `profile="` + tb.plat.URL + `/signed.json"`
	cases := []struct {
		name   string
		send   func() (int, map[string]any)
		status int
		code   string
	}{
		{"replayed proof", func() (int, map[string]any) {
			return tb.send(t, tb.request(t, rest{"POST", "/usp/bookings", body, map[string]string{"USP-Agent": agent(a), "DPoP": createProof}}))
		}, 401, "pop_proof_replayed"},
		{"proof for another origin", func() (int, map[string]any) {
			p, _ := pop.Sign(a.priv, pop.REST, claims(a, "GET", "https://elsewhere.example"+path, ""))
			return get(a, p, "")
		}, 401, "pop_proof_invalid"},
		{"alg none", func() (int, map[string]any) {
			p := forge(a.priv, map[string]any{"alg": "none", "typ": "dpop+jwt", "jwk": map[string]string{"kty": "OKP", "crv": "Ed25519", "x": x}}, claims(a, "GET", usptest.Origin+path, ""), false)
			return get(a, p, "")
		}, 401, "pop_proof_invalid"},
		{"substituted curve", func() (int, map[string]any) {
			p := forge(a.priv, map[string]any{"alg": "EdDSA", "typ": "dpop+jwt", "jwk": map[string]string{"kty": "OKP", "crv": "X448", "x": x}}, claims(a, "GET", usptest.Origin+path, ""), true)
			return get(a, p, "")
		}, 401, "pop_proof_invalid"},
		{"proof for another method", func() (int, map[string]any) {
			return tb.send(t, tb.request(t, rest{"POST", path + "/cancel", `{}`, map[string]string{"USP-Agent": agent(a), "DPoP": dpop(a, "GET", path+"/cancel", "")}}))
		}, 401, "pop_proof_invalid"},
		{"signature moved to another path", func() (int, map[string]any) {
			signed := tb.request(t, rest{"GET", "/usp/bookings/" + id + "x", "", map[string]string{"USP-Agent": signedAgent}})
			sign(t, signed, "", "platform-2026", tb.signer)
			moved := tb.request(t, rest{"GET", path, "", map[string]string{"USP-Agent": signedAgent}})
			for _, h := range []string{"Signature", "Signature-Input"} {
				moved.Header.Set(h, signed.Header.Get(h))
			}
			return tb.send(t, moved)
		}, 401, "signature_invalid"},
		{"credential without its proof", func() (int, map[string]any) {
			return get(a, "", "DPoP "+value)
		}, 401, "pop_proof_missing"},
		{"credential as a bearer token", func() (int, map[string]any) {
			return get(a, "", "Bearer "+value)
		}, 401, "pop_proof_missing"},
		{"credential with another key's proof", func() (int, map[string]any) {
			return get(b, dpop(b, "GET", path, value), "DPoP "+value)
		}, 401, "pop_key_mismatch"},
		{"another platform's key", func() (int, map[string]any) {
			return get(b, dpop(b, "GET", path, ""), "")
		}, 404, "booking_not_found"},
		{"a platform confirms with its key", func() (int, map[string]any) {
			return tb.send(t, tb.request(t, rest{"POST", path + "/confirm", `{}`, map[string]string{"USP-Agent": agent(a), "DPoP": dpop(a, "POST", path+"/confirm", "")}}))
		}, 401, "authentication_required"},
		{"a platform confirms with the credential", func() (int, map[string]any) {
			return tb.send(t, tb.request(t, rest{"POST", path + "/confirm", `{}`, map[string]string{"USP-Agent": agent(a), "Authorization": "DPoP " + value, "DPoP": dpop(a, "POST", path+"/confirm", value)}}))
		}, 401, "authentication_required"},
		{"a signing platform confirms", func() (int, map[string]any) {
			r := tb.request(t, rest{"POST", path + "/confirm", `{}`, map[string]string{"USP-Agent": signedAgent}})
			sign(t, r, `{}`, "platform-2026", tb.signer)
			return tb.send(t, r)
		}, 401, "authentication_required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, doc := c.send()
			problem(t, c.name, status, doc, c.status, c.code)
		})
	}
	// None of it changed the booking.
	if status, doc := get(a, dpop(a, "GET", path, value), "DPoP "+value); status != 200 || doc["booking"].(map[string]any)["status"] != "pending" {
		t.Fatalf("the booking after the refusals: %d %v", status, doc)
	}
}

// TestProfileAdvertisesAlgorithms: the authorization policy names, for
// each accepted mechanism that signs, the algorithms it accepts
// (§10.1.6), and an ES256 proof is refused with a message naming EdDSA.
func TestProfileAdvertisesAlgorithms(t *testing.T) {
	tb := startTrust(t)
	var doc struct {
		Authorization struct {
			Mechanisms []string            `json:"accepted_mechanisms"`
			Algorithms map[string][]string `json:"accepted_algorithms"`
		} `json:"authorization"`
	}
	if err := json.Unmarshal(tb.business.ProfileJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		usp.MechanismPoP:        {"EdDSA"},
		usp.MechanismCredential: {"EdDSA"},
		usp.MechanismSignature:  {"ecdsa-p256-sha256", "ed25519"},
	}
	for _, m := range doc.Authorization.Mechanisms {
		if w, ok := want[m]; ok && !slices.Equal(doc.Authorization.Algorithms[m], w) {
			t.Errorf("accepted_algorithms[%s] = %v, want %v", m, doc.Authorization.Algorithms[m], w)
		}
		if _, ok := want[m]; !ok && doc.Authorization.Algorithms[m] != nil {
			t.Errorf("accepted_algorithms[%s] = %v for a mechanism that signs nothing", m, doc.Authorization.Algorithms[m])
		}
	}
	if len(doc.Authorization.Algorithms) != 3 {
		t.Fatalf("accepted_algorithms = %v, want the three signing mechanisms", doc.Authorization.Algorithms)
	}

	a := tb.keyPlatform(t, 9, "/pop.json")
	args := a.args(map[string]any{"service_id": "svc_airport_shuttle", "slot_id": shuttleSlot(t, a, 0), "buyer": buyer()})
	pubA, _ := jwk.FromPublic(a.priv.Public(), "")
	p := forge(a.priv, map[string]any{"alg": "ES256", "typ": "usp-pop+jwt", "jwk": map[string]string{"kty": "OKP", "crv": "Ed25519", "x": pubA.Publish().X}}, a.claims(t, "usp_bookings_create", args, ""), true)
	_, err := a.call(t, "usp_bookings_create", authorize(args, usp.MechanismPoP, "", p))
	refusedWith(t, "ES256 proof", err, "pop_proof_invalid")
	var rpc *jsonrpc.Error
	errors.As(err, &rpc)
	if !strings.Contains(string(rpc.Data), "EdDSA") {
		t.Fatalf("ES256 proof refused with %s, want a message naming EdDSA", rpc.Data)
	}
}
