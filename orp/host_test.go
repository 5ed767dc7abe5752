package orp_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/outbound"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/orp"
	"frontdesk/orp/schema"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// testAddr is the network address tests send from.
const testAddr = "192.0.2.1"

// testSites are the owner's sites in tests: the spec's example merchants.
var testSites = []string{"acmenotes.example", "notes.example"}

// t0 is the fixed start of every test: the spec's own example day.
var t0 = time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)

// newSeeded is a deterministic random source, so ids repeat run to run.
func newSeeded() io.Reader {
	var seed [32]byte
	copy(seed[:], "frontdesk orp tests seed 0000001")
	return random.Seeded(seed)
}

type env struct {
	t     *testing.T
	host  *orp.Host
	clock *clock.Fixed
	db    store.Store
	dir   string
	// lastAccept is the acceptor's accept in activeDeal, for chain tests.
	lastAccept []byte
	// publicOnly makes newHost refuse proof pages on private addresses,
	// as production does; tests serve their pages on loopback.
	publicOnly bool
	// witnesses are the verifiers newHost names.
	witnesses []string
	// claims and dial are newHost's claims check and page dialer.
	claims string
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	// fetcher is the host's page fetcher; nil is the real one.
	fetcher orp.Fetcher
	// journal is the click journal's directory, as serve keeps one next
	// to a SQLite store; empty keeps clicks in the store, as on
	// PostgreSQL. openJournal opens its files (nil: the real ones).
	journal     string
	openJournal func(path string) (orp.JournalFile, error)
	// attestation turns on 0.4 attest (§20.7).
	attestation bool
	// messagesPerMinute is each party's message limit; 0 is the host's
	// default.
	messagesPerMinute int
}

func openDB(t *testing.T, dir string) store.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "orp.db"))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, clock: clock.NewFixed(t0), dir: t.TempDir()}
	e.journal = filepath.Join(e.dir, "clicks")
	e.db = openDB(t, e.dir)
	t.Cleanup(func() { e.db.Close() })
	e.host = e.newHost(e.db)
	return e
}

// newEnvPG is newEnv on a fresh PostgreSQL schema; it skips the test
// when FRONTDESK_TEST_POSTGRES is unset.
func newEnvPG(t *testing.T) *env {
	t.Helper()
	pgtest.DSN(t)
	e := &env{t: t, clock: clock.NewFixed(t0), dir: t.TempDir()}
	db, err := postgres.Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { e.db.Close() })
	e.host = e.newHost(e.db)
	return e
}

// engines runs f on SQLite and, when configured, on PostgreSQL.
func engines(t *testing.T, f func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) { f(t, newEnv(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, newEnvPG(t)) })
}

func (e *env) newHost(db store.Records) *orp.Host {
	// The host signs with the fixed test key (l3_helpers_test.go), so
	// signed golden bytes repeat.
	var journal *orp.ClickJournal
	if e.journal != "" {
		j, err := orp.OpenClickJournal(context.Background(), e.journal, db, e.openJournal)
		if err != nil {
			e.t.Fatal(err)
		}
		journal = j
	}
	h, err := orp.New(orp.Options{Store: db, ClickJournal: journal, Clock: e.clock, Rand: newSeeded(), Origin: "https://hub.example",
		Name: "Hub Example", TermsURL: "https://hub.example/terms", PrivacyURL: "https://hub.example/privacy",
		Sites: testSites, BlockedDomains: []string{"blocked.example"}, Signer: orp.NewSigner("host-test", hostKey),
		ProviderSecrets: map[string]string{"stripe": testWebhookSecret}, ResolverToken: testResolverToken,
		Fetcher: e.fetcher, Outbound: outbound.Rule{Loopback: !e.publicOnly}, Witnesses: e.witnesses, Claims: e.claims, FetchDial: e.dial,
		Attestation: e.attestation, MessagesPerMinute: e.messagesPerMinute})
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

type party struct {
	id, token, claim string
	n                int
	key              ed25519.PrivateKey
}

func (e *env) join(body string) *party {
	e.t.Helper()
	r, err := e.host.Join(context.Background(), []byte(body), "192.0.2.1")
	if err != nil {
		e.t.Fatalf("join: %v", err)
	}
	return &party{id: r.Party, token: r.Token, claim: r.Claim}
}

// msg builds a message from p with a fresh id and the current time.
func (e *env) msg(p *party, typ string, extra map[string]any, body any) []byte {
	p.n++
	m := map[string]any{"orp": "0.3", "type": typ, "id": fmt.Sprintf("m_test_%04d", p.n), "ts": e.clock.Now().Format(time.RFC3339), "from": p.id, "body": body}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	if p.key != nil {
		sig, err := orp.SignDetached(b, "k1", p.key)
		if err != nil {
			e.t.Fatal(err)
		}
		m["sig"] = sig
		b, _ = json.Marshal(m)
	}
	return b
}

// send posts raw for p and decodes the reply.
func (e *env) send(p *party, raw []byte) (orp.Reply, map[string]any) {
	e.t.Helper()
	token := ""
	if p != nil {
		token = p.token
	}
	r := e.host.Send(context.Background(), token, testAddr, raw)
	var m map[string]any
	if len(r.Body) > 0 {
		if err := json.Unmarshal(r.Body, &m); err != nil {
			e.t.Fatalf("reply is not JSON: %s", r.Body)
		}
		e.mustValidate(schema.Message, r.Body)
	}
	return r, m
}

func (e *env) mustValidate(name string, b []byte) {
	e.t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	d.Decode(&v)
	if err := e.host.Schemas().Validate(name, v); err != nil {
		e.t.Fatalf("host output does not validate against %s: %v\n%s", name, err, b)
	}
}

func body(m map[string]any) map[string]any { b, _ := m["body"].(map[string]any); return b }

func errCode(m map[string]any) string { s, _ := body(m)["code"].(string); return s }

var affiliateTerms = map[string]any{
	"title": "Acme Notes: 30% of first-year revenue", "kind": "affiliate", "categories": []string{"software.productivity"},
	"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "must_not_include": []string{"free forever"}},
			"destination": "https://acmenotes.example/pricing", "proof": []string{"link"}},
		map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "window": "P30D", "rail": "stripe", "proof": []string{"provider"}},
	},
}

// termsHash of affiliateTerms is the spec's own vector.
const affiliateHash = "sha256-Bti4pak22vzeA0HAuX0eLXhUQy1pnbf9YGiGKYgJpNo"

// approve POSTs the approval as the waiting party's agent would.
func (e *env) approve(p *party, url string) map[string]any {
	e.t.Helper()
	esc := url[strings.LastIndex(url, "/")+1:]
	b, err := e.host.Approve(context.Background(), p.token, esc)
	if err != nil {
		e.t.Fatalf("approve: %v", err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	e.mustValidate(schema.Message, b)
	return m
}

// listOffer lists affiliateTerms as a standing offer from p and approves
// the list step.
func (e *env) listOffer(p *party) string {
	e.t.Helper()
	r, m := e.send(p, e.msg(p, "offer", nil, map[string]any{"terms": affiliateTerms, "limit": 500}))
	if r.Status != 200 || body(m)["status"] != "waiting" {
		e.t.Fatalf("offer = %d %v, want 200 waiting", r.Status, m)
	}
	w := body(m)["waiting"].(map[string]any)
	listed := e.approve(p, w["url"].(string))
	if body(listed)["status"] != "listed" || body(listed)["terms_hash"] != affiliateHash {
		e.t.Fatalf("approved offer = %v", listed)
	}
	return body(listed)["id"].(string)
}

// activeDeal returns an active affiliate deal between a fresh offerer and
// acceptor, and the acceptor's tracked link.
func (e *env) activeDeal() (offerer, acceptor *party, deal, link string) {
	e.t.Helper()
	offerer, acceptor = e.join("{}"), e.join("{}")
	offer := e.listOffer(offerer)
	e.lastAccept = e.msg(acceptor, "accept", nil, map[string]any{"offer": offer, "terms_hash": affiliateHash})
	r, m := e.send(acceptor, e.lastAccept)
	if r.Status != 200 || body(m)["state"] != "awaiting" {
		e.t.Fatalf("accept = %d %v", r.Status, m)
	}
	deal = m["deal"].(string)
	w := body(m)["waiting"].(map[string]any)
	active := e.approve(acceptor, w["url"].(string))
	if body(active)["state"] != "active" {
		e.t.Fatalf("approved deal = %v", active)
	}
	tr := body(active)["tracking"].([]any)[0].(map[string]any)
	return offerer, acceptor, deal, tr["link"].(string)
}

func (e *env) click(link string, hdr map[string]string, method string) string {
	e.t.Helper()
	u, _ := url.Parse(link)
	token := strings.TrimPrefix(u.Path, "/go/")
	h := http.Header{}
	for k, v := range hdr {
		h.Set(k, v)
	}
	if method == "" {
		method = http.MethodGet
	}
	return e.host.Redirect(context.Background(), token, orp.Click{Method: method, Query: u.Query(), Header: h, Address: "198.51.100.7"})
}

func (e *env) inbox(p *party) []map[string]any {
	e.t.Helper()
	page, err := e.host.Inbox(context.Background(), p.token, "")
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, raw := range page.Messages {
		var m map[string]any
		json.Unmarshal(raw, &m)
		out = append(out, m)
	}
	return out
}

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("schema", "testdata", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newKey(t *testing.T) (ed25519.PrivateKey, string) {
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	k := ed25519.NewKeyFromSeed(seed)
	return k, base64.RawURLEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
}

// claimByMail claims the party behind claimURL as a person would
// without a passkey: the one-time link mailed to email, used once. It
// returns the owner's session.
func (e *env) claimByMail(claimURL, email string) orp.OwnerSession {
	e.t.Helper()
	ctx := context.Background()
	link, err := e.host.StartEmailClaim(ctx, claimURL[strings.LastIndex(claimURL, "/")+1:], email)
	if err != nil {
		e.t.Fatal(err)
	}
	token, err := e.host.UseMailLink(ctx, link)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := e.host.OwnerSession(ctx, token)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}
