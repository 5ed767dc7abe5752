package relay

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/hub"
	"frontdesk/internal/clock"
	"frontdesk/internal/fault"
	"frontdesk/internal/golden"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/location"
	"frontdesk/pricing"
	"frontdesk/sqlite"
)

var (
	key1 = Key{N: 1, Key: bytes.Repeat([]byte{1}, 32)}
	key2 = Key{N: 2, Key: bytes.Repeat([]byte{2}, 32)}
	now  = time.Date(2026, 3, 2, 17, 0, 0, 0, time.UTC)
)

const phone = "+1 303 555 0101"

func TestParseKeys(t *testing.T) {
	k1, k2 := strings.Repeat("01", 32), strings.Repeat("02", 32)
	tests := []struct {
		name, text string
		want       []int // versions, oldest first; nil for an error
	}{
		{"one", "1:" + k1, []int{1}},
		{"lines, newest first", "2:" + k2 + "\n1:" + k1 + "\n", []int{1, 2}},
		{"commas and spaces", " 1:" + k1 + " , 2:" + k2, []int{1, 2}},
		{"none", " \n", nil},
		{"short key", "1:" + k1[:62], nil},
		{"not hex", "1:" + strings.Repeat("zz", 32), nil},
		{"version zero", "0:" + k1, nil},
		{"no version", k1, nil},
		{"twice", "1:" + k1 + ",1:" + k2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := ParseKeys(tt.text)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("ParseKeys = %v, want an error", keys)
				}
				if strings.Contains(err.Error(), k1) || strings.Contains(err.Error(), k2) {
					t.Fatalf("the error names a key: %v", err)
				}
				return
			}
			var got []int
			for _, k := range keys {
				got = append(got, k.N)
			}
			if err != nil || !slicesEqual(got, tt.want) {
				t.Fatalf("ParseKeys = %v, %v; want versions %v", got, err, tt.want)
			}
		})
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKindLimits(t *testing.T) {
	for kind, want := range map[Kind]time.Duration{Mutation: 40 * time.Second, Lookup: 5 * time.Second, Quote: 6 * time.Second, Inventory: 3 * time.Second} {
		if got := kind.Limit(); got != want {
			t.Errorf("Kind(%d).Limit() = %v, want %v", kind, got, want)
		}
	}
}

// fixture is a location's relay endpoint on loopback with one booking
// operation that counts the calls it runs.
type fixture struct {
	clock  *clock.Fixed
	srv    *Server
	http   *httptest.Server
	ran    atomic.Int64
	client *Client
}

func production() business.Deployment {
	return business.Deployment{Context: "production", Published: true, Hostnames: []string{"127.0.0.1", "localhost"}}
}

func newFixture(t *testing.T, d business.Deployment, serverKeys, clientKeys []Key) *fixture {
	t.Helper()
	f := &fixture{clock: clock.NewFixed(now)}
	f.srv = NewServer(ServerOptions{Keys: serverKeys, Clock: f.clock, Deployment: d, Phone: func(string) string { return phone }})
	f.srv.Add("book", Operation{Booking: true, Run: func(_ context.Context, call Call) (any, error) {
		f.ran.Add(1)
		return map[string]string{"slug": call.Slug, "args": string(call.Args)}, nil
	}})
	f.http = httptest.NewServer(f.srv)
	t.Cleanup(f.http.Close)
	var err error
	f.client, err = NewClient(ClientOptions{Origins: map[string]string{"riverside": f.http.URL}, Keys: clientKeys,
		Clock: f.clock, Rand: random.SeededBy(7)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// signedRequest builds a call to op as the client signs it, to replay or
// alter by hand.
func (f *fixture) signedRequest(t *testing.T, op string, body []byte, keys []Key, at time.Time, nonce string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.http.URL+PathPrefix+op, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	Sign(req, body, keys, at, nonce)
	return req
}

// send sends req again with the same headers and body and returns the
// status and the refusal's message.
func send(t *testing.T, req *http.Request, body []byte) (int, string) {
	t.Helper()
	again := req.Clone(context.Background())
	again.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(again)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.Refusal == nil {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, a.Refusal.Message
}

const notAccepted = "The relayed call was not accepted. Nothing was changed. Call " + phone + "."

// TestRelayRefusesForgedReplayedAndStaleCalls: a call runs once; the
// same call again, one signed with a key the location does not hold, one
// whose body or path was changed after signing, one outside the window
// and one signed before the location started are refused with one
// sentence, and none of them runs.
func TestRelayRefusesForgedReplayedAndStaleCalls(t *testing.T) {
	f := newFixture(t, production(), []Key{key1}, []Key{key1})
	body := []byte(`{"slug":"riverside","args":{"n":1}}`)
	nonce := strings.Repeat("ab", 16)
	good := f.signedRequest(t, "book", body, []Key{key1}, now, nonce)
	if status, msg := send(t, good, body); status != http.StatusOK || msg != "" {
		t.Fatalf("a good call = %d %q", status, msg)
	}
	if f.ran.Load() != 1 {
		t.Fatalf("the good call ran %d times", f.ran.Load())
	}
	stranger := Key{N: 1, Key: bytes.Repeat([]byte{9}, 32)}
	tampered := f.signedRequest(t, "book", body, []Key{key1}, now, strings.Repeat("cd", 16))
	elsewhere := f.signedRequest(t, "book", body, []Key{key1}, now, strings.Repeat("ce", 16))
	elsewhere.URL.Path = PathPrefix + "other"
	unsigned := f.signedRequest(t, "book", body, []Key{key1}, now, strings.Repeat("cf", 16))
	unsigned.Header.Del(HeaderMAC)
	tests := []struct {
		name string
		req  *http.Request
		body []byte
		code Code
	}{
		{"replayed", good, body, CodeReplayed},
		{"forged key", f.signedRequest(t, "book", body, []Key{stranger}, now, strings.Repeat("01", 16)), body, CodeForged},
		{"body changed", tampered, []byte(`{"slug":"riverside","args":{"n":2}}`), CodeForged},
		{"path changed", elsewhere, body, CodeForged},
		{"no mac", unsigned, body, CodeForged},
		{"too old", f.signedRequest(t, "book", body, []Key{key1}, now.Add(-Window-time.Second), strings.Repeat("02", 16)), body, CodeStale},
		{"too far ahead", f.signedRequest(t, "book", body, []Key{key1}, now.Add(Window+time.Second), strings.Repeat("03", 16)), body, CodeStale},
		{"before the start", f.signedRequest(t, "book", body, []Key{key1}, now.Add(-time.Millisecond), strings.Repeat("04", 16)), body, CodeStale},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg := send(t, tt.req, tt.body)
			if status != http.StatusUnauthorized || msg != notAccepted {
				t.Fatalf("answer = %d %q, want 401 %q", status, msg, notAccepted)
			}
			if f.ran.Load() != 1 {
				t.Fatalf("a refused call ran: %d runs", f.ran.Load())
			}
		})
	}
	// The verifier's own code for each, which the answer does not tell.
	for _, tt := range tests {
		v := NewVerifier([]Key{key1}, clock.NewFixed(now), 0)
		if tt.code == CodeReplayed {
			v.Verify(cloneWith(tt.req, tt.body))
		}
		_, err := v.Verify(cloneWith(tt.req, tt.body))
		if e, ok := AsError(err); !ok || e.Code != tt.code {
			t.Errorf("%s: Verify = %v, want %s", tt.name, err, tt.code)
		}
	}
}

func cloneWith(req *http.Request, body []byte) *http.Request {
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	return r
}

// TestRelayWindowForgetsOldMACs: a MAC leaves the seen-set once its
// window has passed, and the call is then refused as stale anyway.
func TestRelayWindowForgetsOldMACs(t *testing.T) {
	c := clock.NewFixed(now)
	v := NewVerifier([]Key{key1}, c, time.Second)
	for i := range pruneAt + 10 {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1"+PathPrefix+"book", nil)
		body := []byte(`{}`)
		Sign(req, body, []Key{key1}, c.Now(), hex.EncodeToString([]byte{byte(i >> 8), byte(i), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
		if _, err := v.Verify(cloneWith(req, body)); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		c.Advance(10 * time.Millisecond)
	}
	v.mu.Lock()
	kept := len(v.seen)
	v.mu.Unlock()
	if kept > pruneAt {
		t.Fatalf("the seen-set keeps %d MACs, over %d, with a 1 s window", kept, pruneAt)
	}
}

// TestRelayRotation: while both versions are live the location accepts
// a call signed with either; the client signs with the newest; once the
// old version is gone a call signed with it is refused.
func TestRelayRotation(t *testing.T) {
	both := newFixture(t, production(), []Key{key1, key2}, []Key{key1, key2})
	if err := both.client.Call(context.Background(), "riverside", "book", Mutation, map[string]int{"n": 1}, nil); err != nil {
		t.Fatalf("newest key: %v", err)
	}
	oldClient, _ := NewClient(ClientOptions{Origins: map[string]string{"riverside": both.http.URL}, Keys: []Key{key1},
		Clock: both.clock, Rand: random.SeededBy(8)})
	if err := oldClient.Call(context.Background(), "riverside", "book", Mutation, map[string]int{"n": 2}, nil); err != nil {
		t.Fatalf("an older live key: %v", err)
	}
	retired := newFixture(t, production(), []Key{key2}, []Key{key1})
	err := retired.client.Call(context.Background(), "riverside", "book", Mutation, map[string]int{"n": 3}, nil)
	if e, ok := fault.Find(err, func(Code) bool { return true }); !ok || e.Message != notAccepted {
		t.Fatalf("a retired key = %v, want %q", err, notAccepted)
	}
	if retired.ran.Load() != 0 || both.ran.Load() != 2 {
		t.Fatalf("runs: %d and %d, want 0 and 2", retired.ran.Load(), both.ran.Load())
	}
	// The client signs with version 2: a location holding only it accepts.
	newest := newFixture(t, production(), []Key{key2}, []Key{key1, key2})
	if err := newest.client.Call(context.Background(), "riverside", "book", Mutation, nil, nil); err != nil {
		t.Fatalf("the client did not sign with the newest key: %v", err)
	}
}

// TestRelayDeploymentSentences: the location layer's own deployment
// check, byte for byte as direct-booking.md §12 words it with rule P, and
// nothing runs.
func TestRelayDeploymentSentences(t *testing.T) {
	tests := []struct {
		name string
		d    business.Deployment
	}{
		{"unknown", business.Deployment{Hostnames: []string{"127.0.0.1"}}},
		{"draft", business.Deployment{Context: "deploy-preview", Published: true, Hostnames: []string{"127.0.0.1"}}},
		{"unpublished", business.Deployment{Context: "production", Hostnames: []string{"127.0.0.1"}}},
		{"not-custom", business.Deployment{Context: "production", Published: true, Hostnames: []string{"127.0.0.1"}, CustomHostnames: []string{"riverside.example"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.d, []Key{key1}, []Key{key1})
			err := f.client.Call(context.Background(), "riverside", "book", Mutation, nil, nil)
			e, ok := fault.Find(err, func(Code) bool { return true })
			if !ok || e.Phone != phone {
				t.Fatalf("Call = %v, want a refusal with the phone", err)
			}
			golden.Check(t, "deploy-"+tt.name+".txt", []byte(e.Message))
			if f.ran.Load() != 0 {
				t.Fatal("a refused booking call ran")
			}
		})
	}
}

// TestRelayUnknownOperation: an operation the location does not serve,
// or a body with a field the envelope lacks, is refused before anything
// runs.
func TestRelayUnknownOperation(t *testing.T) {
	f := newFixture(t, production(), []Key{key1}, []Key{key1})
	want := "Unknown assistant booking operation. Call " + phone + "."
	err := f.client.Call(context.Background(), "riverside", "nothing", Mutation, nil, nil)
	if e, ok := fault.Find(err, func(Code) bool { return true }); !ok || e.Message != want {
		t.Fatalf("unknown operation = %v", err)
	}
	for i, body := range []string{
		`{"slug":"riverside","origin":"http://evil.example"}`,
		`{"slug":"riverside","context":"production","published":true}`,
		`{"slug":"riverside"} {"slug":"oldtown"}`,
		`not json`,
	} {
		req := f.signedRequest(t, "book", []byte(body), []Key{key1}, now, hex.EncodeToString([]byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}))
		if status, msg := send(t, req, []byte(body)); status != http.StatusBadRequest || msg != want {
			t.Errorf("%s = %d %q", body, status, msg)
		}
	}
	if f.ran.Load() != 0 {
		t.Fatal("a refused call ran")
	}
}

// TestRelayTooLarge: a body over MaxBody is refused unread by the
// operation, and the client does not send one.
func TestRelayTooLarge(t *testing.T) {
	f := newFixture(t, production(), []Key{key1}, []Key{key1})
	big := map[string]string{"notes": strings.Repeat("x", MaxBody)}
	err := f.client.Call(context.Background(), "riverside", "book", Mutation, big, nil)
	if e, ok := AsError(err); !ok || e.Code != CodeTooLarge {
		t.Fatalf("client = %v", err)
	}
	body := bytes.Repeat([]byte(" "), MaxBody+1)
	req := f.signedRequest(t, "book", body, []Key{key1}, now, strings.Repeat("77", 16))
	if status, _ := send(t, req, body); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("server = %d", status)
	}
	if f.ran.Load() != 0 {
		t.Fatal("a refused call ran")
	}
}

// TestRelayTimeouts: a location that does not answer makes a mutation
// uncertain and a read unavailable, each at the caller's deadline when
// it is shorter than the kind's; a location that takes no connection is
// unreachable.
func TestRelayTimeouts(t *testing.T) {
	hold := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(hold) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	c, _ := NewClient(ClientOptions{Origins: map[string]string{"hung": hung.URL, "down": closed}, Keys: []Key{key1},
		Clock: clock.NewFixed(now), Rand: random.SeededBy(1)})
	tests := []struct {
		slug string
		kind Kind
		want Code
	}{
		{"hung", Mutation, CodeUncertain},
		{"hung", Lookup, CodeUnavailable},
		{"hung", Inventory, CodeUnavailable},
		{"down", Mutation, CodeUnreachable},
		{"nowhere", Mutation, CodeUnreachable},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		began := time.Now()
		err := c.Call(ctx, tt.slug, "book", tt.kind, nil, nil)
		took := time.Since(began)
		cancel()
		if e, ok := AsError(err); !ok || e.Code != tt.want {
			t.Errorf("%s kind %d = %v, want %s", tt.slug, tt.kind, err, tt.want)
		}
		if took > 2*time.Second {
			t.Errorf("%s kind %d took %v, past the caller's 300 ms", tt.slug, tt.kind, took)
		}
	}
	if !IsUncertain(c.Call(shortCtx(t), "hung", "book", Mutation, nil, nil)) {
		t.Error("a hung mutation is not uncertain")
	}
}

func shortCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// TestRelayReads: the hub's reads over the relay answer as the
// in-process location does, and a quote refusal arrives as the same
// *pricing.Refusal.
func TestRelayReads(t *testing.T) {
	cfg := config.Demo()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "location.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := clock.NewFixed(now)
	pricer := pricing.New(cfg.Portfolio, "http://127.0.0.1:8080")
	svc := location.New(cfg.Portfolio, pricer, inventory.New(db), c)
	srv := NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: production()})
	ServeReads(srv, svc)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	client, _ := NewClient(ClientOptions{Origins: map[string]string{"riverside": hs.URL}, Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(2)})
	b := NewBackend(client)
	ctx := context.Background()

	gotRooms, err := b.FindRooms(ctx, "riverside", "2026-04-01", "2026-04-03")
	wantRooms, _ := svc.FindRooms(ctx, "riverside", "2026-04-01", "2026-04-03")
	if err != nil || !jsonEqual(t, gotRooms, wantRooms) {
		t.Fatalf("FindRooms = %+v, %v; want %+v", gotRooms, err, wantRooms)
	}
	gotQuote, err := b.Quote(ctx, "riverside", "double", "2026-04-01", "2026-04-03")
	wantQuote, _ := svc.Quote(ctx, "riverside", "double", "2026-04-01", "2026-04-03")
	if err != nil || gotQuote != wantQuote {
		t.Fatalf("Quote = %+v, %v; want %+v", gotQuote, err, wantQuote)
	}
	gotInfo, err := b.Info("riverside")
	wantInfo, _ := svc.Info("riverside")
	if err != nil || !jsonEqual(t, gotInfo, wantInfo) {
		t.Fatalf("Info = %+v, %v", gotInfo, err)
	}
	_, err = b.Quote(ctx, "riverside", "studio", "2026-04-01", "2026-04-03")
	_, want := svc.Quote(ctx, "riverside", "studio", "2026-04-01", "2026-04-03")
	var got, w *pricing.Refusal
	if !errors.As(err, &got) || !errors.As(want, &w) || *got != *w {
		t.Fatalf("quote refusal = %v, want %v", err, want)
	}
	// Reads are not booking calls: a draft location still answers them.
	draft := NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: business.Deployment{Context: "draft"}})
	ServeReads(draft, svc)
	ds := httptest.NewServer(draft)
	t.Cleanup(ds.Close)
	dc, _ := NewClient(ClientOptions{Origins: map[string]string{"riverside": ds.URL}, Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(3)})
	if _, err := NewBackend(dc).Info("riverside"); err != nil {
		t.Fatalf("a draft location's info: %v", err)
	}
	// A read with a field it does not take is refused.
	err = client.Call(ctx, "riverside", OpInfo, Lookup, map[string]string{"origin": "http://elsewhere.example"}, nil)
	if e, ok := fault.Find(err, func(Code) bool { return true }); !ok || e.Code != CodeUnknownOperation {
		t.Fatalf("a read with an internal field = %v", err)
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return bytes.Equal(x, y)
}

// TestSearchNamesAnUnreadLocation: find_rooms across every property
// over the relay names a location that cannot be read instead of
// failing the others or claiming it has no room; a search of that
// location alone fails.
func TestSearchNamesAnUnreadLocation(t *testing.T) {
	cfg := config.Demo()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "location.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := clock.NewFixed(now)
	pricer := pricing.New(cfg.Portfolio, "http://127.0.0.1:8080")
	srv := NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: production()})
	ServeReads(srv, location.New(cfg.Portfolio, pricer, inventory.New(db), c))
	live := httptest.NewServer(srv)
	t.Cleanup(live.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	client, _ := NewClient(ClientOptions{Origins: map[string]string{"riverside": live.URL, "oldtown": down, "airport": live.URL},
		Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(5)})
	h := hub.New(cfg.Portfolio, "http://127.0.0.1:8080", pricer, NewBackend(client), c)
	s, err := h.FindRooms(context.Background(), "", "2026-04-01", "2026-04-03", 0)
	if err != nil {
		t.Fatalf("FindRooms = %v", err)
	}
	if len(s.Properties) != 2 || s.Properties[0].Property != "riverside" || s.Properties[1].Property != "airport" {
		t.Fatalf("properties read = %+v", s.Properties)
	}
	if want := []hub.Unread{{Property: "oldtown", Name: "Old Town Lodge", Phone: "+1 303 555 0122"}}; len(s.Unread) != 1 || s.Unread[0] != want[0] {
		t.Fatalf("unread = %+v, want %+v", s.Unread, want)
	}
	if _, err := h.FindRooms(context.Background(), "oldtown", "2026-04-01", "2026-04-03", 0); err == nil {
		t.Fatal("a search of the unread location alone answered")
	}
}

// TestParseKeysDerivesRelayKeys: the MAC key is derived from the
// version, never the version itself, and the same text gives the same
// keys at the hub and every location.
func TestParseKeysDerivesRelayKeys(t *testing.T) {
	raw := strings.Repeat("01", 32)
	a, err1 := ParseKeys("1:" + raw)
	b, err2 := ParseKeys(" 1:" + raw + "\n")
	if err1 != nil || err2 != nil || !bytes.Equal(a[0].Key, b[0].Key) {
		t.Fatalf("ParseKeys = %v %v, %v %v", a, err1, b, err2)
	}
	if hex.EncodeToString(a[0].Key) == raw || len(a[0].Key) != 32 {
		t.Fatalf("the relay key is the secret itself or not 32 bytes")
	}
}

// TestRoutes: each operation is its own route, which cmd/frontdesk
// mounts, in a stable order.
func TestRoutes(t *testing.T) {
	s := NewServer(ServerOptions{Keys: []Key{key1}, Clock: clock.NewFixed(now)})
	s.Add("quote", Operation{})
	s.Add("book", Operation{})
	var got []string
	for _, r := range s.Routes() {
		got = append(got, r.Pattern)
	}
	if want := "POST /relay/v1/book POST /relay/v1/quote"; strings.Join(got, " ") != want {
		t.Fatalf("Routes = %v, want %s", got, want)
	}
}
