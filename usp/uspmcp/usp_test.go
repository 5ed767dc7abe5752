package uspmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/mcpfront"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// uspSession connects the go-sdk client to the USP server behind the HTTP
// front on loopback. Platform profiles come from a local TLS server. It
// returns the session, the platform server's URL and the USP server's.
func uspSession(t *testing.T) (*mcp.ClientSession, string, string) {
	t.Helper()
	plat := usptest.NewPlatforms(t, nil)
	b := usptest.NewBusiness(t, usptest.PublicOnly(config.Demo()), usptest.Now, plat, nil)
	srv := httptest.NewServer(mcpfront.Handler(New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, plat.URL, srv.URL
}

func TestUSPToolsOverMCP(t *testing.T) {
	cs, plat, _ := uspSession(t)
	schemas := uspspec.Load(t)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if access := schemas.Tools()[tool.Name]; access != "public" {
			t.Errorf("%s is %q in the OpenRPC document; only public methods are served", tool.Name, access)
		}
	}
	if want := []string{"usp_availability_query", "usp_services_feed", "usp_services_get", "usp_services_list", "usp_services_lookup"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	withMeta := func(args map[string]any) map[string]any {
		args["_meta"] = map[string]any{"usp": map[string]any{"profile": plat + "/platform.json", "correlation_id": "corr-7"}}
		return args
	}
	cases := []struct {
		tool  string
		args  map[string]any
		check func(t *testing.T, sc map[string]any)
	}{
		{"usp_services_list", withMeta(map[string]any{"query": "room", "pagination": map[string]any{"limit": 3}}), func(t *testing.T, sc map[string]any) {
			if len(sc["services"].([]any)) != 3 || sc["pagination"].(map[string]any)["cursor"] == nil {
				t.Fatalf("list = %v", sc)
			}
		}},
		{"usp_services_get", withMeta(map[string]any{"service_id": "svc_airport_shuttle"}), func(t *testing.T, sc map[string]any) {
			if sc["service"].(map[string]any)["id"] != "svc_airport_shuttle" {
				t.Fatalf("get = %v", sc)
			}
		}},
		{"usp_services_lookup", withMeta(map[string]any{"ids": []string{"svc_riverside_double", "svc_none"}}), func(t *testing.T, sc map[string]any) {
			if len(sc["services"].([]any)) != 1 || len(sc["messages"].([]any)) != 1 {
				t.Fatalf("lookup = %v", sc)
			}
		}},
		{"usp_availability_query", withMeta(map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-15", "limit": 500}), func(t *testing.T, sc map[string]any) {
			if len(sc["slots"].([]any)) != 224 {
				t.Fatalf("%d slots over 14 days, want 224", len(sc["slots"].([]any)))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
			schemas.Check(t, schemas.MCPResult(t, c.tool), envelope)
			sc := res.StructuredContent.(map[string]any)
			u := sc["usp"].(map[string]any)
			if u["version"] != usp.Version || len(u["capabilities"].(map[string]any)) != 1 {
				t.Fatalf("usp = %v", u)
			}
			if _, ok := sc["messages"].([]any); !ok {
				t.Fatal("no messages[] array")
			}
			if got := res.Meta["usp"].(map[string]any)["correlation_id"]; got != "corr-7" {
				t.Fatalf("correlation id = %v", got)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; text == "" {
				t.Fatal("no text summary")
			}
			c.check(t, sc)
		})
	}
}

// rawError calls a tool with a stateless request and returns the
// JSON-RPC error of the answer. The raw wire is read because the go-sdk
// client takes the codes -32003 and -32004, which USP gives to
// profile_unreachable and profile_malformed, for its own closing signals.
func rawError(t *testing.T, url, tool string, args map[string]any) (code int64, message string, data json.RawMessage) {
	t.Helper()
	return rawErrorWith(t, url, tool, args, nil)
}

// rawErrorWith is rawError with extra request headers (credentials).
func rawErrorWith(t *testing.T, url, tool string, args map[string]any, header map[string]string) (code int64, message string, data json.RawMessage) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
		"name":  tool, "arguments": args,
	}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(raw)
	if header != nil && !strings.Contains(text, `"error":{`) {
		return 0, "", nil // a result: no protocol error
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(line, "data: ")
		var msg struct {
			Error *struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Error != nil {
			return msg.Error.Code, msg.Error.Message, msg.Error.Data
		}
	}
	t.Fatalf("no JSON-RPC error in %s", text)
	return 0, "", nil
}

func TestUSPProtocolErrorsAreJSONRPCErrors(t *testing.T) {
	cs, plat, url := uspSession(t)
	schemas := uspspec.Load(t)
	ctx := context.Background()
	cases := []struct {
		name string
		tool string
		args map[string]any
		code string
		rpc  int64
	}{
		{"missing field", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle"}, "invalid_request", -32600},
		{"wrong type", "usp_availability_query", map[string]any{"service_id": 7, "start_date": "2026-03-02", "end_date": "2026-03-03"}, "validation_error", -32602},
		{"too wide", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-06-03"}, "range_too_wide", -32602},
		{"ten years", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2036-03-02"}, "validation_error", -32602},
		{"unreachable profile", "usp_services_list", map[string]any{"_meta": map[string]any{"usp": map[string]any{"profile": plat + "/gone.json"}}}, "profile_unreachable", -32003},
		{"http profile", "usp_services_list", map[string]any{"_meta": map[string]any{"usp": map[string]any{"profile": "http://agent.example/p.json"}}}, "invalid_profile_url", -32602},
		{"unknown service", "usp_services_get", map[string]any{"service_id": "svc_none"}, "service_not_found", -32602},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.args["_meta"] = mergeCorrelation(c.args["_meta"])
			code, message, raw := rawError(t, url, c.tool, c.args)
			var data map[string]any
			json.Unmarshal(raw, &data)
			if code != c.rpc || message != c.code || data["code"] != c.code || data["content"] == "" || data["correlation_id"] != "corr-9" {
				t.Fatalf("error = %d %s %s", code, message, raw)
			}
			// The snapshot's data.code enum is narrower than §9.4.3 of
			// the newer text, which registers every code but a
			// not-found code for services.
			if c.code != "service_not_found" {
				schemas.Check(t, uspspec.NewerMCPErrorData, raw)
			}
		})
	}
	// The go-sdk client sees the same error as a JSON-RPC error, not a
	// tool result.
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_services_get", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32600 || rpcErr.Message != "invalid_request" {
		t.Fatalf("client saw %v", err)
	}
	// A business outcome is a result, not an error.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_services_list", Arguments: map[string]any{
		"_meta": map[string]any{"usp": map[string]any{"profile": plat + "/bookings-only.json"}}}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
	schemas.Check(t, schemas.MCPResult(t, "usp_services_list"), envelope)
	msgs := res.StructuredContent.(map[string]any)["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["code"] != "capabilities_incompatible" {
		t.Fatalf("messages = %v", msgs)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text[:7] != "Error: " {
		t.Fatalf("summary = %q", text)
	}
}

func mergeCorrelation(m any) map[string]any {
	out, _ := m.(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	u, _ := out["usp"].(map[string]any)
	if u == nil {
		u = map[string]any{}
	}
	u["correlation_id"] = "corr-9"
	out["usp"] = u
	return out
}

// TestCorrelationIdOverMCPOnHTTP: when MCP runs over HTTP, the
// USP-Correlation-Id header is echoed on the response, as on REST, and
// stands for _meta.usp.correlation_id in results and errors when the
// arguments carry none.
func TestCorrelationIdOverMCPOnHTTP(t *testing.T) {
	plat := usptest.NewPlatforms(t, nil)
	b := usptest.NewBusiness(t, usptest.PublicOnly(config.Demo()), usptest.Now, plat, nil)
	srv := httptest.NewServer(EchoCorrelation(mcpfront.Handler(New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}})))
	t.Cleanup(srv.Close)
	post := func(tool string, args map[string]any) (*http.Response, string) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
			"name":  tool, "arguments": args,
		}})
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28",
			"Mcp-Method": "tools/call", "Mcp-Name": tool, "USP-Correlation-Id": "join-42"} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(raw)
	}
	resp, text := post("usp_services_get", map[string]any{"service_id": "svc_airport_shuttle"})
	if got := resp.Header.Get("USP-Correlation-Id"); got != "join-42" {
		t.Fatalf("result: USP-Correlation-Id = %q, want join-42", got)
	}
	if !strings.Contains(text, `"usp":{"correlation_id":"join-42"}`) {
		t.Fatalf("result does not carry the header's join id in _meta.usp: %s", text)
	}
	resp, text = post("usp_services_get", map[string]any{"service_id": "svc_nowhere"})
	if got := resp.Header.Get("USP-Correlation-Id"); got != "join-42" || !strings.Contains(text, `"correlation_id":"join-42"`) {
		t.Fatalf("error: header %q, body %s; want join-42 in both", got, text)
	}
}
