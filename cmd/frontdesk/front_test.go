package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/serverlog"
)

// get sends a GET with the given Host (none: the URL's) and headers.
func get(t *testing.T, url, host string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	h := map[string]string{}
	for k, v := range headers {
		h[k] = v
	}
	if host != "" {
		h["Host"] = host
	}
	return send(t, http.MethodGet, url, h, nil)
}

// TestForeignHostIsRefusedOnEveryRoute: the dev mailbox (which shows
// codes), metrics, pages, ORP and tracked links answer only the configured
// hosts, with a sentence naming the host and the setting.
func TestForeignHostIsRefusedOnEveryRoute(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	for _, path := range []string{"/dev/mail", "/dev/mail.json", "/metrics", "/", "/privacy", "/book/riverside", "/terms",
		"/orp/inbox", "/go/abcdefghijkl", "/claim/x", "/approve/x", "/.well-known/orp.json"} {
		status, _, body := get(t, url+path, "attacker.example", nil)
		if status != http.StatusForbidden || !strings.Contains(body, `"attacker.example"`) || !strings.Contains(body, "deployment.hostnames") {
			t.Errorf("GET %s with a foreign Host = %d %q, want 403 naming the host and deployment.hostnames", path, status, body)
		}
	}
	for _, path := range []string{"/dev/mail", "/"} {
		if status, _, _ := get(t, url+path, "", map[string]string{"Origin": "http://attacker.example"}); status != http.StatusForbidden {
			t.Errorf("GET %s from a foreign origin = %d, want 403", path, status)
		}
	}
	// Probes answer whatever the Host: orchestrators call them by address.
	for _, path := range []string{"/healthz", "/readyz"} {
		if status, _, _ := get(t, url+path, "10.0.0.7", nil); status != http.StatusOK {
			t.Errorf("GET %s by address = %d, want 200", path, status)
		}
	}
	// The MCP front answers in JSON-RPC, with the same sentence.
	status, _, body := post(t, url+"/mcp", map[string]string{"Host": "attacker.example:80"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if status != http.StatusForbidden || !strings.Contains(body, `\"attacker.example\"`) || !strings.Contains(body, "deployment.hostnames") {
		t.Errorf("MCP with a foreign Host = %d %s", status, body)
	}
}

// TestSecurityHeaders: pages forbid framing, sniffing, referrers and any
// script; MCP answers are never stored.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	for _, path := range []string{"/", "/dev/mail", "/terms", "/book/riverside"} {
		_, h, body := get(t, url+path, "", nil)
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "same-origin" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s headers = %v", path, h)
		}
		if !strings.Contains(body, `name="viewport"`) || !strings.Contains(body, `href="/terms"`) {
			t.Errorf("GET %s lacks the shared layout or the terms link", path)
		}
	}
	_, h, _ := post(t, url+"/mcp", map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_properties","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if h.Get("Cache-Control") != "no-store" {
		t.Errorf("MCP answer Cache-Control = %q, want no-store", h.Get("Cache-Control"))
	}
}

// TestRedirectHeaders: a tracked-link redirect, through the whole front,
// carries only the headers a bodiless 302 needs and the request id every
// answer carries, none of the page headers every other answer gets.
func TestRedirectHeaders(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, err := http.NewRequest(method, url+"/go/abcdefghijkl", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		status, h := resp.StatusCode, resp.Header
		var names []string
		for k := range h {
			names = append(names, k)
		}
		slices.Sort(names)
		want := []string{"Cache-Control", "Date", "Location", "Referrer-Policy", "X-Request-Id", "X-Robots-Tag"}
		if method == http.MethodGet {
			want = []string{"Cache-Control", "Content-Length", "Date", "Location", "Referrer-Policy", "X-Request-Id", "X-Robots-Tag"}
		}
		if status != http.StatusFound || !slices.Equal(names, want) || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s /go/ = %d with headers %v, want 302 with %v", method, status, h, want)
		}
	}
}

// TestAnswersRevealNoInternals: an unreadable id gets no Go type name, and
// a schema error does not echo a huge value back.
func TestAnswersRevealNoInternals(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	_, _, body := post(t, url+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":1e999,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	for _, leak := range []string{"jsonrpc2", "wireDecode", "float64", "of type"} {
		if strings.Contains(body, leak) {
			t.Errorf("answer to id 1e999 names %q: %s", leak, body)
		}
	}
	cs := connect(t, url+"/mcp", "2025-11-25")
	huge := strings.Repeat("x", 600_000)
	res, err := cs.CallTool(context.Background(), toolParams("find_rooms", map[string]any{"checkin": huge, "checkout": "2026-12-12"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(text(res)); !res.IsError || got > 1200 {
		t.Fatalf("schema error is %d bytes, want at most 1200: %.200s", got, text(res))
	}
}

// TestCapabilitiesMatchWhatIsServed: only tools are declared, the other
// families answer "method not found", and every server gives instructions.
func TestCapabilitiesMatchWhatIsServed(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	for _, path := range []string{"/mcp", "/locations/riverside/mcp", "/orp/mcp"} {
		cs := connect(t, url+path, "2025-11-25")
		init := cs.InitializeResult()
		caps := init.Capabilities
		//lint:ignore SA1019 the test checks that the deprecated logging capability stays undeclared
		if caps.Tools == nil || caps.Prompts != nil || caps.Resources != nil || caps.Logging != nil || caps.Completions != nil {
			t.Errorf("%s declares %+v", path, caps)
		}
		if len(init.Instructions) < 100 {
			t.Errorf("%s instructions = %q", path, init.Instructions)
		}
		if _, err := cs.ListPrompts(context.Background(), nil); err == nil || !strings.Contains(strings.ToLower(err.Error()), "method not found") {
			t.Errorf("%s prompts/list = %v, want method not found", path, err)
		}
		if _, err := cs.ListResources(context.Background(), nil); err == nil || !strings.Contains(strings.ToLower(err.Error()), "method not found") {
			t.Errorf("%s resources/list = %v, want method not found", path, err)
		}
	}
	cs := connect(t, url+"/mcp", "2025-11-25")
	for _, step := range []string{"find_rooms", "quote_stay", "start_booking", "ask the guest for the code", "confirm_booking", "form link or a phone"} {
		if !strings.Contains(strings.ToLower(cs.InitializeResult().Instructions), strings.ToLower(step)) {
			t.Errorf("hub instructions do not mention %q", step)
		}
	}
}

// syncBuffer is a log destination the server and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// TestOneLogLinePerRequestAndToolCall: the operator sees each request
// (method, route pattern, status, duration) and each tool call (server,
// tool, outcome, the code of a refusal), a call over HTTP on its
// request's line, and never the guest's data.
func TestOneLogLinePerRequestAndToolCall(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: serverlog.New(&logs, nil, slog.LevelInfo), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-m.ready

	get(t, m.URL+"/book/riverside?roomtype=double&checkin=2026-12-30", "", nil)
	get(t, m.URL+"/dev/mail", "attacker.example", nil)
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	guest := map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
		"guest_name": "Ada Lovelace", "email": "ada@example.org", "phone": "+1 303 555 0199"}
	callTool(t, cs, "start_booking", guest)
	callTool(t, cs, "quote_stay", map[string]any{"property": "riverside", "roomtype": "penthouse", "checkin": "2026-12-30", "checkout": "2027-01-02"})
	cs.Close()

	var requests, calls []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		switch rec["msg"] {
		case "request":
			requests = append(requests, rec)
			if rec["tool"] != nil {
				calls = append(calls, rec)
			}
		case "tool call":
			t.Errorf("a routine tool call over HTTP has a line besides its request's: %v", rec)
		}
	}
	want := map[string]string{"GET GET /book/{slug} 200 INFO": "", "GET GET /dev/mail 403 WARN": "", "POST /mcp 200 INFO": ""}
	for _, r := range requests {
		delete(want, fmt.Sprintf("%s %s %v %s", r["method"], r["route"], r["status"], r["level"]))
		if _, ok := r["duration_ms"].(float64); !ok {
			t.Errorf("request line without duration: %v", r)
		}
	}
	if len(want) > 0 {
		t.Errorf("request lines missing %v in %v", want, requests)
	}
	got := map[string]bool{}
	for _, c := range calls {
		key := fmt.Sprintf("%s %s %s %s", c["level"], c["server"], c["tool"], c["outcome"])
		if code, ok := c["code"]; ok {
			key += fmt.Sprintf(" %s", code)
		}
		got[key] = true
	}
	for _, w := range []string{"INFO hub start_booking ok", "INFO hub quote_stay refused unknown_room_type"} {
		if !got[w] {
			t.Errorf("no request line of tool call %q in %v", w, calls)
		}
	}
	// The phone as written and as digits; its last four alone would match
	// a duration.
	for _, secret := range []string{"Ada", "Lovelace", "ada@example.org", "555 0199", "5550199", "roomtype=", "2026-12-30"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log holds guest data %q", secret)
		}
	}
}

// TestDeploymentMustBeStated: a config without [deployment] serves, but
// the booking tools refuse with the unknown-context sentence (§16).
func TestDeploymentMustBeStated(t *testing.T) {
	t.Parallel()
	demo := string(config.DemoTOML)
	file := demo[:strings.Index(demo, "[deployment]")] + demo[strings.Index(demo, "[orp]"):]
	c, err := config.Load([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	c.Store.DataDir = t.TempDir()
	m, _ := launch(t, c, "127.0.0.1:0", clock.NewFixed(testNow))
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, _ := callTool(t, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
		"guest_name": "Ada Lovelace", "email": "ada@example.org", "phone": "+1 303 555 0199"})
	if !res.IsError || !strings.HasPrefix(text(res), "Booking tools are disabled because the deployment context is unknown.") {
		t.Fatalf("start_booking without [deployment] = %q", text(res))
	}
}

// TestInitConfigServesOnLocalhost: the commented example, as printed,
// serves its pages on localhost and books with the dev mailbox.
func TestInitConfigServesOnLocalhost(t *testing.T) {
	t.Parallel()
	out, _, err := runCmd(t, "init")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	c.Store.DataDir = t.TempDir()
	m, _ := launch(t, c, "127.0.0.1:0", clock.NewFixed(testNow))
	port := m.URL[strings.LastIndex(m.URL, ":")+1:]
	if status, _, _ := get(t, m.URL+"/", "localhost:"+port, nil); status != http.StatusOK {
		t.Fatalf("GET / on localhost = %d", status)
	}
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, out2 := callTool(t, cs, "start_booking", map[string]any{"property": "main", "roomtype": "single", "checkin": "2026-12-30", "checkout": "2027-01-02",
		"guest_name": "Ada Lovelace", "email": "ada@example.org", "phone": "+1 303 555 0199"})
	if res.IsError || out2["booking_id"] == nil {
		t.Fatalf("start_booking on the init config = %s", text(res))
	}
}

// TestMetricsTokenAndAddress: /metrics can require a token, or move to
// its own listener and leave the public one.
func TestMetricsTokenAndAddress(t *testing.T) {
	t.Parallel()
	m := startMain(t, "", func(c *config.Config) { c.Server.MetricsToken = "s3cret" })
	if status, _, _ := get(t, m.URL+"/metrics", "", nil); status != http.StatusUnauthorized {
		t.Errorf("/metrics without the token = %d, want 401", status)
	}
	if status, _, body := get(t, m.URL+"/metrics", "", map[string]string{"Authorization": "Bearer s3cret"}); status != http.StatusOK || !strings.Contains(body, "frontdesk_http_responses_total") {
		t.Errorf("/metrics with the token = %d", status)
	}
	// Without a token or a listener of its own, /metrics answers nobody:
	// not this machine either, since a proxy that adds no forwarding
	// header looks just like it.
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	open := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{})}
	runMainAsIs(t, open)
	status, h, body := get(t, open.URL+"/metrics", "", nil)
	if status != http.StatusUnauthorized || !strings.Contains(body, "server.metrics_addr") || h.Get("X-Request-Id") == "" {
		t.Errorf("/metrics with no token configured = %d %q (request id %q), want 401 naming the settings", status, body, h.Get("X-Request-Id"))
	}
	m = startMain(t, "", func(c *config.Config) { c.Server.MetricsAddr = "127.0.0.1:0" })
	if status, _, _ := get(t, m.URL+"/metrics", "", nil); status != http.StatusNotFound {
		t.Errorf("/metrics on the public listener = %d, want 404", status)
	}
	if status, _, body := get(t, m.MetricsURL+"/metrics", "", nil); status != http.StatusOK || !strings.Contains(body, "frontdesk_http_responses_total") {
		t.Errorf("/metrics on its own listener = %d", status)
	}
}

// TestEveryAnswerCarriesARequestID: a tracked-link redirect, which keeps
// only the headers a redirect needs, still carries its request id, as do
// a page, a probe and an MCP answer.
func TestEveryAnswerCarriesARequestID(t *testing.T) {
	url := startServer(t, "")
	for _, path := range []string{"/go/abcdefghijkl", "/", "/healthz", "/staff/signin", "/mcp"} {
		_, h, _ := get(t, url+path, "", nil)
		if h.Get("X-Request-Id") == "" {
			t.Errorf("GET %s has no X-Request-Id", path)
		}
	}
}

// TestSlowConnectionsEnd is a small, bounded version of the slow-body
// attack on loopback: one address opens more connections than it may and
// sends bodies a byte at a time. Connections over the cap are closed at
// once, the slow bodies are cut at their deadline, and the probes keep
// answering another address throughout.
func TestSlowConnectionsEnd(t *testing.T) {
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.Server.ConnectionsPerAddress = 8
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow),
		Out: io.Discard, ready: make(chan struct{}), deadlineScale: 50} // a 15 s body deadline becomes 300 ms
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-m.ready
	addr := strings.TrimPrefix(m.URL, "http://")

	const attackers = 40
	conns := make([]net.Conn, 0, attackers)
	for range attackers {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
		conns = append(conns, conn)
	}
	// The probes answer from another loopback address while the attack runs.
	probe := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := probe.Get(m.URL + path)
		if err != nil {
			t.Fatalf("probe %s during the attack: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("probe %s during the attack = %d", path, resp.StatusCode)
		}
	}
	if open := m.listener.(interface{ Open(string) int }).Open("127.0.0.1"); open > 8 {
		t.Fatalf("127.0.0.1 holds %d connections, over its cap of 8", open)
	}
	// Every attacking connection ends: over the cap at once, the rest when
	// their body deadline passes. A second of silence is allowed for it.
	for i, conn := range conns {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := bufio.NewReader(conn).ReadString('\n')
		for err == nil {
			_, err = bufio.NewReader(conn).ReadString('\n')
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("attacking connection %d is still open", i)
		}
	}
}

// TestShutdownEndsStreams: an open stream of server messages does not
// hold shutdown; Run returns well within the grace period.
func TestShutdownEndsStreams(t *testing.T) {
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard, ready: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-m.ready
	client := mcp.NewClient(&mcp.Implementation{Name: "stream", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: m.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil { // the GET stream is open by now
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(shutdownGrace - time.Second):
		t.Fatal("Run still waits on an open stream")
	}
}

// TestUnknownToolIsAProtocolError: a call to a tool that does not exist
// is answered, not a crash of the server.
func TestUnknownToolIsAProtocolError(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	cs := connect(t, url+"/mcp", "2025-11-25")
	if _, err := cs.CallTool(context.Background(), toolParams("test_simple_text", nil)); err == nil {
		t.Fatal("unknown tool answered without an error")
	}
	if _, _, body := get(t, url+"/healthz", "", nil); body != "ok\n" {
		t.Fatalf("server after an unknown tool: %q", body)
	}
}

// TestORPCrossOriginRoutesStayOpen: discovery, suggest and join answer
// pages of any origin (§4.2 of the ORP specification) on a served host;
// the rest of ORP does not.
func TestORPCrossOriginRoutesStayOpen(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	foreign := map[string]string{"Origin": "https://partner.example"}
	if status, _, _ := get(t, url+"/.well-known/orp.json", "", foreign); status != http.StatusOK {
		t.Errorf("discovery from a foreign origin = %d, want 200", status)
	}
	if status, _, _ := send(t, http.MethodOptions, url+"/orp/join", foreign, nil); status != http.StatusNoContent {
		t.Errorf("join preflight from a foreign origin = %d, want 204", status)
	}
	if status, _, _ := get(t, url+"/orp/inbox", "", foreign); status != http.StatusForbidden {
		t.Errorf("inbox from a foreign origin = %d, want 403", status)
	}
	if status, _, _ := get(t, url+"/.well-known/orp.json", "attacker.example", nil); status != http.StatusForbidden {
		t.Errorf("discovery on a foreign host = %d, want 403", status)
	}
}
