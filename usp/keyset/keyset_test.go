package keyset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func seeded(b byte) io.Reader { return bytes.NewReader(bytes.Repeat([]byte{b, b + 1, b + 2}, 400)) }

func openSQLite(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// webhook signs a webhook at now with the set, as the outbox will.
func webhook(t *testing.T, s Set, now time.Time) (*http.Request, []byte) {
	t.Helper()
	body := []byte(`{"event":"booking.confirmed","event_id":"evt_1"}`)
	r, err := http.NewRequest("POST", "https://platform.example/hooks/usp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SignWebhook(context.Background(), now, r, body); err != nil {
		t.Fatal(err)
	}
	return r, body
}

// receiver verifies as a platform does: the keys from the business
// profile it fetched at now, a five-minute created window checked at the
// time the message arrives.
func receive(t *testing.T, s Set, published time.Time, arrived time.Time, r *http.Request, body []byte) error {
	t.Helper()
	pub, err := s.Published(context.Background(), published)
	if err != nil {
		t.Fatal(err)
	}
	var keys []json.RawMessage
	for _, k := range pub {
		b, _ := json.Marshal(k)
		keys = append(keys, b)
	}
	policy := httpsig.Policy{Required: []string{"@method", "@authority", "@path", "content-digest", "content-type"}, RequireCreated: true, MaxAge: 5 * time.Minute}
	if _, err := httpsig.Verify(context.Background(), httpsig.Request(r), arrived, ProfileKeys{Keys: keys}, policy); err != nil {
		return err
	}
	return httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body)
}

func TestRotationOverlap(t *testing.T) {
	db := openSQLite(t)
	clk := clock.NewFixed(t0)
	s := Set{Records: db, Rand: seeded(1), Lead: 10 * time.Minute, Grace: MinGrace}
	ctx := context.Background()
	if err := s.Ensure(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	old, err := s.Current(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	oldReq, oldBody := webhook(t, s, clk.Now())

	clk.Advance(time.Hour)
	rotatedAt := clk.Now()
	newID, err := s.Rotate(ctx, rotatedAt)
	if err != nil || newID == old.ID {
		t.Fatalf("Rotate = %s, %v", newID, err)
	}
	// During the lead the old key still signs and both are published.
	if k, _ := s.Current(ctx, rotatedAt.Add(5*time.Minute)); k.ID != old.ID {
		t.Fatalf("signing key during the lead = %s, want the old %s", k.ID, old.ID)
	}
	if pub, _ := s.Published(ctx, rotatedAt); len(pub) != 2 {
		t.Fatalf("published during the lead: %d keys, want 2", len(pub))
	}
	switchAt := rotatedAt.Add(10 * time.Minute)
	if k, _ := s.Current(ctx, switchAt); k.ID != newID {
		t.Fatalf("signing key after the lead = %s, want the new %s", k.ID, newID)
	}
	newReq, newBody := webhook(t, s, switchAt)
	if got := newReq.Header.Get("Signature-Input"); !bytes.Contains([]byte(got), []byte(`keyid="`+newID+`"`)) {
		t.Fatalf("new webhook signed as %s", got)
	}

	// In the overlap a verifier holding the current profile accepts both.
	overlap := switchAt.Add(MinGrace - time.Second)
	resolve := s.Resolver(overlap)
	for name, r := range map[string]*http.Request{"old": oldReq, "new": newReq} {
		if _, err := httpsig.Verify(ctx, httpsig.Request(r), overlap, resolve, httpsig.Policy{}); err != nil {
			t.Errorf("%s key in the overlap: %v", name, err)
		}
	}
	// A platform receiving the webhooks on time verifies each against
	// the profile it sees then.
	if err := receive(t, s, t0, t0.Add(time.Minute), oldReq, oldBody); err != nil {
		t.Errorf("old webhook at its platform: %v", err)
	}
	if err := receive(t, s, switchAt, switchAt.Add(time.Minute), newReq, newBody); err != nil {
		t.Errorf("new webhook at its platform: %v", err)
	}
	resent, resentBody := webhook(t, Set{Records: db, Rand: seeded(9), Lead: s.Lead, Grace: s.Grace}, rotatedAt) // signed by the old key during the lead, by another instance
	if err := receive(t, s, overlap, rotatedAt.Add(time.Minute), resent, resentBody); err != nil {
		t.Errorf("old-key webhook checked against the overlap profile: %v", err)
	}

	// After the grace the old key is gone: unpublished, not verifying,
	// and dropped from the record at the next rotation.
	after := switchAt.Add(MinGrace)
	if _, err := httpsig.Verify(ctx, httpsig.Request(oldReq), after, s.Resolver(after), httpsig.Policy{}); codeOf(err) != httpsig.CodeKeyNotFound {
		t.Fatalf("old key after the grace: %v, want %s", err, httpsig.CodeKeyNotFound)
	}
	if _, err := httpsig.Verify(ctx, httpsig.Request(newReq), after, s.Resolver(after), httpsig.Policy{}); err != nil {
		t.Fatalf("new key after the grace: %v", err)
	}
	if pub, _ := s.Published(ctx, after); len(pub) != 1 || pub[0].Kid != newID {
		t.Fatalf("published after the grace: %+v", pub)
	}
	if _, err := s.Rotate(ctx, after); err != nil {
		t.Fatal(err)
	}
	var stored storedSet
	r, _ := db.Get(ctx, Kind, key)
	if err := json.Unmarshal(r.Value, &stored); err != nil || len(stored.Keys) != 2 {
		t.Fatalf("stored set after a later rotation: %d keys, %v; want 2", len(stored.Keys), err)
	}
}

func codeOf(err error) httpsig.Code {
	if e, ok := errors.AsType[*httpsig.Error](err); ok {
		return e.Code
	}
	return ""
}

// TestKeysSurviveRestart: a new Set on the same database file signs with
// the same key.
func TestKeysSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	ctx := context.Background()
	var ids []string
	for i := range 2 {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		s := Set{Records: db, Rand: seeded(byte(10 * i))}
		if err := s.Ensure(ctx, t0); err != nil {
			t.Fatal(err)
		}
		k, err := s.Current(ctx, t0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, k.ID)
		db.Close()
	}
	if ids[0] != ids[1] {
		t.Fatalf("key after restart %s, before %s", ids[1], ids[0])
	}
}

// TestInstancesAgreeOnTheFirstKey: instances starting together on one
// PostgreSQL store create exactly one key between them.
func TestInstancesAgreeOnTheFirstKey(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	const n = 4
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s := Set{Records: db, Rand: seeded(byte(20 + i))}
		wg.Go(func() {
			if err := s.Ensure(ctx, t0); err != nil {
				t.Error(err)
				return
			}
			k, err := s.Current(ctx, t0)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = k.ID
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("instances sign with different keys: %v", ids)
		}
	}
}

func TestProfileKeysResolution(t *testing.T) {
	ec := json.RawMessage(`{"kid":"ec1","kty":"EC","crv":"P-256","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0","alg":"ES256","use":"sig"}`)
	ed := json.RawMessage(`{"kid":"ed1","kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}`)
	rsa := json.RawMessage(`{"kid":"rsa1","kty":"RSA","n":"AQAB","e":"AQAB"}`)
	enc := json.RawMessage(`{"kid":"enc1","kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"enc"}`)
	wrongAlg := json.RawMessage(`{"kid":"ed2","kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","alg":"ES256"}`)
	ctx := context.Background()

	p := ProfileKeys{Keys: []json.RawMessage{rsa, ec, ed, enc, wrongAlg}, SigningKeys: []json.RawMessage{ed}}
	if k, err := p.ResolveKey(ctx, "ec1"); err != nil || k.Algorithm != httpsig.ECDSAP256SHA256 {
		t.Fatalf("ec1 = %+v, %v", k, err)
	}
	if k, err := p.ResolveKey(ctx, "ed1"); err != nil || k.Algorithm != httpsig.Ed25519 {
		t.Fatalf("ed1 = %+v, %v", k, err)
	}
	for _, id := range []string{"rsa1", "enc1", "ed2", "nobody"} {
		if _, err := p.ResolveKey(ctx, id); !errors.Is(err, httpsig.ErrKeyNotFound) {
			t.Errorf("%s: %v, want ErrKeyNotFound", id, err)
		}
	}
	// keys wins over signing_keys when present, even without the kid; an
	// absent keys falls back.
	if _, err := (ProfileKeys{Keys: []json.RawMessage{}, SigningKeys: []json.RawMessage{ec}}).ResolveKey(ctx, "ec1"); !errors.Is(err, httpsig.ErrKeyNotFound) {
		t.Errorf("present but empty keys fell back to signing_keys: %v", err)
	}
	if _, err := (ProfileKeys{SigningKeys: []json.RawMessage{ec}}).ResolveKey(ctx, "ec1"); err != nil {
		t.Errorf("absent keys did not fall back to signing_keys: %v", err)
	}
}

func TestRefusedRotationChangesNothing(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	s := Set{Records: db, Rand: seeded(3)}
	if err := s.Ensure(ctx, t0); err != nil {
		t.Fatal(err)
	}
	before, _ := db.Get(ctx, Kind, key)
	broken := Set{Records: db, Rand: bytes.NewReader(nil)}
	if _, err := broken.Rotate(ctx, t0.Add(time.Hour)); err == nil {
		t.Fatal("Rotate without randomness succeeded")
	}
	after, _ := db.Get(ctx, Kind, key)
	if after.Version != before.Version || !bytes.Equal(after.Value, before.Value) {
		t.Fatal("a refused rotation changed the stored set")
	}
}

// TestWebhookOverLoopback delivers signed webhooks to a platform's
// receiver over real HTTP. The receiver knows only the business profile's
// published keys, as JSON, and records duplicates by event_id.
func TestWebhookOverLoopback(t *testing.T) {
	s := Set{Records: openSQLite(t), Rand: seeded(50)}
	ctx := context.Background()
	if err := s.Ensure(ctx, t0); err != nil {
		t.Fatal(err)
	}
	pub, err := s.Published(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	profile, _ := json.Marshal(map[string]any{"keys": pub, "signing_keys": pub})
	var fetched struct {
		Keys        []json.RawMessage `json:"keys"`
		SigningKeys []json.RawMessage `json:"signing_keys"`
	}
	if err := json.Unmarshal(profile, &fetched); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		policy := httpsig.Policy{Required: []string{"@method", "@authority", "@path", "content-digest", "content-type"}, RequireCreated: true, MaxAge: 5 * time.Minute}
		if _, err := httpsig.Verify(r.Context(), httpsig.Request(r), t0.Add(time.Minute), ProfileKeys(fetched), policy); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if err := httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var event struct {
			EventID string `json:"event_id"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen[event.EventID]++
		mu.Unlock()
	}))
	defer srv.Close()

	deliver := func(body string, tamper func(*http.Request)) int {
		r, err := http.NewRequest("POST", srv.URL+"/hooks/usp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SignWebhook(ctx, t0, r, []byte(body)); err != nil {
			t.Fatal(err)
		}
		tamper(r)
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	event := `{"event":"booking.confirmed","event_id":"evt_1","booking_id":"bkg_1"}`
	for range 2 {
		if got := deliver(event, func(*http.Request) {}); got != http.StatusOK {
			t.Fatalf("delivery: status %d", got)
		}
	}
	if seen["evt_1"] != 2 {
		t.Fatalf("receiver saw evt_1 %d times, want 2 (a duplicate it can drop)", seen["evt_1"])
	}
	tampered := map[string]func(*http.Request){
		"body swapped": func(r *http.Request) {
			b := `{"event":"booking.cancelled","event_id":"evt_1","booking_id":"bkg_1"}`
			r.Body = io.NopCloser(strings.NewReader(b))
			r.ContentLength = int64(len(b))
		},
		"path changed":    func(r *http.Request) { r.URL.Path = "/hooks/other" },
		"signature gone":  func(r *http.Request) { r.Header.Del("Signature") },
		"digest replaced": func(r *http.Request) { r.Header.Set("Content-Digest", "sha-256=:AAAA:") },
	}
	for name, tamper := range tampered {
		if got := deliver(event, tamper); got == http.StatusOK {
			t.Errorf("%s: delivered", name)
		}
	}
}
