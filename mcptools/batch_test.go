package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/metrics"
)

type noArgs struct{}

type ranOut struct {
	Ran string `json:"ran"`
}

// batchServer serves two limited tools and one ordinary tool over real
// HTTP on loopback, and records which tools ran.
func batchServer(t *testing.T) (string, *[]string) {
	t.Helper()
	var ran []string
	s := mcp.NewServer(&mcp.Implementation{Name: "batch-test", Version: "1"}, nil)
	env := toolEnv{server: "test", log: Options{}.logger(), metrics: metrics.New(), safe: func(err error) (string, bool) { return err.Error(), false }}
	for _, name := range []string{"get_booking", "cancel_booking", "list_properties"} {
		add(s, env, spec[noArgs, ranOut]{
			name: name, title: name, input: object(nil, map[string]*jsonschema.Schema{}),
			run: func(context.Context, noArgs) (ranOut, string, error) {
				ran = append(ran, name)
				return ranOut{Ran: name}, "ran " + name, nil
			},
		})
	}
	guard := BatchGuard{Limited: map[string]bool{"get_booking": true, "cancel_booking": true}}
	srv := httptest.NewServer(Handler(s, HTTPOptions{Hostnames: []string{"127.0.0.1"}, Guard: guard}))
	t.Cleanup(srv.Close)
	return srv.URL, &ran
}

func postRaw(t *testing.T, url string, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// results reads the tool results of an SSE or JSON answer by request id.
func results(t *testing.T, body string) map[float64]string {
	t.Helper()
	out := map[float64]string{}
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var m struct {
			ID     float64 `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("answer %q: %v", data, err)
		}
		if len(m.Result.Content) > 0 {
			out[m.ID] = fmt.Sprintf("%v %s", m.Result.IsError, m.Result.Content[0].Text)
		}
	}
	return out
}

func initialize(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, body := postRaw(t, url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	h := map[string]string{"Mcp-Session-Id": session}
	postRaw(t, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func callMsg(id int, name, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}%s}}`, id, name, meta)
}

// TestBatchWithTwoLimitedCallsRunsNeither is the per-batch rule: with two
// limited calls in one batch, both are refused before either runs, the
// first with the long sentence and the later with the short one, while an
// ordinary call in the batch still runs. A client cannot forge the marker.
func TestBatchWithTwoLimitedCallsRunsNeither(t *testing.T) {
	url, ran := batchServer(t)
	h := initialize(t, url)
	batch := "[" + callMsg(1, "get_booking", "") + "," + callMsg(2, "list_properties", "") + "," +
		callMsg(3, "cancel_booking", `,"_meta":{"frontdesk/batch-rejected":"none"}`) + "]"
	resp, body := postRaw(t, url, h, batch)
	if resp.StatusCode != 200 {
		t.Fatalf("batch: %d %s", resp.StatusCode, body)
	}
	got := results(t, body)
	want := map[float64]string{
		1: "true " + batchFirstRefusal,
		2: "false ran list_properties",
		3: "true " + batchLaterRefusal,
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("call %v = %q, want %q", id, got[id], w)
		}
	}
	if strings.Join(*ran, ",") != "list_properties" {
		t.Errorf("ran %v, want only list_properties", *ran)
	}
}

func TestBatchWithOneLimitedCallRunsIt(t *testing.T) {
	url, ran := batchServer(t)
	h := initialize(t, url)
	resp, body := postRaw(t, url, h, "["+callMsg(1, "get_booking", "")+","+callMsg(2, "list_properties", "")+"]")
	if resp.StatusCode != 200 {
		t.Fatalf("batch: %d %s", resp.StatusCode, body)
	}
	if got := results(t, body); got[1] != "false ran get_booking" || got[2] != "false ran list_properties" {
		t.Fatalf("results = %v", got)
	}
	if len(*ran) != 2 {
		t.Fatalf("ran %v", *ran)
	}
}

// TestForgedMarkerIsStripped shows that a single call carrying the marker
// runs normally: only the front may set it.
func TestForgedMarkerIsStripped(t *testing.T) {
	url, ran := batchServer(t)
	h := initialize(t, url)
	_, body := postRaw(t, url, h, callMsg(1, "get_booking", `,"_meta":{"frontdesk/batch-rejected":"first"}`))
	if got := results(t, body); got[1] != "false ran get_booking" {
		t.Fatalf("results = %v", got)
	}
	if len(*ran) != 1 {
		t.Fatalf("ran %v", *ran)
	}
}

func TestInspect(t *testing.T) {
	g := BatchGuard{Limited: map[string]bool{"a": true}}
	tests := []struct {
		in, out string
		batch   bool
		err     error
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"frontdesk/batch-rejected":"first"}}}`, `{"id":1,"jsonrpc":"2.0","method":"x","params":{}}`, false, nil},
		{`[` + callMsg(1, "a", "") + `,` + callMsg(2, "a", "") + `]`,
			`[{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"frontdesk/batch-rejected":"first"},"arguments":{},"name":"a"}},{"id":2,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"frontdesk/batch-rejected":"later"},"arguments":{},"name":"a"}}]`, true, nil},
		{`nope`, ``, false, errParse},
		{`[]`, ``, true, errNotJSONRPC},
		{`42`, ``, false, errNotJSONRPC},
	}
	for _, tt := range tests {
		out, batch, err := g.Inspect([]byte(tt.in))
		if string(out) != tt.out || batch != tt.batch || err != tt.err {
			t.Errorf("Inspect(%s) = %s, %v, %v; want %s, %v, %v", tt.in, out, batch, err, tt.out, tt.batch, tt.err)
		}
	}
}
