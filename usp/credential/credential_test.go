package credential

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/jwk"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp/pop"
)

const profile = "https://business.example.com/.well-known/usp"

var (
	t0       = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	platform = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	other    = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
)

type world struct {
	db       store.Store
	issuer   Issuer
	verifier *pop.Verifier
}

// engines open each store engine; PostgreSQL is skipped without
// FRONTDESK_TEST_POSTGRES.
var engines = map[string]func(t *testing.T) store.Store{
	"sqlite": func(t *testing.T) store.Store {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "frontdesk.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db
	},
	"postgres": func(t *testing.T) store.Store {
		db, err := postgres.Open(t.Context(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		return db
	},
}

func newWorld(t *testing.T) world { return newWorldOn(t, "sqlite") }

func newWorldOn(t *testing.T, engine string) world {
	t.Helper()
	db := engines[engine](t)
	t.Cleanup(func() { db.Close() })
	return world{
		db:       db,
		issuer:   Issuer{Records: db, Rand: bytes.NewReader(bytes.Repeat([]byte{0xA5, 0x3C, 0x11}, 100))},
		verifier: &pop.Verifier{Audiences: []string{profile}, Replay: pop.StoreReplay{Records: db}},
	}
}

func jktOf(t *testing.T, priv ed25519.PrivateKey) string {
	t.Helper()
	k, err := jwk.FromPublic(priv.Public(), "")
	if err != nil {
		t.Fatal(err)
	}
	return k.Thumbprint()
}

var jtis int

// present builds the MCP call a platform holding priv makes on booking:
// its arguments and, unless priv is nil, a proof over them.
func present(t *testing.T, priv ed25519.PrivateKey, booking, value string) Presentation {
	t.Helper()
	args := json.RawMessage(`{"booking_id":"` + booking + `","_meta":{"usp":{"profile":"https://agent.example/p.json","authorization":{"mechanism":"booking_scoped_credential","credential":"` + value + `"}}}}`)
	req := pop.Request{Binding: pop.MCP, Method: "usp_bookings_get", Arguments: args}
	if priv != nil {
		_, digest, err := pop.CanonicalParams(args)
		if err != nil {
			t.Fatal(err)
		}
		jtis++
		req.Proof, err = pop.Sign(priv, pop.MCP, pop.Claims{USPM: "usp_bookings_get", Aud: profile, USPP: digest, IAT: t0.Unix(), JTI: "j" + string(rune('a'+jtis)), ATH: pop.Hash(value)})
		if err != nil {
			t.Fatal(err)
		}
	}
	return Presentation{Resource: booking, Credential: value, Proof: req}
}

func TestIssuedCredential(t *testing.T) {
	w := newWorld(t)
	jkt := jktOf(t, platform)
	c, err := w.issuer.Issue(t.Context(), "bkg_1", jkt, t0.Add(90*24*time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Value, Prefix) || len(c.Value) < 26 || c.CNF == nil || c.CNF.JKT != jkt || c.ExpiresAt != "2027-03-01T09:00:00Z" {
		t.Fatalf("issued %+v", c)
	}
	// Only a hash is stored: neither the key nor the value holds the
	// credential.
	recs, err := w.db.List(t.Context(), Kind, "", "", 10)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %v, %v", recs, err)
	}
	secret := strings.TrimPrefix(c.Value, Prefix)
	if strings.Contains(recs[0].Key, secret) || bytes.Contains(recs[0].Value, []byte(secret)) {
		t.Fatalf("stored record holds the credential: %s %s", recs[0].Key, recs[0].Value)
	}
	// The same random bytes give the same value; fresh bytes another.
	again, _, err := Issuer{Rand: bytes.NewReader(bytes.Repeat([]byte{0xA5, 0x3C, 0x11}, 100))}.New("bkg_1", jkt, t0.Add(time.Hour), t0)
	if err != nil || again.Value != c.Value {
		t.Fatalf("New with the same randomness = %s, want %s", again.Value, c.Value)
	}
}

func TestAuthorize(t *testing.T) {
	for engine := range engines {
		t.Run(engine, func(t *testing.T) { testAuthorize(t, newWorldOn(t, engine)) })
	}
}

func testAuthorize(t *testing.T, w world) {
	ctx := context.Background()
	bound, err := w.issuer.Issue(ctx, "bkg_1", jktOf(t, platform), t0.Add(time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	bearer, err := w.issuer.Issue(ctx, "bkg_2", "", t0.Add(time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.issuer.Authorize(ctx, t0, w.verifier, present(t, platform, "bkg_1", bound.Value))
	if err != nil || g.Resource != "bkg_1" || g.JKT != jktOf(t, platform) {
		t.Fatalf("bound credential with its proof = %+v, %v", g, err)
	}
	if g, err := w.issuer.Authorize(ctx, t0, w.verifier, present(t, nil, "bkg_2", bearer.Value)); err != nil || g.JKT != "" {
		t.Fatalf("unbound credential = %+v, %v", g, err)
	}

	tests := []struct {
		name string
		p    Presentation
		now  time.Time
		want string
	}{
		{"bound credential without its proof", present(t, nil, "bkg_1", bound.Value), t0, string(pop.CodeMissing)},
		{"bound credential with another key's proof", present(t, other, "bkg_1", bound.Value), t0, string(pop.CodeKeyMismatch)},
		{"credential of another booking", present(t, platform, "bkg_2", bound.Value), t0, string(CodeAuthenticationRequired)},
		{"bearer credential of another booking", present(t, nil, "bkg_1", bearer.Value), t0, string(CodeAuthenticationRequired)},
		{"made-up credential", present(t, platform, "bkg_1", "bsc_AAAAAAAAAAAAAAAAAAAAAAAAAAA"), t0, string(CodeAuthenticationRequired)},
		{"not a credential", present(t, platform, "bkg_1", "sk_live_1"), t0, string(CodeAuthenticationRequired)},
		{"at its expiry", present(t, platform, "bkg_1", bound.Value), t0.Add(time.Hour), string(CodeAuthenticationRequired)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.issuer.Authorize(ctx, tt.now, w.verifier, tt.p)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Authorize = %v, want %s", err, tt.want)
			}
		})
	}
}

func codeOf(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return string(e.Code)
	}
	if e, ok := errors.AsType[*pop.Error](err); ok {
		return string(e.Code)
	}
	return ""
}

// TestInvalidationAtTerminalStatus applies the invalidation in the same
// Apply as the status change it belongs to, and leaves other bookings'
// credentials alone.
func TestInvalidationAtTerminalStatus(t *testing.T) {
	for engine := range engines {
		t.Run(engine, func(t *testing.T) { testInvalidation(t, newWorldOn(t, engine)) })
	}
}

func testInvalidation(t *testing.T, w world) {
	ctx := context.Background()
	first, _ := w.issuer.Issue(ctx, "bkg_1", jktOf(t, platform), t0.Add(time.Hour), t0)
	second, _ := w.issuer.Issue(ctx, "bkg_1", jktOf(t, platform), t0.Add(time.Hour), t0) // a second creation response, as a retried create gets
	neighbour, _ := w.issuer.Issue(ctx, "bkg_10", jktOf(t, platform), t0.Add(time.Hour), t0)

	writes, err := w.issuer.InvalidationWrites(ctx, "bkg_1")
	if err != nil || len(writes) != 2 {
		t.Fatalf("InvalidationWrites = %d writes, %v; want 2", len(writes), err)
	}
	status := store.Record{Kind: "test-status", Key: "bkg_1", Value: []byte(`"cancelled"`), UpdatedAt: t0}
	if _, err := w.db.Apply(ctx, append(writes, store.Write{Op: store.OpCreate, Record: status})); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{first.Value, second.Value} {
		if _, err := w.issuer.Authorize(ctx, t0, w.verifier, present(t, platform, "bkg_1", v)); codeOf(err) != string(CodeAuthenticationRequired) {
			t.Fatalf("invalidated credential = %v, want %s", err, CodeAuthenticationRequired)
		}
	}
	if _, err := w.issuer.Authorize(ctx, t0, w.verifier, present(t, platform, "bkg_10", neighbour.Value)); err != nil {
		t.Fatalf("neighbouring booking's credential: %v", err)
	}
	if err := w.issuer.Invalidate(ctx, "bkg_10"); err != nil {
		t.Fatal(err)
	}
	if err := w.issuer.Invalidate(ctx, "bkg_10"); err != nil {
		t.Fatalf("invalidating twice: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy source down") }

func TestBadIssueChangesNothing(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for name, is := range map[string]Issuer{"failing randomness": {Records: w.db, Rand: failingReader{}}} {
		if _, err := is.Issue(ctx, "bkg_1", "", t0.Add(time.Hour), t0); err == nil {
			t.Errorf("%s: Issue succeeded", name)
		}
	}
	for _, tt := range []struct {
		resource string
		expires  time.Time
	}{{"", t0.Add(time.Hour)}, {"a/b", t0.Add(time.Hour)}, {"bkg_1", t0}} {
		if _, err := w.issuer.Issue(ctx, tt.resource, "", tt.expires, t0); err == nil {
			t.Errorf("Issue(%q, %s) succeeded", tt.resource, tt.expires)
		}
	}
	if recs, err := w.db.List(ctx, Kind, "", "", 10); err != nil || len(recs) != 0 {
		t.Fatalf("refused issues left %d records, %v", len(recs), err)
	}
}

// TestSweepDeletesWhatOpensNothing: expired credentials and those of
// ended resources go; the rest stay and still authorize.
func TestSweepDeletesWhatOpensNothing(t *testing.T) {
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			w := newWorldOn(t, engine)
			ctx := context.Background()
			jkt := jktOf(t, platform)
			live, _ := w.issuer.Issue(ctx, "bkg_live", jkt, t0.Add(48*time.Hour), t0)
			w.issuer.Issue(ctx, "bkg_old", jkt, t0.Add(time.Hour), t0)
			w.issuer.Issue(ctx, "bkg_done", jkt, t0.Add(48*time.Hour), t0)
			ended := func(_ context.Context, resource string) (bool, error) { return resource == "bkg_done", nil }
			n, err := w.issuer.Sweep(ctx, t0.Add(2*time.Hour), ended)
			if err != nil || n != 2 {
				t.Fatalf("Sweep = %d, %v; want 2", n, err)
			}
			left, _ := w.db.List(ctx, Kind, "", "", 100)
			if len(left) != 1 || !strings.HasPrefix(left[0].Key, "bkg_live/") {
				t.Fatalf("left %v", left)
			}
			if _, err := w.issuer.Authorize(ctx, t0, w.verifier, present(t, platform, "bkg_live", live.Value)); err != nil {
				t.Fatalf("the live credential after a sweep: %v", err)
			}
			if n, err := w.issuer.Sweep(ctx, t0.Add(2*time.Hour), ended); err != nil || n != 0 {
				t.Fatalf("second Sweep = %d, %v", n, err)
			}
		})
	}
}
