package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/metrics"
)

type noArgs struct{}

type ranOut struct {
	Ran string `json:"ran"`
}

// ranTools records which tools ran; calls of a batch run concurrently.
type ranTools struct {
	mu   sync.Mutex
	list []string
}

func (r *ranTools) add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, name)
}

// names lists the tools that ran, sorted: batch order is not run order.
func (r *ranTools) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.list))
}

// testGuard limits the two booking tools of batchTools.
var testGuard = BatchGuard{Limited: map[string]bool{"get_booking": true, "cancel_booking": true}}

// batchTools is a server with two limited tools and one ordinary tool
// that record when they run.
func batchTools() (*mcp.Server, *ranTools) {
	ran := &ranTools{}
	s := mcp.NewServer(&mcp.Implementation{Name: "batch-test", Version: "1"}, nil)
	env := Env{Server: "test", Log: Options{}.Log(), Metrics: metrics.New(), Safe: func(err error) (string, string, bool) { return err.Error(), "refused", false }}
	for _, name := range []string{"get_booking", "cancel_booking", "list_properties"} {
		Add(s, env, Tool[noArgs, ranOut]{
			Name: name, Title: name, Input: Object(nil, map[string]*jsonschema.Schema{}),
			Run: func(context.Context, noArgs) (ranOut, string, error) {
				ran.add(name)
				return ranOut{Ran: name}, "ran " + name, nil
			},
		})
	}
	return s, ran
}

// batchServer serves batchTools over real HTTP on loopback.
func batchServer(t *testing.T) (string, *ranTools) {
	t.Helper()
	s, ran := batchTools()
	srv := httptest.NewServer(Handler(s, HTTPOptions{Hostnames: []string{"127.0.0.1"}, Guard: testGuard}))
	t.Cleanup(srv.Close)
	return srv.URL, ran
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
	if strings.Join(ran.names(), ",") != "list_properties" {
		t.Errorf("ran %v, want only list_properties", ran.names())
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
	if len(ran.names()) != 2 {
		t.Fatalf("ran %v", ran.names())
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
	if len(ran.names()) != 1 {
		t.Fatalf("ran %v", ran.names())
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

// rawCall is a tools/call message with its top-level fields and params
// written out verbatim, so a test can repeat or vary the case of a key.
func rawCall(id int, top, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s"params":{%s"arguments":{}}}`, id, top, params)
}

// TestBatchGuardReadsKeysAsTheSDKDoes covers the bypass of the batch
// rule: a key that differs from method or name only in letter case made
// the guard read another method or tool than the SDK runs, so two
// limited calls both ran. Keys are now read case-sensitively, as the SDK
// reads them; the control rows show ordinary batches unchanged.
func TestBatchGuardReadsKeysAsTheSDKDoes(t *testing.T) {
	plain := callMsg(1, "get_booking", "")
	tests := []struct {
		name, second string
		wantRan      string
		want2        string
	}{
		{"METHOD after method", rawCall(2, `"method":"tools/call","METHOD":"ping",`, `"name":"cancel_booking",`), "", "true " + batchLaterRefusal},
		{"Method after method", rawCall(2, `"method":"tools/call","Method":"ping",`, `"name":"cancel_booking",`), "", "true " + batchLaterRefusal},
		{"Method before method", rawCall(2, `"Method":"ping","method":"tools/call",`, `"name":"cancel_booking",`), "", "true " + batchLaterRefusal},
		{"Name after name", rawCall(2, `"method":"tools/call",`, `"name":"cancel_booking","Name":"list_properties",`), "", "true " + batchLaterRefusal},
		{"NAME after name", rawCall(2, `"method":"tools/call",`, `"name":"cancel_booking","NAME":"list_properties",`), "", "true " + batchLaterRefusal},
		// Controls: an ordinary call beside a limited one runs, even with
		// a case variant of name that the SDK ignores.
		{"control: ordinary call", rawCall(2, `"method":"tools/call",`, `"name":"list_properties",`), "get_booking,list_properties", "false ran list_properties"},
		{"control: Name variant on an ordinary call", rawCall(2, `"method":"tools/call",`, `"name":"list_properties","Name":"cancel_booking",`), "get_booking,list_properties", "false ran list_properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ran := batchServer(t)
			h := initialize(t, url)
			resp, body := postRaw(t, url, h, "["+plain+","+tt.second+"]")
			if resp.StatusCode != 200 {
				t.Fatalf("batch: %d %s", resp.StatusCode, body)
			}
			got := results(t, body)
			if got[2] != tt.want2 {
				t.Errorf("second call = %q, want %q", got[2], tt.want2)
			}
			if strings.Join(ran.names(), ",") != tt.wantRan {
				t.Errorf("ran %v, want %q", ran.names(), tt.wantRan)
			}
		})
	}
}

// TestBatchGuardRefusesDuplicateKeys: decoders disagree about which of
// two equal keys wins, so a message that repeats one, in method, in
// params.name or params._meta, is refused as malformed and nothing in
// its batch runs. The control is the same batch without the repeat.
func TestBatchGuardRefusesDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, second string
		refused      bool
	}{
		{"method twice", rawCall(2, `"method":"ping","method":"tools/call",`, `"name":"cancel_booking",`), true},
		{"method twice, escaped", rawCall(2, `"method":"ping","\u006dethod":"tools/call",`, `"name":"cancel_booking",`), true},
		{"name twice", rawCall(2, `"method":"tools/call",`, `"name":"list_properties","name":"cancel_booking",`), true},
		{"name twice, limited first", rawCall(2, `"method":"tools/call",`, `"name":"cancel_booking","name":"list_properties",`), true},
		{"a key twice in _meta", rawCall(2, `"method":"tools/call",`, `"name":"list_properties","_meta":{"a":1,"a":2},`), true},
		{"control: no repeat", rawCall(2, `"method":"tools/call",`, `"name":"list_properties",`), false},
		// Arguments are the tool's to judge (ORP refuses a repeat with its
		// own error); the guard does not read them.
		{"control: a key twice in arguments", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_properties","arguments":{"a":1,"a":2}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ran := batchServer(t)
			h := initialize(t, url)
			resp, body := postRaw(t, url, h, "["+callMsg(1, "get_booking", "")+","+tt.second+"]")
			if !tt.refused {
				// Both calls reach their tool, which answers.
				if resp.StatusCode != 200 || len(results(t, body)) != 2 {
					t.Fatalf("control batch: %d %s, ran %v", resp.StatusCode, body, ran.names())
				}
				return
			}
			want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a JSON object in the message repeats a key."}}` + "\n"
			if resp.StatusCode != 400 || !jsonEqual(body, want) || len(ran.names()) != 0 {
				t.Fatalf("batch = %d %s, ran %v; want 400 %s and nothing run", resp.StatusCode, body, ran.names(), want)
			}
		})
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// TestBatchSizeIsCapped refuses a batch of more than maxBatch messages
// before any call runs, with a short answer; maxBatch messages still run.
func TestBatchSizeIsCapped(t *testing.T) {
	url, ran := batchServer(t)
	h := initialize(t, url)
	batch := func(n int) string {
		var msgs []string
		for i := range n {
			msgs = append(msgs, callMsg(i+1, "list_properties", ""))
		}
		return "[" + strings.Join(msgs, ",") + "]"
	}
	resp, body := postRaw(t, url, h, batch(7000))
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most %d messages; send the calls in smaller batches."}}`, maxBatch)
	if resp.StatusCode != 400 || !jsonEqual(body, want) || len(ran.names()) != 0 {
		t.Fatalf("7000 calls = %d %s, ran %d; want 400 %s", resp.StatusCode, body, len(ran.names()), want)
	}
	resp, _ = postRaw(t, url, h, batch(maxBatch))
	if resp.StatusCode != 200 || len(ran.names()) != maxBatch {
		t.Fatalf("%d calls = %d, ran %d", maxBatch, resp.StatusCode, len(ran.names()))
	}
}

// TestStdioRefusesWhatTheGuardRefuses: over stdio a line the guard
// refuses is answered with the JSON-RPC error and never reaches the SDK,
// which would run it.
func TestStdioRefusesWhatTheGuardRefuses(t *testing.T) {
	s, ran := batchTools()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"[" + callMsg(1, "get_booking", "") + "," + rawCall(2, `"method":"ping","method":"tools/call",`, `"name":"cancel_booking",`) + "]",
		"",
	}, "\n")
	var out strings.Builder
	if err := ServeStdio(context.Background(), s, strings.NewReader(in), &out, testGuard); err != nil && err != io.EOF {
		t.Logf("stdio ended: %v", err)
	}
	if len(ran.names()) != 0 || !strings.Contains(out.String(), "repeats a key") {
		t.Fatalf("ran %v; output %s", ran.names(), out.String())
	}
}

// TestDeepNestingIsRefusedBeforeDecoding: a small body nested far deeper
// than any message needs is refused from its bytes, before anything
// decodes it, on every MCP server (the guard is the front's first step).
func TestDeepNestingIsRefusedBeforeDecoding(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_rooms","arguments":{"x":` +
		strings.Repeat("[", 32000) + strings.Repeat("]", 32000) + `}}}`
	_, _, err := BatchGuard{}.Inspect([]byte(deep))
	status, code, message, refused := guardAnswer(err, false, "2025-11-25")
	if !refused || status != 400 || code != -32600 || !strings.Contains(message, "nests arrays and objects more than 64 deep") {
		t.Fatalf("deep body = %v: %d %d %q", err, status, code, message)
	}
	ok := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}}`
	if _, _, err := (BatchGuard{}).Inspect([]byte(ok)); err != nil {
		t.Fatalf("a body 44 deep was refused: %v", err)
	}
}

// keysByDecoder reads an object's members with encoding/json's token
// reader: the reference objectKeys must agree with on every valid JSON
// value.
func keysByDecoder(raw []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errParse
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, errParse
		}
		if _, seen := out[key]; seen {
			return nil, errDuplicateKey
		}
		out[key] = value
	}
	return out, nil
}

// FuzzObjectKeys checks the one-pass reader of members against
// encoding/json on every valid JSON value: the same keys (escaped or
// not, with invalid UTF-8 read as encoding/json reads it), the same
// values, the same refusal of a repeated key.
func FuzzObjectKeys(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":"}"}]},"d":"x\"y"}`,
		`{"\u0061":1,"a":2}`, `{"a\\":1,"a\\":true}`, "{\"\xff\":1,\"\xfe\":2}", `{"a" : null , "b" : [ ] }`,
		`[1,{"a":1}]`, `"text"`, `42`, `{"a":"\ud800"}`, `{"é":1,"\u00e9":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, gotErr := objectKeys(raw)
		want, wantErr := keysByDecoder(raw)
		if gotErr != wantErr {
			t.Fatalf("objectKeys(%q) error = %v, encoding/json = %v", raw, gotErr, wantErr)
		}
		if len(got) != len(want) || (got == nil) != (want == nil) {
			t.Fatalf("objectKeys(%q) = %v, encoding/json = %v", raw, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("objectKeys(%q)[%q] = %s, encoding/json = %s", raw, k, got[k], v)
			}
		}
	})
}

// BenchmarkInspect: the guard's reading of one tools/call of the size a
// usp_bookings_create is.
func BenchmarkInspect(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"usp_bookings_create","arguments":{"service_id":"svc_airport_shuttle","slot_id":"slot_airport_shuttle_20261202T1300Z","buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},"_meta":{"usp":{"profile":"https://platform.example/usp.json","idempotency_key":"wrk-1-1-0badcafe"}}}}}`)
	g := BatchGuard{Limited: map[string]bool{"start_booking": true}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := g.Inspect(body); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzInspect: the batch guard never panics; what it passes on is valid
// JSON that is a batch exactly when it said so, of at most maxBatch
// messages; and a single message it passed is passed again unchanged, so
// the SDK reads what the guard read.
func FuzzInspect(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_booking"}}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"frontdesk/batch":"x"}}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"}`, `[]`, `[1]`, `{}`, `nope`, `[[[[[[[[]]]]]]]]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"a":1,"a":2}}}`,
	} {
		f.Add([]byte(seed))
	}
	g := BatchGuard{Limited: map[string]bool{"start_booking": true, "confirm_booking": true}}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, isBatch, err := g.Inspect(body)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Inspect(%q) passed on invalid JSON %q", body, out)
		}
		var batch []json.RawMessage
		if (json.Unmarshal(out, &batch) == nil) != isBatch {
			t.Fatalf("Inspect(%q) = %q, batch %v", body, out, isBatch)
		}
		if len(batch) > maxBatch {
			t.Fatalf("Inspect passed a batch of %d", len(batch))
		}
		if !isBatch || len(batch) <= 1 {
			if again, _, err := g.Inspect(out); err != nil || !bytes.Equal(again, out) {
				t.Fatalf("Inspect(%q) = %q, then %q, %v", body, out, again, err)
			}
		}
	})
}

// TestCheckEnvelopeAgreesWithReadEnvelope: the single message's check
// refuses exactly what reading its keys refuses, and for the same reason.
func TestCheckEnvelopeAgreesWithReadEnvelope(t *testing.T) {
	many := `"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19`
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"x":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"m\u0065thod":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1,"params":{"name":"a","name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"_meta":{"a":1,"\u0061":2}}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"_meta":{"a":1},"_meta":{}}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"_meta":{` + many + `}}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"_meta":{` + many + `,"k19":0}}}`,
		`{"jsonrpc":"2.0","id":1,"params":{` + many + `,"k3":0}}`,
		`{"jsonrpc":"2.0","id":1,"params":[1,2],"_meta":{"a":1,"a":1}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"_meta":"x"}}`,
		`{}`, `{ }`, `{"params":{}}`,
	} {
		_, want := readEnvelope(json.RawMessage(m))
		if got := checkEnvelope(json.RawMessage(m)); got != want {
			t.Errorf("checkEnvelope(%s) = %v, readEnvelope says %v", m, got, want)
		}
	}
}
