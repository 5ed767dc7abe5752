package hub

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

// TestUSPOwnerOfToolArguments: an MCP tool call goes to the location its
// arguments' booking, hold, waitlist entry, service or slot names, by the
// names REST uses; nothing else in them picks a location, and one
// without an origin, an id that is no string or arguments that are no
// object name none.
func TestUSPOwnerOfToolArguments(t *testing.T) {
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": "http://127.0.0.1:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	entry := "wl_" + base64.RawURLEncoding.EncodeToString([]byte("svc_riverside_double|slot_riverside_double_20270101T2200Z|1|x"))
	for _, tt := range []struct {
		args string
		want string
	}{
		{`{"booking_id":"RIV-00112233AABBCCDD"}`, "riverside"},
		{`{"hold_id":"hold_RIV-00112233AABBCCDD","service_id":"svc_oldtown_single"}`, "riverside"},
		{`{"entry_id":"` + entry + `"}`, "riverside"},
		{`{"service_id":"svc_riverside_double","_meta":{"usp":{"profile":"https://platform.example/p.json"}}}`, "riverside"},
		{`{"slot_id":"slot_riverside_double_20270101T2200Z"}`, "riverside"},
		{`{"service_id":"svc_oldtown_single"}`, ""}, // no origin for oldtown here
		{`{"booking_id":7}`, ""},
		{`{"origin":"http://127.0.0.1:1","slug":"riverside"}`, ""},
		{`[]`, ""},
		{`{}`, ""},
	} {
		if got, _ := px.USPOwner(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("USPOwner(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestUSPCallKeepsTheProof: a tool call reaches the location's USP MCP
// endpoint on the stateless revision, at the Host the platform called,
// with its arguments byte for byte and its credential headers, and
// nothing else of the platform's request (its session, its cookies). The
// location's answer comes back as written; a location that does not
// answer is *Unreachable, naming it and its phone.
func TestUSPCallKeepsTheProof(t *testing.T) {
	var got *http.Request
	var body []byte
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set(PlatformHeader, "plat_1")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n")
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL, "oldtown": "http://127.0.0.1:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"booking_id":"RIV-00112233AABBCCDD",  "_meta":{"usp":{"authorization":{"mechanism":"platform_key_pop","proof":"p"}}}}`)
	header := http.Header{"Authorization": {"Bearer k"}, "Dpop": {"d"}, "Usp-Agent": {`profile="x"`}, "Cookie": {"s=1"},
		"Mcp-Session-Id": {"abc"}, "X-Frontdesk-Request-Host": {"evil.example"}}
	in := USPRequest{Host: "book.example.com", RemoteAddr: "203.0.113.9", Header: header, Name: "usp_bookings_get", Arguments: args}
	reply, err := px.USPCall(context.Background(), "riverside", in)
	if err != nil || string(reply.Message) != `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` || reply.Platform != "plat_1" {
		t.Fatalf("USPCall = %s %q, %v", reply.Message, reply.Platform, err)
	}
	if got.Header.Get(PlatformHeader) != askPlatform {
		t.Errorf("%s = %q: the location was not asked who the call was for", PlatformHeader, got.Header.Get(PlatformHeader))
	}
	if got.Host != "book.example.com" || got.URL.Path != "/usp/mcp" || got.Header.Get("Mcp-Protocol-Version") != "2026-07-28" || got.Header.Get("Mcp-Name") != "usp_bookings_get" {
		t.Errorf("request = %s %s %v", got.Host, got.URL.Path, got.Header)
	}
	for _, h := range []string{"Authorization", "Dpop", "Usp-Agent"} {
		if got.Header.Get(h) != header.Get(h) {
			t.Errorf("%s = %q, want %q", h, got.Header.Get(h), header.Get(h))
		}
	}
	for _, h := range []string{"Cookie", "Mcp-Session-Id", "X-Frontdesk-Request-Host"} {
		if got.Header.Get(h) != "" {
			t.Errorf("%s reached the location: %q", h, got.Header.Get(h))
		}
	}
	if !strings.Contains(got.Header.Get("X-Forwarded-For"), "203.0.113.9") {
		t.Errorf("X-Forwarded-For = %q", got.Header.Get("X-Forwarded-For"))
	}
	var sent struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &sent); string(sent.Params.Arguments) != string(args) {
		t.Errorf("arguments = %s, want %s byte for byte", sent.Params.Arguments, args)
	}
	_, err = px.USPCall(context.Background(), "oldtown", in)
	var down *Unreachable
	if !errors.As(err, &down) || err.Error() != "Old Town Lodge cannot be reached just now. Try again in a few minutes or call +1 303 555 0122." {
		t.Fatalf("a location down = %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
