package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
)

// testNow is a fixed instant: 2026-11-30 10:00 in Denver.
var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// startServer runs Main on a free loopback port with a temp SQLite dir, or
// on PostgreSQL when database is set, and returns its base URL.
func startServer(t testing.TB, database string) string {
	t.Helper()
	return startMain(t, database).URL
}

// startMain is startServer returning the running Main, for tests that
// move its clock.
func startMain(t testing.TB, database string, edit ...func(*config.Config)) *Main {
	t.Helper()
	c := config.Demo()
	for _, e := range edit {
		e(&c)
	}
	c.Store.DataDir = t.TempDir()
	c.Store.Database = database
	m, _ := launch(t, c, "127.0.0.1:0", clock.NewFixed(testNow))
	return m
}

// launch runs Main with c on addr until the test ends or stop is called,
// and returns once it serves.
func launch(t testing.TB, c config.Config, addr string, clk clock.Clock) (m *Main, stop func()) {
	t.Helper()
	m = &Main{Config: c, Addr: addr, Logger: slog.New(slog.DiscardHandler), Clock: clk, Out: io.Discard, ready: make(chan struct{})}
	return m, runMain(t, m)
}

// runMain runs m until the test ends or stop is called, and returns once
// it serves.
func runMain(t testing.TB, m *Main) (stop func()) {
	t.Helper()
	withMetricsToken(&m.Config)
	return runMainAsIs(t, m)
}

// runMainAsIs is runMain without the test's /metrics token.
func runMainAsIs(t testing.TB, m *Main) (stop func()) {
	t.Helper()
	// Registered first, so it runs last, on the store at rest.
	t.Cleanup(func() { checkKindsRegistered(t, m.Config.Store) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-m.ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after shutdown", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

func connect(t testing.TB, url, revision string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("connect %s at %s: %v", url, revision, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolParams(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

type errText string

func (e errText) Error() string { return string(e) }

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var revisions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func TestHubToolsOnEveryRevision(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			cs := connect(t, url+"/mcp", rev)
			if got, want := toolNames(t, cs), "cancel_booking,confirm_booking,find_rooms,get_booking,list_properties,property_info,quote_stay,start_booking"; got != want {
				t.Fatalf("hub tools = %s, want %s", got, want)
			}
			res, out := callTool(t, cs, "quote_stay", map[string]any{"property": "Riverside Inn", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02"})
			if res.IsError {
				t.Fatalf("quote_stay refused: %s", text(res))
			}
			if out["total"] != 395.38 || out["nights"] != 3.0 || out["subtotal"] != 357.0 {
				t.Fatalf("quote = %v", out)
			}
			summary, resultText, _ := strings.Cut(text(res), "\n")
			if want := "Riverside Inn, double, 2026-12-30 to 2027-01-02, 3 nights: $357.00 + $38.38 10.75% lodging tax = $395.38."; summary != want {
				t.Fatalf("summary = %q, want %q", summary, want)
			}
			var fromText map[string]any
			if err := json.Unmarshal([]byte(resultText), &fromText); err != nil || !reflect.DeepEqual(fromText, out) {
				t.Fatalf("text after the summary = %s, want the structured result %v", resultText, out)
			}
			// One night is counted as one.
			res, _ = callTool(t, cs, "quote_stay", map[string]any{"property": "Riverside Inn", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2026-12-31"})
			if summary, _, _ := strings.Cut(text(res), "\n"); res.IsError || !strings.HasPrefix(summary, "Riverside Inn, double, 2026-12-30 to 2026-12-31, 1 night: ") {
				t.Fatalf("one-night quote summary = %q", summary)
			}
			res, _ = callTool(t, cs, "find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2026-12-31"})
			if summary, _, _ := strings.Cut(text(res), "\n"); res.IsError || !strings.HasPrefix(summary, "2026-12-30 to 2026-12-31, 1 night: ") {
				t.Fatalf("one-night find_rooms summary = %q", summary)
			}
			res, out = callTool(t, cs, "find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-02"})
			if res.IsError || len(out["properties"].([]any)) != 3 {
				t.Fatalf("find_rooms = %s %v", text(res), out)
			}
			if summary, _, _ := strings.Cut(text(res), "\n"); summary != "2026-12-30 to 2027-01-02, 3 nights: 13 rooms free across 3 properties; 5 room types bookable for these dates." {
				t.Fatalf("find_rooms summary = %q", summary)
			}
			res, _ = callTool(t, cs, "find_rooms", map[string]any{"property": "riverside", "checkin": "2026-12-30", "checkout": "2027-01-02"})
			if summary, _, _ := strings.Cut(text(res), "\n"); summary != "2026-12-30 to 2027-01-02, 3 nights: 6 rooms free at Riverside Inn; 2 room types bookable for these dates." {
				t.Fatalf("one property's find_rooms summary = %q", summary)
			}
		})
	}
}

// toolNames lists a server's tools, holds each to the tool contract, and
// returns their names joined by commas.
func toolNames(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		checkToolShape(t, tool)
	}
	return strings.Join(names, ",")
}

// checkToolShape holds every tool to the contract: a title, all four hints
// written out, a closed input schema and an output schema.
func checkToolShape(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	raw, _ := json.Marshal(tool)
	var wire map[string]any
	json.Unmarshal(raw, &wire)
	ann, _ := wire["annotations"].(map[string]any)
	for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if _, ok := ann[hint].(bool); !ok {
			t.Errorf("%s: %s not set explicitly: %s", tool.Name, hint, raw)
		}
	}
	if tool.Title == "" || ann["title"] == "" {
		t.Errorf("%s has no title", tool.Name)
	}
	in, _ := wire["inputSchema"].(map[string]any)
	if in["additionalProperties"] != false {
		t.Errorf("%s input schema is not closed: %v", tool.Name, in["additionalProperties"])
	}
	if wire["outputSchema"] == nil {
		t.Errorf("%s has no output schema", tool.Name)
	}
}

// TestLocationServersHaveReadToolsOnly also shows that the servers built
// on first request keep each location's own identity, and that a slug no
// location has is not served.
func TestLocationServersHaveReadToolsOnly(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	names := map[string]string{"riverside": "Riverside Inn", "oldtown": "Old Town Lodge", "airport": "Airport Suites"}
	for _, slug := range []string{"riverside", "oldtown", "airport"} {
		cs := connect(t, url+"/locations/"+slug+"/mcp", "2025-06-18")
		if got, want := toolNames(t, cs), "find_rooms,property_info,quote_stay"; got != want {
			t.Fatalf("%s tools = %s, want %s", slug, got, want)
		}
		if info := cs.InitializeResult().ServerInfo; info.Name != "frontdesk-"+slug || info.Title != names[slug] {
			t.Errorf("%s server = %s %q", slug, info.Name, info.Title)
		}
		res, out := callTool(t, cs, "property_info", nil)
		if res.IsError || out["property"] != slug {
			t.Fatalf("%s property_info = %s %v", slug, text(res), out)
		}
	}
	resp, err := http.Post(url+"/locations/nowhere/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown location = %d, want 404", resp.StatusCode)
	}
}

func TestHubRefusalsAreToolResults(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	cs := connect(t, url+"/mcp", "2025-11-25")
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"quote_stay", map[string]any{"property": "oldtown", "roomtype": "studio", "checkin": "2026-12-10", "checkout": "2026-12-17"},
			"No quote: unknown room type\nThe argument is roomtype (roomType, room_type, type and room are read the same way). Old Town Lodge sells: single, double.\nOur sister properties nearby have studios by the week: find_rooms on " + url + "/mcp checks all 3 properties, or see " + url + "/locations."},
		{"quote_stay", map[string]any{"property": "in", "roomtype": "single", "checkin": "2026-12-10", "checkout": "2026-12-11"},
			"property must identify one property by name, slug or domain. Available properties: Riverside Inn (riverside), Old Town Lodge (oldtown), Airport Suites (airport). Call +1 303 555 0100."},
		{"quote_stay", map[string]any{"property": "airport", "room_type": "double", "checkin": "2026-12-10", "checkout": "2026-12-11", "guests": 5},
			"guests must be a whole-number count from 1 to 4."},
		{"find_rooms", map[string]any{"checkin": "2026-12-01", "checkout": "2027-01-15"},
			"Sample Stays: 2026-12-01 to 2027-01-15, 45 nights\n\nEvery stay is capped at 30 days, and 2026-12-01 to 2027-01-15 is 45 nights, so none of the 3 properties can take it as one booking.\nThe longest stay from 2026-12-01 checks out on 2026-12-31. Ask again with a check out no more than 30 days after the check in.\nLonger stays are handled as residential lets, which we do not offer.\nQuestions: call +1 303 555 0100."},
		{"quote_stay", map[string]any{"property": "riverside", "type": "single", "checkin": "2026-11-28", "checkout": "2026-11-29"},
			"No quote: check in is in the past\nThat arrival date has already passed."},
	}
	for _, tt := range tests {
		res, out := callTool(t, cs, tt.tool, tt.args)
		if !res.IsError || out != nil {
			t.Errorf("%s %v: not a refusal: %v", tt.tool, tt.args, out)
		}
		if got := text(res); got != tt.want {
			t.Errorf("%s %v:\n got %q\nwant %q", tt.tool, tt.args, got, tt.want)
		}
	}
	res, _ := callTool(t, cs, "find_rooms", map[string]any{"checkin": "2026-12-10", "checkout": "2026-12-11", "nights": 1})
	if !res.IsError || !strings.Contains(text(res), "do not match the input schema") {
		t.Errorf("unknown argument accepted: %s", text(res))
	}
}

// testMetricsToken is the /metrics token of test servers that name none.
const testMetricsToken = "test-metrics-token"

// withMetricsToken gives c the test token unless it configures /metrics
// itself.
func withMetricsToken(c *config.Config) {
	if c.Server.MetricsToken == "" && c.Server.MetricsAddr == "" {
		c.Server.MetricsToken = testMetricsToken
	}
}

// scrape reads /metrics of the server at base with the test token.
func scrape(t testing.TB, base string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testMetricsToken)
	req.Header.Set("X-Forwarded-Proto", "https") // when loopback is a trusted proxy
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics = %d %s", resp.StatusCode, b)
	}
	return b
}

// post sends a raw body to the hub and returns status, headers and body.
func post(t *testing.T, url string, headers map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for k, v := range headers {
		h[k] = v
	}
	return send(t, http.MethodPost, url, h, strings.NewReader(body))
}

// send makes one request; a "Host" header sets the request's Host.
func send(t *testing.T, method, url string, headers map[string]string, body io.Reader) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestTransportErrorsAreJSONRPC(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	tests := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		code    float64
	}{
		{"not json", nil, `{"jsonrpc":`, 400, -32700},
		{"not json-rpc", nil, `"hello"`, 400, -32600},
		{"empty batch", nil, `[]`, 400, -32600},
		{"foreign host", map[string]string{"Host": "attacker.example"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 403, -32600},
		{"foreign origin", map[string]string{"Origin": "http://attacker.example"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 403, -32600},
		{"batch on 2025-06-18", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600},
		{"unknown session", map[string]string{"Mcp-Session-Id": "nope", "Mcp-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 404, -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := post(t, url+"/mcp", tt.headers, tt.body)
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code    float64 `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.JSONRPC != "2.0" {
				t.Fatalf("body %q is not a JSON-RPC error (%v)", body, err)
			}
			if status != tt.status || msg.Error.Code != tt.code || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d code %v type %q, want %d %v: %s", status, msg.Error.Code, h.Get("Content-Type"), tt.status, tt.code, body)
			}
		})
	}
}

func TestProbesAndMetrics(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != want {
			t.Fatalf("%s = %d %q", path, resp.StatusCode, b)
		}
	}
	cs := connect(t, url+"/mcp", "2025-11-25")
	callTool(t, cs, "list_properties", nil)
	b := scrape(t, url)
	for _, want := range []string{
		`frontdesk_mcp_tool_calls_total{outcome="ok",server="hub",tool="list_properties"} 1`,
		`frontdesk_mcp_tool_call_seconds_count{server="hub",tool="list_properties"} 1`,
		`frontdesk_http_responses_total{code="200",route="GET /readyz"} 1`,
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestPostgresAnswersLikeSQLite runs the same calls on both engines and
// compares the answers byte for byte.
func TestPostgresAnswersLikeSQLite(t *testing.T) {
	t.Parallel()
	pgtest.DSN(t)
	answers := func(url string) string {
		cs := connect(t, url+"/mcp", "2025-11-25")
		var b strings.Builder
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_properties", nil},
			{"find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-06"}},
			{"quote_stay", map[string]any{"property": "airport", "roomtype": "studio", "checkin": "2026-12-30", "checkout": "2027-01-09"}},
			{"property_info", map[string]any{"property": "oldtown"}},
		} {
			res, _ := callTool(t, cs, c.tool, c.args)
			raw, _ := json.Marshal(res.StructuredContent)
			fmt.Fprintf(&b, "%s %v %s %s\n", c.tool, res.IsError, text(res), raw)
		}
		return strings.ReplaceAll(b.String(), url, "URL")
	}
	lite := answers(startServer(t, ""))
	pg := answers(startServer(t, pgtest.Schema(t)))
	if lite != pg {
		t.Fatalf("PostgreSQL answers differ:\n--- sqlite ---\n%s\n--- postgres ---\n%s", lite, pg)
	}
}

// TestPropertyInfoShowsTheHoursInForce: office hours an owner saved on
// the settings page, not the file's, are what property_info reports on
// the hub's server and on a location's, as the policy page shows them.
func TestPropertyInfoShowsTheHoursInForce(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	set, err := m.bookings.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := set.Group
	g.OfficeHours.Fri = "08:00-12:00, 13:00-17:00"
	g.OfficeHours.Sun = "10:00-14:00"
	if err := m.office.SaveGroupSettings(context.Background(), "olga", g); err != nil {
		t.Fatal(err)
	}
	for server, args := range map[string]map[string]any{"/mcp": {"property": "riverside"}, "/locations/riverside/mcp": nil} {
		cs := connect(t, m.URL+server, "2025-06-18")
		res, out := callTool(t, cs, "property_info", args)
		if res.IsError {
			t.Fatalf("%s property_info = %s", server, text(res))
		}
		hours := fmt.Sprint(out["office_hours"])
		if !strings.Contains(hours, "Fri 08:00-12:00, 13:00-17:00") || !strings.Contains(hours, "Sun 10:00-14:00") {
			t.Errorf("%s property_info office hours = %s, want the saved ones", server, hours)
		}
	}
	resp, err := http.Get(m.URL + "/policy")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if page, _ := io.ReadAll(resp.Body); !strings.Contains(string(page), "08:00-12:00, 13:00-17:00") {
		t.Errorf("the policy page lacks the saved hours")
	}
}
