package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/usp"
	"frontdesk/usp/pop"
	"frontdesk/usp/usptest"
)

// TestSplitUSPOverMCP: a platform uses USP's MCP binding at the hub of
// the demo split (the hub and three locations as separate processes)
// exactly as at one process. The catalog, a room's availability, the
// tool list and two refusals (an unknown booking, a wrong key) are byte
// for byte the single process's; a
// hold, a booking, its lookup and its cancellation at Riverside Inn and
// at Airport Suites land in that location's store; a waitlist list
// naming no service, over MCP or REST, lists the entries of both; a platform known by its
// key proves each call over the hub, a replayed proof is refused, and
// the webhook of its booking at Airport Suites verifies against the
// keys the hub's profile publishes. With Airport Suites stopped its
// calls are service_unavailable, both bindings' waitlist lists mark it,
// and Riverside Inn still answers.
func TestSplitUSPOverMCP(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitUSPOverMCP(t, engine) })
	}
}

func testSplitUSPOverMCP(t *testing.T, engine string) {
	hooks, plat, trust := splitPlatforms(t)
	d := startSplit(t, engine, trust)
	one := d.startSingle(t, engine, trust)

	// The hub's profile names its MCP binding.
	if status, _, body := send(t, "GET", d.hub+"/.well-known/usp", nil, nil); status != http.StatusOK || !strings.Contains(body, `"`+d.hub+`/usp/mcp"`) {
		t.Fatalf("the hub's profile = %d\n%s", status, body)
	}
	// What spans the locations or names none is the single process's,
	// byte for byte, as are a room's open slots and a refusal.
	day := time.Now().AddDate(0, 0, 40).Format(time.DateOnly)
	query := func(service string) map[string]any {
		return map[string]any{"service_id": service, "start_date": day, "end_date": day}
	}
	platform := map[string]any{"profile": plat.URL + "/demo-waitlist.json", "authorization": map[string]any{"mechanism": "api_key", "credential": demoPlatformKey}}
	for _, c := range []struct {
		method, name string
		args         map[string]any
	}{
		{"tools/list", "", nil},
		{"tools/call", "usp_services_list", map[string]any{}},
		{"tools/call", "usp_availability_query", query("svc_riverside_studio")},
		{"tools/call", "usp_availability_query", query("svc_airport_double")},
		{"tools/call", "usp_bookings_get", map[string]any{"booking_id": "APS-00112233AABBCCDD", "_meta": map[string]any{"usp": platform}}},
		// A wrong key is refused by the location, as by one process.
		{"tools/call", "usp_availability_hold", map[string]any{"service_id": "svc_riverside_double", "slot_id": "slot_riverside_double_20270101T2200Z",
			"_meta": map[string]any{"usp": map[string]any{"profile": platform["profile"], "authorization": map[string]any{"mechanism": "api_key", "credential": "wrong-key"}}}}},
	} {
		status, got := mcpPost(t, d.hub, c.method, c.name, c.args)
		wantStatus, want := mcpPost(t, one, c.method, c.name, c.args)
		if status != wantStatus || got != strings.ReplaceAll(want, one, d.hub) {
			t.Fatalf("%s %s at the hub = %d\n%s\nat one process = %d\n%s", c.method, c.name, status, got, wantStatus, want)
		}
	}

	// The whole flow at two locations. Each room is the only one of its
	// kind there, so its night is full once booked.
	bookings := map[string]string{}
	for _, c := range []struct{ slug, service, prefix string }{{"riverside", "svc_riverside_studio", "RIV-"}, {"airport", "svc_airport_double", "APS-"}} {
		slot := firstSlot(t, mcpCall(t, d.hub, "usp_availability_query", query(c.service)))
		hold := mcpCall(t, d.hub, "usp_availability_hold", withMeta(map[string]any{"service_id": c.service, "slot_id": slot}, platform, c.slug+"-hold"))
		holdID := dig(hold, "hold", "id")
		if !strings.HasPrefix(holdID, "hold_"+c.prefix) {
			t.Fatalf("hold at %s through the hub: %v", c.slug, hold)
		}
		made := mcpCall(t, d.hub, "usp_bookings_create", withMeta(map[string]any{"service_id": c.service, "slot_id": slot, "hold_id": holdID,
			"buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada." + c.slug + "@example.com"}}, platform, c.slug+"-create"))
		ref := dig(made, "booking", "id")
		if !strings.HasPrefix(ref, c.prefix) || dig(made, "booking", "status") != "pending" {
			t.Fatalf("booking at %s through the hub: %v", c.slug, made)
		}
		bookings[c.slug] = ref
		if got := mcpCall(t, d.hub, "usp_bookings_get", withMeta(map[string]any{"booking_id": ref}, platform, "")); dig(got, "booking", "id") != ref {
			t.Fatalf("lookup of %s through the hub: %v", ref, got)
		}
		for name := range d.origins {
			if held := strings.Contains(d.staffList(t, name), ref); held != (name == c.slug) {
				t.Fatalf("%s's store holds %s: %v", name, ref, held)
			}
		}
		joined := mcpCall(t, d.hub, "usp_waitlist_join", withMeta(map[string]any{"service_id": c.service, "slot_id": slot,
			"buyer": map[string]any{"first_name": "Dan", "last_name": "Waits", "email": "dan." + c.slug + "@example.com"}}, platform, c.slug+"-join"))
		if dig(joined, "entry", "status") != "waiting" {
			t.Fatalf("waitlist join at %s through the hub: %v", c.slug, joined)
		}
		cancelled := mcpCall(t, d.hub, "usp_bookings_cancel", withMeta(map[string]any{"booking_id": ref}, platform, c.slug+"-cancel"))
		if dig(cancelled, "booking", "status") != "canceled" {
			t.Fatalf("cancel of %s through the hub: %v", ref, cancelled)
		}
	}
	// A platform's waitlist list naming no service is every location's.
	listed := mcpCall(t, d.hub, "usp_waitlist_list", withMeta(map[string]any{}, platform, ""))
	if services := entryServices(listed); services != "svc_airport_double svc_riverside_studio" {
		t.Fatalf("waitlist list through the hub: %s\n%v", services, listed)
	}
	// REST's list is the same, from the same merge.
	rest := map[string]string{"Authorization": "Bearer " + demoPlatformKey, "USP-Agent": `profile="` + plat.URL + `/demo-waitlist.json"`}
	restList := func() map[string]any {
		status, _, body := post(t, d.hub+"/usp/waitlist/list", rest, `{}`)
		if status != http.StatusOK {
			t.Fatalf("REST waitlist list through the hub = %d\n%s", status, body)
		}
		return decodeJSON(t, body)
	}
	if got := restList(); entryServices(got) != "svc_airport_double svc_riverside_studio" {
		t.Fatalf("REST waitlist list through the hub: %v", got)
	}

	// A platform known by its key proves each call; the location checks
	// the proof, which the hub passes on byte for byte, and refuses it
	// replayed. The webhook of its booking at Airport Suites verifies
	// against the hub's profile.
	key := newKeyCaller(t, d.hub, plat.URL+"/hook.json")
	slot := firstSlot(t, mcpCall(t, d.hub, "usp_availability_query", query("svc_airport_studio")))
	createArgs := key.sign(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_studio", "slot_id": slot,
		"buyer": map[string]any{"first_name": "Kim", "last_name": "Key", "email": "kim.key@example.com"}})
	made := mcpCall(t, d.hub, "usp_bookings_create", createArgs)
	ref := dig(made, "booking", "id")
	if !strings.HasPrefix(ref, "APS-") {
		t.Fatalf("a booking proven by key through the hub: %v", made)
	}
	if code := mcpError(t, d.hub, "usp_bookings_create", createArgs); !strings.HasPrefix(code, "pop_") {
		t.Fatalf("a replayed proof through the hub = %q, want a pop_ refusal", code)
	}
	if got := mcpCall(t, d.hub, "usp_bookings_cancel", key.sign(t, "usp_bookings_cancel", map[string]any{"booking_id": ref})); dig(got, "booking", "status") != "canceled" {
		t.Fatalf("cancel proven by key through the hub: %v", got)
	}
	hooks.keys.Keys = profileKeys(t, d.hub)
	pollUntil(t, 20*time.Second, "the webhook of "+ref, func() bool {
		hooks.mu.Lock()
		defer hooks.mu.Unlock()
		if len(hooks.bad) > 0 {
			t.Fatalf("webhooks that do not verify against the hub's profile: %v", hooks.bad)
		}
		return len(hooks.got) > 0 && strings.Contains(string(hooks.bodies[0]), ref)
	})

	// A session, as most platforms keep, is served the same way.
	cs := connect(t, d.hub+"/usp/mcp", "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "usp_bookings_get", Arguments: withMeta(map[string]any{"booking_id": bookings["riverside"]}, platform, "")})
	if err != nil || !strings.Contains(text(res), bookings["riverside"]) {
		t.Fatalf("lookup in a session at the hub: %v %v", err, res)
	}

	// Airport Suites stopped: its calls are service_unavailable, the
	// waitlist list marks it and lists Riverside Inn's entry.
	d.stop("airport")
	body := mcpRaw(t, d.hub, "usp_bookings_get", withMeta(map[string]any{"booking_id": bookings["airport"]}, platform, ""))
	if !strings.Contains(body, `"code":"service_unavailable"`) || !strings.Contains(body, "Airport Suites cannot be reached just now.") || !strings.Contains(body, `"retry_after":5`) {
		t.Fatalf("a lookup at a stopped location:\n%s", body)
	}
	for binding, listed := range map[string]map[string]any{"mcp": mcpCall(t, d.hub, "usp_waitlist_list", withMeta(map[string]any{}, platform, "")), "rest": restList()} {
		raw, _ := json.Marshal(listed["messages"])
		var marks []usp.Message
		json.Unmarshal(raw, &marks)
		if entryServices(listed) != "svc_riverside_studio" || len(marks) != 1 || marks[0].Type != "warning" || marks[0].Code != "service_unavailable" ||
			!strings.HasPrefix(marks[0].Content, "Airport Suites cannot be reached just now. Try again in a few minutes or call +1 303 555 0133.") {
			t.Fatalf("%s waitlist list with Airport Suites stopped: %v", binding, listed)
		}
	}
	if got := mcpCall(t, d.hub, "usp_availability_query", query("svc_riverside_double")); firstSlot(t, got) == "" {
		t.Fatalf("Riverside Inn's query with Airport Suites stopped: %v", got)
	}
}

// splitPlatforms serves the platforms' profiles: one known by its API
// key (/demo-waitlist.json), one by its key whose webhooks hooks
// receives (/hook.json). trust is the environment that makes a process
// trust their certificate.
func splitPlatforms(t *testing.T) (hooks *hookReceiver, plat *usptest.Platforms, trust string) {
	t.Helper()
	hooks = &hookReceiver{now: time.Now}
	hookServer := httptest.NewServer(hooks)
	t.Cleanup(hookServer.Close)
	plat = usptest.NewPlatforms(t, map[string]string{"/demo-waitlist.json": e2eWaitlistProfile,
		"/hook.json": strings.TrimSuffix(e2eProfile, "}") + `,"webhook_url":"` + hookServer.URL + `/hooks"}`})
	roots := filepath.Join(t.TempDir(), "roots.pem")
	if err := os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: plat.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return hooks, plat, "SSL_CERT_FILE=" + roots
}

// startSingle runs the hub's config as one process, without its split,
// on a store of its own, and returns its origin.
func (d *splitDeployment) startSingle(t *testing.T, engine string, env ...string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(d.dir, "hub.toml"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _, _ := strings.Cut(string(text), "\n[split]")
	path := filepath.Join(d.dir, "single.toml")
	whole = strings.Replace(whole, filepath.Join(d.dir, "hub-data"), filepath.Join(d.dir, "single-data"), 1)
	if err := os.WriteFile(path, []byte(whole), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + loopbackPort(t)
	args := []string{"serve", "--config", path, "--addr", addr, "--public-url", "http://" + addr}
	if engine == "postgres" {
		args = append(args, "--database", pgtest.Schema(t))
	}
	d.start(t, "single", args, env)
	waitReady(t, "single", "http://"+addr)
	return "http://" + addr
}

// mcpPost sends one JSON-RPC request to the USP MCP endpoint of base on
// the stateless revision, and returns the status and the message
// answered.
func mcpPost(t *testing.T, base, method, tool string, args map[string]any) (int, string) {
	t.Helper()
	params := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}
	if tool != "" {
		params["name"], params["arguments"] = tool, args
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, base+"/usp/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if tool != "" {
		req.Header.Set("Mcp-Name", tool)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(answer)) {
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			return resp.StatusCode, data
		}
	}
	return resp.StatusCode, string(answer)
}

// mcpRaw is the message mcpPost answers for tool: a result, or on the
// stateless revision a protocol error with status 400.
func mcpRaw(t *testing.T, base, tool string, args map[string]any) string {
	t.Helper()
	status, body := mcpPost(t, base, "tools/call", tool, args)
	if status != http.StatusOK && status != http.StatusBadRequest {
		t.Fatalf("%s at %s = %d\n%s", tool, base, status, body)
	}
	return body
}

// mcpCall calls tool and returns its structured result, failing on a
// protocol error or a business refusal.
func mcpCall(t *testing.T, base, tool string, args map[string]any) map[string]any {
	t.Helper()
	var answer struct {
		Result *struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	body := mcpRaw(t, base, tool, args)
	if json.Unmarshal([]byte(body), &answer) != nil || answer.Result == nil || strings.Contains(body, `"type":"error"`) {
		t.Fatalf("%s at %s:\n%s", tool, base, body)
	}
	return answer.Result.StructuredContent
}

// mcpError calls tool and returns the code of the protocol error it is
// answered, "" when it is not.
func mcpError(t *testing.T, base, tool string, args map[string]any) string {
	t.Helper()
	var answer struct {
		Error *struct {
			Data struct{ Code string } `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(mcpRaw(t, base, tool, args)), &answer)
	if answer.Error == nil {
		return ""
	}
	return answer.Error.Data.Code
}

// newUUID is a random version 4 UUID, an idempotency key.
func newUUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// withMeta is args with _meta.usp: the platform's profile and
// credentials, and a fresh idempotency key for a write (any name given).
func withMeta(args map[string]any, platform map[string]any, idempotency string) map[string]any {
	u := map[string]any{}
	for k, v := range platform {
		u[k] = v
	}
	if idempotency != "" {
		u["idempotency_key"] = newUUID()
	}
	args["_meta"] = map[string]any{"usp": u}
	return args
}

// dig is the string at path in v, "" when there is none.
func dig(v map[string]any, path ...string) string {
	var cur any = v
	for _, p := range path {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	s, _ := cur.(string)
	return s
}

// firstSlot is the id of the first slot of a query's answer.
func firstSlot(t *testing.T, q map[string]any) string {
	t.Helper()
	slots, _ := q["slots"].([]any)
	if len(slots) == 0 {
		t.Fatalf("no open slot: %v", q)
	}
	return dig(slots[0].(map[string]any), "id")
}

// entryServices are the services of a waitlist list's entries, in order.
func entryServices(list map[string]any) string {
	entries, _ := list["entries"].([]any)
	var out []string
	for _, e := range entries {
		out = append(out, dig(e.(map[string]any), "service_id"))
	}
	return strings.Join(out, " ")
}

// profileKeys are the keys the business profile at base publishes.
func profileKeys(t *testing.T, base string) []json.RawMessage {
	t.Helper()
	_, _, body := send(t, "GET", base+"/.well-known/usp", nil, nil)
	var profile struct{ Keys []json.RawMessage }
	if err := json.Unmarshal([]byte(body), &profile); err != nil {
		t.Fatal(err)
	}
	return profile.Keys
}

// pollUntil polls cond until it holds, or fails the test after limit.
func pollUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s did not come within %s", what, limit)
		}
	}
}

// keyCaller is a platform known by its key alone: each call carries a
// fresh proof over its tool and arguments, for the business profile at
// the hub.
type keyCaller struct {
	priv     ed25519.PrivateKey
	audience string
	profile  string
	n        int
}

func newKeyCaller(t *testing.T, hubURL, profile string) *keyCaller {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	return &keyCaller{priv: priv, audience: hubURL + usp.ProfilePath, profile: profile}
}

// sign is args with _meta.usp carrying the profile and a proof over
// them.
func (k *keyCaller) sign(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	k.n++
	args["_meta"] = map[string]any{"usp": map[string]any{"profile": k.profile, "idempotency_key": newUUID()}}
	raw, _ := json.Marshal(args)
	_, digest, err := pop.CanonicalParams(raw)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := pop.Sign(k.priv, pop.MCP, pop.Claims{USPM: tool, Aud: k.audience, USPP: digest, IAT: clock.System{}.Now().Unix(), JTI: fmt.Sprintf("split-%d-%d", k.n, time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	args["_meta"].(map[string]any)["usp"].(map[string]any)["authorization"] = map[string]any{"mechanism": usp.MechanismPoP, "proof": proof}
	return args
}

// TestSplitUSPWebhookNotification: a platform's MCP session at the hub
// of the demo split, with its stream open, receives the usp_webhook
// notification of its booking at Airport Suites (not the first
// location), which the location offers the hub over the relay; the
// session of another platform, which also called Airport Suites through
// the hub, receives nothing of it. The booking's event is its
// cancellation: the platform's own creation sends no webhook.
func TestSplitUSPWebhookNotification(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitUSPWebhookNotification(t, engine) })
	}
}

func testSplitUSPWebhookNotification(t *testing.T, engine string) {
	_, plat, trust := splitPlatforms(t)
	d := startSplit(t, engine, trust)
	day := time.Now().AddDate(0, 0, 40).Format(time.DateOnly)
	query := func(service string) map[string]any {
		return map[string]any{"service_id": service, "start_date": day, "end_date": day}
	}

	// Another platform's session calls Airport Suites too.
	other := openRawSession(t, d.hub+"/usp/mcp")
	apiKey := map[string]any{"profile": plat.URL + "/demo-waitlist.json", "authorization": map[string]any{"mechanism": "api_key", "credential": demoPlatformKey}}
	slot := firstSlot(t, mcpCall(t, d.hub, "usp_availability_query", query("svc_airport_double")))
	if got := other.call("usp_availability_hold", withMeta(map[string]any{"service_id": "svc_airport_double", "slot_id": slot}, apiKey, "other-hold")); !strings.Contains(got, `"hold"`) {
		t.Fatalf("another platform's hold through the hub:\n%s", got)
	}

	mine := openRawSession(t, d.hub+"/usp/mcp")
	key := newKeyCaller(t, d.hub, plat.URL+"/hook.json")
	slot = firstSlot(t, mcpCall(t, d.hub, "usp_availability_query", query("svc_airport_studio")))
	made := mine.call("usp_bookings_create", key.sign(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_studio", "slot_id": slot,
		"buyer": map[string]any{"first_name": "Kim", "last_name": "Key", "email": "kim.key@example.com"}}))
	ref := regexp.MustCompile(`APS-[0-9A-F]{16}`).FindString(made)
	if ref == "" {
		t.Fatalf("a booking at Airport Suites in a session at the hub:\n%s", made)
	}
	if got := mine.call("usp_bookings_cancel", key.sign(t, "usp_bookings_cancel", map[string]any{"booking_id": ref})); !strings.Contains(got, `"canceled"`) {
		t.Fatalf("cancel of %s in a session at the hub:\n%s", ref, got)
	}

	notice := mine.await(20*time.Second, ref)
	var msg struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			Event     string `json:"event"`
			BookingID string `json:"booking_id"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(notice), &msg); err != nil || msg.ID != nil || msg.Method != "usp_webhook" || msg.Params.BookingID != ref || !strings.HasPrefix(msg.Params.Event, "booking.") {
		t.Fatalf("notification on the session's stream = %s", notice)
	}
	other.none(time.Second, ref)
}

// rawSession is an MCP session over plain HTTP with its stream open, so
// the test sees every message the server sends, notifications of
// methods no SDK knows included.
type rawSession struct {
	t     *testing.T
	url   string
	id    string
	lines chan string // the data of the stream's events
}

// openRawSession initializes a session at url and opens its stream.
func openRawSession(t *testing.T, url string) *rawSession {
	t.Helper()
	s := &rawSession{t: t, url: url, lines: make(chan string, 64)}
	resp, body := s.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	s.headers(get)
	get.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	go func() {
		defer stream.Body.Close()
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				s.lines <- data
			}
		}
	}()
	return s
}

func (s *rawSession) headers(r *http.Request) {
	if s.id != "" {
		r.Header.Set("Mcp-Session-Id", s.id)
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
}

func (s *rawSession) post(body string) (*http.Response, string) {
	s.t.Helper()
	r, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	s.headers(r)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// call calls tool in the session and returns the answer as sent.
func (s *rawSession) call(tool string, args map[string]any) string {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	resp, answer := s.post(string(body))
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("%s in a session = %d\n%s", tool, resp.StatusCode, answer)
	}
	return answer
}

// await is the first message on the stream naming word, failing after
// limit.
func (s *rawSession) await(limit time.Duration, word string) string {
	s.t.Helper()
	line, ok := s.seek(limit, word)
	if !ok {
		s.t.Fatalf("no message naming %s within %v", word, limit)
	}
	return line
}

// none fails if a message naming word arrives on the stream within wait.
func (s *rawSession) none(wait time.Duration, word string) {
	s.t.Helper()
	if line, ok := s.seek(wait, word); ok {
		s.t.Fatalf("another session received %s", line)
	}
}

// seek reads the stream for limit until a message names word.
func (s *rawSession) seek(limit time.Duration, word string) (string, bool) {
	deadline := time.After(limit)
	for {
		select {
		case line := <-s.lines:
			if strings.Contains(line, word) {
				return line, true
			}
		case <-deadline:
			return "", false
		}
	}
}
