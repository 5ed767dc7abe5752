package uspmcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/mcpfront"
	"frontdesk/usp/usptest"
)

// fullPlatform is a platform profile that uses bookings as well.
const fullPlatform = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// headerTransport adds a header to every request of an MCP session: the
// platform's credentials on the HTTP transport, as §9.2.2 prefers.
type headerTransport struct {
	key, value string
	next       http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return h.next.RoundTrip(r)
}

// bookingSession is an MCP session of the registered test platform,
// authenticated by its API key on the HTTP transport.
func bookingSession(t *testing.T) (cs *mcp.ClientSession, profile, url string) {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullPlatform, "/second.json": fullPlatform})
	b := usptest.NewBusiness(t, usptest.WithPlatform(usptest.Manual(usptest.Unpaid(config.Demo()))), usptest.Now, plat, nil)
	srv := httptest.NewServer(mcpfront.Handler(New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hc := &http.Client{Transport: headerTransport{"Authorization", usptest.Bearer, http.DefaultTransport}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, plat.URL + "/full.json", srv.URL
}

func TestUSPBookingToolsOverMCP(t *testing.T) {
	cs, profile, _ := bookingSession(t)
	schemas := uspspec.Load(t)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if _, ok := schemas.Tools()[tool.Name]; !ok && !newerMethods(t)[tool.Name] {
			t.Errorf("%s is not a method of the OpenRPC document", tool.Name)
		}
	}
	for _, want := range []string{"usp_availability_hold", "usp_availability_release", "usp_bookings_create", "usp_bookings_get",
		"usp_bookings_update", "usp_bookings_confirm", "usp_bookings_cancel", "usp_bookings_reschedule"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s is not listed", want)
		}
	}
	meta := func(extra map[string]any) map[string]any {
		u := map[string]any{"profile": profile, "correlation_id": "corr-b"}
		for k, v := range extra {
			u[k] = v
		}
		return map[string]any{"usp": u}
	}
	call := func(t *testing.T, tool string, args map[string]any) map[string]any {
		t.Helper()
		if _, ok := args["_meta"]; !ok {
			args["_meta"] = meta(nil)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
		sc := res.StructuredContent.(map[string]any)
		if _, made := sc["booking"]; made || tool != "usp_bookings_create" {
			schemas.Check(t, schemas.MCPResult(t, tool), envelope)
		}
		if got := res.Meta["usp"].(map[string]any)["correlation_id"]; got != "corr-b" {
			t.Fatalf("correlation id = %v", got)
		}
		return sc
	}
	slots := call(t, "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"})["slots"].([]any)
	first, second := slots[0].(map[string]any)["id"], slots[1].(map[string]any)["id"]

	hold := call(t, "usp_availability_hold", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": first})["hold"].(map[string]any)
	buyer := map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}
	created := call(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": first, "hold_id": hold["id"], "buyer": buyer,
		"_meta": meta(map[string]any{"idempotency_key": "0b0d5b0e-1111-4000-8000-000000000001"})})
	booking := created["booking"].(map[string]any)
	id := booking["id"]
	if booking["status"] != "pending" {
		t.Fatalf("created = %v", booking)
	}
	if got := call(t, "usp_bookings_get", map[string]any{"booking_id": id})["booking"].(map[string]any); got["revision"] != booking["revision"] {
		t.Fatalf("get = %v", got)
	}
	updated := call(t, "usp_bookings_update", map[string]any{"booking_id": id, "notes": "two bags",
		"_meta": meta(map[string]any{"if_match": booking["revision"]})})["booking"].(map[string]any)
	// Staff confirm with their session; the platform's key cannot.
	staffMeta := meta(map[string]any{"authorization": map[string]any{"mechanism": "staff_session", "credential": usptest.StaffToken}})
	confirmed := call(t, "usp_bookings_confirm", map[string]any{"booking_id": id, "_meta": staffMeta})["booking"].(map[string]any)
	if confirmed["status"] != "confirmed" || confirmed["revision"] == updated["revision"] {
		t.Fatalf("confirmed = %v", confirmed)
	}
	moved := call(t, "usp_bookings_reschedule", map[string]any{"booking_id": id, "slot_id": second})["booking"].(map[string]any)
	if moved["slot"].(map[string]any)["id"] != second || moved["status"] != "confirmed" {
		t.Fatalf("rescheduled = %v", moved)
	}
	cancelled := call(t, "usp_bookings_cancel", map[string]any{"booking_id": id, "reason": "flight moved"})
	if cancelled["booking"].(map[string]any)["status"] != "canceled" {
		t.Fatalf("cancelled = %v", cancelled)
	}
	// Cancelling again is the business outcome invalid_transition.
	again := call(t, "usp_bookings_cancel", map[string]any{"booking_id": id})
	if msgs := again["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["code"] != "invalid_transition" {
		t.Fatalf("second cancel = %v", again)
	}
	// A new hold, released.
	h2 := call(t, "usp_availability_hold", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": first})["hold"].(map[string]any)
	if rel := call(t, "usp_availability_release", map[string]any{"hold_id": h2["id"]})["hold"].(map[string]any); rel["status"] != "released" {
		t.Fatalf("released = %v", rel)
	}
	// A slot another booking took: no booking, slot_unavailable.
	call(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": first, "buyer": buyer})
	lost := call(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": first, "buyer": buyer})
	if _, made := lost["booking"]; made || lost["messages"].([]any)[0].(map[string]any)["code"] != "slot_unavailable" {
		t.Fatalf("lost = %v", lost)
	}
}

func TestUSPBookingProtocolErrors(t *testing.T) {
	_, profile, url := bookingSession(t)
	schemas := uspspec.Load(t)
	buyer := map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}
	withMeta := func(u map[string]any) map[string]any {
		u["correlation_id"] = "corr-9"
		if _, ok := u["profile"]; !ok {
			u["profile"] = profile
		}
		return map[string]any{"usp": u}
	}
	apiKey := map[string]any{"mechanism": "api_key", "credential": usptest.APIKey}
	cases := []struct {
		name string
		tool string
		args map[string]any
		code string
		rpc  int64
	}{
		{"no credentials", "usp_availability_hold", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": "x", "_meta": withMeta(map[string]any{})}, "authentication_required", -32006},
		{"wrong key", "usp_bookings_get", map[string]any{"booking_id": "AIR-1", "_meta": withMeta(map[string]any{"authorization": map[string]any{"mechanism": "api_key", "credential": "nope"}})}, "authentication_required", -32006},
		{"unknown mechanism", "usp_bookings_get", map[string]any{"booking_id": "AIR-1", "_meta": withMeta(map[string]any{"authorization": map[string]any{"mechanism": "mtls"}})}, "authentication_required", -32006},
		{"platform confirms", "usp_bookings_confirm", map[string]any{"booking_id": "AIR-1", "_meta": withMeta(map[string]any{"authorization": apiKey})}, "authentication_required", -32006},
		{"unknown booking", "usp_bookings_get", map[string]any{"booking_id": "AIR-1", "_meta": withMeta(map[string]any{"authorization": apiKey})}, "booking_not_found", -32602},
		{"no buyer", "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": "x", "_meta": withMeta(map[string]any{"authorization": apiKey})}, "invalid_request", -32600},
		{"not a slot", "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": "slot_x", "buyer": buyer, "_meta": withMeta(map[string]any{"authorization": apiKey})}, "validation_error", -32602},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, message, raw := rawError(t, url, c.tool, c.args)
			var data map[string]any
			json.Unmarshal(raw, &data)
			if code != c.rpc || message != c.code || data["code"] != c.code || data["correlation_id"] != "corr-9" {
				t.Fatalf("error = %d %s %s", code, message, raw)
			}
			// The OpenRPC data.code enum leaves out booking_not_found and
			// validation_error, which §9.4.3 registers.
			if c.code != "booking_not_found" && c.code != "validation_error" {
				schemas.Check(t, uspspec.MCPErrorData, raw)
			}
		})
	}
}

// newerMethods are the MCP methods of the newer specification's OpenRPC
// document: the feed subscription operations other than subscribe are
// there only.
func newerMethods(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(uspspec.Newer(t), "openrpc", "usp-mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Methods []struct{ Name string } }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range doc.Methods {
		out[m.Name] = true
	}
	return out
}

// TestInputSchemasCarryEveryOpenRPCParameter: each served tool's input
// schema names every parameter its method has in the newer OpenRPC
// document, so a client built from that document finds nothing missing.
func TestInputSchemasCarryEveryOpenRPCParameter(t *testing.T) {
	cs, _, _ := bookingSession(t)
	params := uspspec.Load(t).NewerParams()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		want, ok := params[tool.Name]
		if !ok {
			t.Errorf("%s is not an OpenRPC method", tool.Name)
			continue
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(raw, &schema)
		for _, p := range want {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("%s: the input schema lacks the OpenRPC parameter %s", tool.Name, p)
			}
		}
	}
}

// TestOpenRPCParametersAreValidated: the parameters this business does
// not act on (context, delivery_address, post_payment_return_request)
// are accepted when well-formed and refused with §9.4.3's code when not;
// a date-time is no date and a wrong-typed member is validation_error.
func TestOpenRPCParametersAreValidated(t *testing.T) {
	cs, profile, _ := bookingSession(t)
	ctx := context.Background()
	meta := func(extra map[string]any) map[string]any {
		u := map[string]any{"profile": profile}
		for k, v := range extra {
			u[k] = v
		}
		return map[string]any{"usp": u}
	}
	slots, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_availability_query", Arguments: map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"}})
	if err != nil || slots.IsError {
		t.Fatal(err, slots)
	}
	slot := slots.StructuredContent.(map[string]any)["slots"].([]any)[0].(map[string]any)["id"].(string)
	buyer := map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}
	create := func(extra map[string]any) map[string]any {
		args := map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot, "buyer": buyer, "_meta": meta(nil)}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	address := map[string]any{"line1": "1 Main St", "city": "Denver", "country": "US"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_bookings_create", Arguments: create(map[string]any{
		"delivery_address": address, "post_payment_return_request": map[string]any{"url": "https://platform.example/return", "params": map[string]any{"s": "1"}}})})
	if err != nil || res.IsError {
		t.Fatalf("create with delivery_address: %v %+v", err, res)
	}
	if got := res.StructuredContent.(map[string]any)["booking"].(map[string]any)["delivery_address"]; got == nil || got.(map[string]any)["city"] != "Denver" {
		t.Fatalf("delivery_address echoed = %v", got)
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"context not an object", "usp_services_list", map[string]any{"context": "US"}, "validation_error"},
		{"context.language not a string", "usp_services_list", map[string]any{"context": map[string]any{"language": 7}}, "validation_error"},
		{"context.coordinates out of range", "usp_services_lookup", map[string]any{"ids": []any{"svc_airport_shuttle"}, "context": map[string]any{"coordinates": map[string]any{"latitude": 91, "longitude": 0}}}, "validation_error"},
		{"context.address_country not a code", "usp_services_lookup", map[string]any{"ids": []any{"svc_airport_shuttle"}, "context": map[string]any{"address_country": "United States"}}, "validation_error"},
		{"delivery_address without city", "usp_bookings_create", create(map[string]any{"delivery_address": map[string]any{"line1": "1 Main St", "country": "US"}}), "invalid_request"},
		{"delivery_address.country not a code", "usp_bookings_create", create(map[string]any{"delivery_address": map[string]any{"line1": "1 Main St", "city": "Denver", "country": "USA"}}), "validation_error"},
		{"post_payment_return_request over http", "usp_bookings_create", create(map[string]any{"post_payment_return_request": map[string]any{"url": "http://platform.example/return"}}), "validation_error"},
		{"idempotency key not a UUID", "usp_bookings_create", create(map[string]any{"_meta": meta(map[string]any{"idempotency_key": "retry-1"})}), "validation_error"},
		{"a date-time where a date-time or date is read, without its offset", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02T09:00:00", "end_date": "2026-03-03"}, "validation_error"},
		{"a date with a time glued on", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02x", "end_date": "2026-03-03"}, "validation_error"},
		{"party_size a string", "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-03", "party_size": "2"}, "validation_error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) {
				t.Fatalf("%s: %v, want the protocol error %s", c.name, err, c.code)
			}
			var data struct{ Code string }
			json.Unmarshal(rpc.Data, &data)
			if data.Code != c.code || rpc.Message != c.code {
				t.Fatalf("%s: %s %s, want %s", c.name, rpc.Message, rpc.Data, c.code)
			}
		})
	}
}

// TestRefusedFirstCallsBindNothing: a key's first privileged calls name
// profile A and are refused for their arguments or later in the
// operation (a malformed buyer, an unknown slot, an unknown booking, a
// keyed hold of an unknown service); none binds the key, so a correct
// call naming profile B succeeds and binds it, and A is then refused.
func TestRefusedFirstCallsBindNothing(t *testing.T) {
	cs, profile, url := bookingSession(t)
	ctx := context.Background()
	second := strings.TrimSuffix(profile, "/full.json") + "/second.json"
	slots, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_availability_query", Arguments: map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"}})
	if err != nil || slots.IsError {
		t.Fatal(err, slots)
	}
	slot := slots.StructuredContent.(map[string]any)["slots"].([]any)[0].(map[string]any)["id"].(string)
	call := func(tool, uri string, args map[string]any) string {
		meta := map[string]any{"profile": uri}
		if key, ok := args["idempotency_key"]; ok {
			meta["idempotency_key"] = key
			delete(args, "idempotency_key")
		}
		args["_meta"] = map[string]any{"usp": meta}
		_, message, _ := rawErrorWith(t, url, tool, args, map[string]string{"Authorization": usptest.Bearer})
		return message
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"malformed buyer", "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot, "buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "not an email"}}, "validation_error"},
		{"unknown slot", "usp_availability_hold", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": "slot_nowhere"}, "validation_error"},
		{"unknown service, keyed", "usp_availability_hold", map[string]any{"service_id": "svc_nowhere", "slot_id": slot, "idempotency_key": "6f1c7a52-0000-4000-8000-000000000009"}, "validation_error"},
		{"unknown booking", "usp_bookings_get", map[string]any{"booking_id": "APS-1"}, "booking_not_found"},
	} {
		if got := call(c.tool, profile, c.args); got != c.code {
			t.Fatalf("first call, %s: %q, want %q", c.name, got, c.code)
		}
	}
	if got := call("usp_availability_hold", second, map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot}); got != "" {
		t.Fatalf("a correct call naming profile B after refused calls naming A: %s", got)
	}
	if got := call("usp_bookings_get", profile, map[string]any{"booking_id": "APS-1"}); got != "profile_not_trusted" {
		t.Fatalf("profile A after B was bound: %q, want profile_not_trusted", got)
	}
}

// TestFirstContactRefusedThenRealProfile: a key's first calls name
// profiles that are refused (missing, plain http, a version from the
// future, not JSON); none of them binds the key, so the real profile is
// accepted afterwards, and then binds it for good.
func TestFirstContactRefusedThenRealProfile(t *testing.T) {
	cs, profile, url := bookingSession(t)
	ctx := context.Background()
	base := strings.TrimSuffix(profile, "/full.json")
	slots, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_availability_query", Arguments: map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"}})
	if err != nil || slots.IsError {
		t.Fatal(err, slots)
	}
	slot := slots.StructuredContent.(map[string]any)["slots"].([]any)[0].(map[string]any)["id"].(string)
	// The raw transport: the go-sdk client closes its session on -32003,
	// profile_unreachable's number.
	hold := func(uri string) string {
		_, message, _ := rawErrorWith(t, url, "usp_availability_hold", map[string]any{
			"service_id": "svc_airport_shuttle", "slot_id": slot, "_meta": map[string]any{"usp": map[string]any{"profile": uri}}},
			map[string]string{"Authorization": usptest.Bearer})
		return message
	}
	for _, c := range []struct{ uri, code string }{
		{base + "/missing.json", "profile_unreachable"},
		{"http" + strings.TrimPrefix(base, "https") + "/full.json", "invalid_profile_url"},
		{base + "/newer.json", "version_unsupported"},
		{base + "/bookings-only.json", ""}, // capabilities_incompatible: an outcome, not a refusal, and no binding either
	} {
		if got := hold(c.uri); got != c.code {
			t.Fatalf("first contact with %s: %q, want %q", c.uri, got, c.code)
		}
	}
	if got := hold(profile); got != "" {
		t.Fatalf("the real profile after refused first contacts: %s", got)
	}
	if got := hold(base + "/platform.json"); got != "profile_not_trusted" {
		t.Fatalf("another profile after the binding: %s, want profile_not_trusted", got)
	}
}
