package usp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"frontdesk/internal/clock"
	"frontdesk/usp/usptest"
)

// ownDoc is the business's served OpenAPI document, compiled, to check
// real answers against.
type ownDoc struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
}

const ownURI = "https://business.example/usp/openapi.json"

func loadOwnDoc(t *testing.T, base string) *ownDoc {
	t.Helper()
	resp, err := http.Get(base + "/usp/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(ownURI, doc); err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	json.Unmarshal(raw, &plain)
	return &ownDoc{doc: plain, compiler: c}
}

// check fails unless the served document lists status for the operation
// at method and path, with the header names given, and body validates
// against the schema it gives for that status.
func (o *ownDoc) check(t *testing.T, method, path string, status int, header http.Header, raw []byte) {
	t.Helper()
	op, _ := o.doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	resp, ok := op["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	if !ok {
		t.Fatalf("%s %s answered %d, which the served OpenAPI document does not list", method, path, status)
	}
	if header.Get("USP-Correlation-Id") != "" {
		if _, ok := resp["headers"].(map[string]any)["USP-Correlation-Id"]; !ok {
			t.Errorf("%s %s %d: echoed USP-Correlation-Id is not documented", method, path, status)
		}
	}
	media := "application/json"
	if status >= 400 {
		media = "application/problem+json"
	}
	if got := header.Get("Content-Type"); got != media {
		t.Errorf("%s %s %d: Content-Type %q, the document says %q", method, path, status, got, media)
	}
	ptr := "#/paths/" + strings.ReplaceAll(strings.ReplaceAll(path, "~", "~0"), "/", "~1") + "/" + strings.ToLower(method) + "/responses/" + strconv.Itoa(status) + "/content/" + strings.ReplaceAll(media, "/", "~1") + "/schema"
	sch, err := o.compiler.Compile(ownURI + "#" + (&url.URL{Fragment: ptr[1:]}).EscapedFragment())
	if err != nil {
		t.Fatalf("compile %s: %v", ptr, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("%s %s %d: the answer does not match the served document: %v\n%s", method, path, status, err, raw)
	}
}

// TestServedOpenAPIDescribesRealAnswers: every answer of a session of
// real REST calls (reads, a booking created, read, refused with a stale
// If-Match and cancelled, a waitlist joined, an unknown service, a call
// without credentials) has its status listed for its operation in the
// business's own OpenAPI document, and its body validates against the
// schema listed there. The document names If-Match, USP-Correlation-Id
// and the authentication schemes. Before, every answer was "default".
func TestServedOpenAPIDescribesRealAnswers(t *testing.T) {
	w := waitBenchOn(t, engines()["sqlite"], clock.NewFixed(usptest.Now))
	own := loadOwnDoc(t, w.rest)
	do := func(method, path, spec, body string, headers map[string]string) (int, map[string]any) {
		req, _ := http.NewRequest(method, w.rest+"/usp"+path, strings.NewReader(body))
		req.Header.Set("Authorization", usptest.Bearer)
		req.Header.Set("USP-Agent", `profile="`+w.call.Profile+`"`)
		req.Header.Set("USP-Correlation-Id", "corr-1")
		for k, v := range headers {
			if v == "" {
				req.Header.Del(k)
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("USP-Correlation-Id") != "corr-1" {
			t.Errorf("%s %s: USP-Correlation-Id not echoed", method, path)
		}
		own.check(t, method, spec, resp.StatusCode, resp.Header, raw)
		var out map[string]any
		json.Unmarshal(raw, &out)
		return resp.StatusCode, out
	}
	do("POST", "/services/list", "/services/list", `{}`, nil)
	do("GET", "/services/svc_airport_shuttle", "/services/{service_id}", "", nil)
	if status, _ := do("GET", "/services/svc_nope", "/services/{service_id}", "", nil); status != 404 {
		t.Fatalf("an unknown service = %d", status)
	}
	slot := w.slot(t, "svc_airport_shuttle", "2026-03-02")
	do("POST", "/availability/query", "/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2026-03-02"}`, nil)
	status, created := do("POST", "/bookings", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot.ID),
		map[string]string{"Idempotency-Key": "9b2f6d1e-0000-4000-8000-000000000001"})
	if status != 201 {
		t.Fatalf("create = %d %v", status, created)
	}
	id := created["booking"].(map[string]any)["id"].(string)
	do("GET", "/bookings/"+id, "/bookings/{booking_id}", "", nil)
	if status, _ := do("POST", "/bookings/"+id+"/cancel", "/bookings/{booking_id}/cancel", `{}`, map[string]string{"If-Match": `"v999"`}); status != 412 {
		t.Fatalf("cancel with a stale If-Match = %d, want 412", status)
	}
	if status, _ := do("GET", "/bookings/"+id, "/bookings/{booking_id}", "", map[string]string{"Authorization": ""}); status != 401 {
		t.Fatalf("a read without credentials = %d, want 401", status)
	}
	do("POST", "/bookings/"+id+"/cancel", "/bookings/{booking_id}/cancel", `{}`, nil)
	w.bookEvenings(t, "2026-03-03")
	do("POST", "/waitlist", "/waitlist", `{"service_id":"svc_airport_shuttle","buyer":{"first_name":"Bob","last_name":"W","email":"bob@example.com"},"preferred_slots":[{"start_date":"2026-03-03","end_date":"2026-03-03","time_of_day":"evening"}]}`, nil)
	do("POST", "/waitlist/list", "/waitlist/list", `{}`, nil)

	// The headers read and the authentication schemes are named.
	cancel := own.doc["paths"].(map[string]any)["/bookings/{booking_id}/cancel"].(map[string]any)["post"].(map[string]any)
	params, _ := json.Marshal(cancel["parameters"])
	for _, h := range []string{`"If-Match"`, `"USP-Correlation-Id"`, `"Idempotency-Key"`, `"USP-Agent"`} {
		if !bytes.Contains(params, []byte(h)) {
			t.Errorf("cancel's parameters lack %s: %s", h, params)
		}
	}
	schemes, _ := own.doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	if len(schemes) < 4 || cancel["security"] == nil {
		t.Errorf("security schemes %v, cancel's security %v", schemes, cancel["security"])
	}
}

// TestServedOpenRPCDescribesRealAnswers: tool results over MCP validate
// against the result schema of their method in the business's own
// OpenRPC document, and each method lists its errors.
func TestServedOpenRPCDescribesRealAnswers(t *testing.T) {
	w := waitBenchOn(t, engines()["sqlite"], clock.NewFixed(usptest.Now))
	resp, err := http.Get(w.rest + "/usp/openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	const uri = "https://business.example/usp/openrpc.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(uri, doc); err != nil {
		t.Fatal(err)
	}
	var plain struct {
		Methods []struct {
			Name   string           `json:"name"`
			Errors []map[string]any `json:"errors"`
		} `json:"methods"`
	}
	json.Unmarshal(raw, &plain)
	index := map[string]int{}
	for i, m := range plain.Methods {
		index[m.Name] = i
		if len(m.Errors) == 0 {
			t.Errorf("%s lists no errors", m.Name)
		}
	}
	check := func(name string, result map[string]any) {
		t.Helper()
		sch, err := c.Compile(fmt.Sprintf("%s#/methods/%d/result/schema/properties/structuredContent", uri, index[name]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(result)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err := sch.Validate(v); err != nil {
			t.Fatalf("%s: the result does not match the served OpenRPC document: %v\n%s", name, err, body)
		}
	}
	check("usp_services_list", w.tool(t, "usp_services_list", map[string]any{}))
	check("usp_availability_query", w.tool(t, "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-02", "end_date": "2026-03-02"}))
	slot := w.slot(t, "svc_airport_shuttle", "2026-03-02")
	booked := w.tool(t, "usp_bookings_create", map[string]any{"service_id": "svc_airport_shuttle", "slot_id": slot.ID, "buyer": buyerArgs("Ada")})
	check("usp_bookings_create", booked)
	check("usp_bookings_get", w.tool(t, "usp_bookings_get", map[string]any{"booking_id": booked["booking"].(map[string]any)["id"]}))
	check("usp_waitlist_list", w.tool(t, "usp_waitlist_list", map[string]any{}))
}
