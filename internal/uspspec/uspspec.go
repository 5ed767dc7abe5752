// Package uspspec gives tests the official USP specification files: the
// JSON schemas, the OpenAPI and OpenRPC documents of the 2026-08-20
// snapshot and the proof-of-possession and flow vectors of the newer text.
// Copies of the files the tests read are kept in this package's testdata
// (Apache-2.0, LICENSE and NOTICE beside them), so the tests run from any
// clone; FRONTDESK_USP_SPEC names another folder holding usp-2026-08-20 and
// usp-newer to run them against instead, and TestCopiesMatch checks the
// copies against it.
//
// It is test support: it imports only the standard library and the JSON
// Schema validator, and only tests import it.
package uspspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Canonical URIs the documents are registered under; their $refs name
// each other by these.
const (
	openRPCURI = "https://usp-protocol.dev/schemas/openrpc/usp-mcp.json"
	openAPIURI = "https://usp-protocol.dev/schemas/openapi/usp-rest.json"
	// The newer text's documents are registered beside the snapshot's,
	// under URIs of their own; their $refs name the snapshot's schemas.
	newerOpenRPCURI = "https://usp-protocol.dev/newer/openrpc/usp-mcp.json"
	newerOpenAPIURI = "https://usp-protocol.dev/newer/openapi/usp-rest.json"
)

// Copies is the folder of the copies kept in the repository, found from
// the module root above the test's working directory.
func Copies(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "internal", "uspspec", "testdata")
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// root is one folder of the specification: under FRONTDESK_USP_SPEC when
// it is set, else the repository's copy.
func root(t testing.TB, name string) string {
	t.Helper()
	base := os.Getenv("FRONTDESK_USP_SPEC")
	if base == "" {
		base = Copies(t)
	}
	dir := filepath.Join(base, name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("the USP specification folder %s is missing (FRONTDESK_USP_SPEC=%q names the folder holding %s; unset, the copies in internal/uspspec/testdata are used)", dir, os.Getenv("FRONTDESK_USP_SPEC"), name)
	}
	return dir
}

// Snapshot is the folder of the 2026-08-20 snapshot.
func Snapshot(t testing.TB) string { t.Helper(); return root(t, "usp-2026-08-20") }

// Newer is the folder of the newer specification text and its vectors.
func Newer(t testing.TB) string { t.Helper(); return root(t, "usp-newer") }

// Schemas validates documents against the snapshot's schemas.
type Schemas struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	openRPC  map[string]any
	// newerOpenRPC is the newer text's OpenRPC document.
	newerOpenRPC map[string]any
}

// Load reads every schema of the snapshot with the OpenAPI and OpenRPC
// documents.
func Load(t testing.TB) *Schemas {
	t.Helper()
	dir := Snapshot(t)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	add := func(path, uri string) map[string]any {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		body = allowHyphens(body)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if uri == "" {
			m, _ := doc.(map[string]any)
			uri, _ = m["$id"].(string)
		}
		if err := c.AddResource(uri, doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m, _ := doc.(map[string]any)
		return m
	}
	files, _ := filepath.Glob(filepath.Join(dir, "schemas", "*.json"))
	if len(files) == 0 {
		t.Fatalf("no schemas in %s/schemas", dir)
	}
	for _, f := range files {
		add(f, "")
	}
	s := &Schemas{compiler: c, compiled: map[string]*jsonschema.Schema{}}
	s.openRPC = add(filepath.Join(dir, "openrpc", "usp-mcp.json"), openRPCURI)
	add(filepath.Join(dir, "openapi", "usp-rest.json"), openAPIURI)
	newer := Newer(t)
	s.newerOpenRPC = add(filepath.Join(newer, "openrpc", "usp-mcp.json"), newerOpenRPCURI)
	add(filepath.Join(newer, "openapi", "usp-rest.json"), newerOpenAPIURI)
	return s
}

// reverseDomain is the propertyNames pattern of the snapshot's usp.json.
// It forbids hyphens, so it rejects the specification's own names
// (dev.usp-protocol.services, …) in every profile. Checks use the same
// pattern with hyphens allowed in a label; SchemaDefect reports whether
// the files still need that.
const (
	reverseDomain       = `"^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$"`
	reverseDomainHyphen = `"^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$"`
)

func allowHyphens(body []byte) []byte {
	return bytes.ReplaceAll(body, []byte(reverseDomain), []byte(reverseDomainHyphen))
}

// SchemaDefect reports whether usp.json still carries the pattern that
// rejects hyphenated capability names.
func SchemaDefect(t testing.TB) bool {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(Snapshot(t), "schemas", "usp.json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(body, []byte(reverseDomain))
}

// Check validates doc (JSON bytes) against the schema at uri.
func (s *Schemas) Check(t testing.TB, uri string, doc []byte) {
	t.Helper()
	s.mu.Lock()
	sch, ok := s.compiled[uri]
	if !ok {
		var err error
		sch, err = s.compiler.Compile(uri)
		if err != nil {
			s.mu.Unlock()
			t.Fatalf("compile %s: %v", uri, err)
		}
		s.compiled[uri] = sch
	}
	s.mu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("document does not match %s:\n%v\n%s", uri, err, doc)
	}
}

// Def is the URI of a $defs entry of a schema file, such as
// Def("profile.json", "BusinessProfile").
func Def(file, name string) string {
	prefix := "https://usp-protocol.dev/schemas/"
	switch file {
	case "catalog.json", "availability.json", "booking.json":
		prefix += "services/"
	}
	return prefix + file + "#/$defs/" + name
}

func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(p))
	}
	return b.String()
}

// REST is the URI of the schema of an OpenAPI response body.
func REST(method, path string, status int) string {
	return openAPIURI + "#" + pointer("paths", path, strings.ToLower(method), "responses", fmt.Sprint(status), "content", "application/json", "schema")
}

// NewerREST is REST for the newer text's OpenAPI document, where the
// snapshot's is older than the section cited (the feed's next_cursor,
// §3.1).
func NewerREST(method, path string, status int) string {
	return newerOpenAPIURI + "#" + pointer("paths", path, strings.ToLower(method), "responses", fmt.Sprint(status), "content", "application/json", "schema")
}

// Problem is the URI of the RFC 9457 problem details schema.
const Problem = "https://usp-protocol.dev/schemas/rest_common.json#/$defs/ProblemDetails"

// MCPResult is the URI of the schema of a tool's result (structuredContent
// and content) in the OpenRPC document.
func (s *Schemas) MCPResult(t testing.TB, tool string) string {
	t.Helper()
	methods, _ := s.openRPC["methods"].([]any)
	for i, m := range methods {
		if mm, _ := m.(map[string]any); mm["name"] == tool {
			return openRPCURI + "#" + pointer("methods", fmt.Sprint(i), "result", "schema")
		}
	}
	t.Fatalf("OpenRPC has no method %s", tool)
	return ""
}

// MCPErrorData is the URI of the schema of a protocol error's data.
const MCPErrorData = openRPCURI + "#/components/errors/USPProtocolError/data"

// NewerMCPErrorData is MCPErrorData in the newer text, whose data.code
// enum holds every code of its §9.4.3 (validation_error, range_too_wide
// and the not-found codes among them).
const NewerMCPErrorData = newerOpenRPCURI + "#/components/errors/USPProtocolError/data"

// NewerMCPResult is MCPResult in the newer text's OpenRPC document.
func (s *Schemas) NewerMCPResult(t testing.TB, tool string) string {
	t.Helper()
	methods, _ := s.newerOpenRPC["methods"].([]any)
	for i, m := range methods {
		if mm, _ := m.(map[string]any); mm["name"] == tool {
			return newerOpenRPCURI + "#" + pointer("methods", fmt.Sprint(i), "result", "schema")
		}
	}
	t.Fatalf("the newer OpenRPC has no method %s", tool)
	return ""
}

// NewerParams lists the parameter names of every method of the newer
// OpenRPC document, by method.
func (s *Schemas) NewerParams() map[string][]string {
	out := map[string][]string{}
	methods, _ := s.newerOpenRPC["methods"].([]any)
	for _, m := range methods {
		mm, _ := m.(map[string]any)
		name, _ := mm["name"].(string)
		params, _ := mm["params"].([]any)
		out[name] = []string{}
		for _, p := range params {
			pm, _ := p.(map[string]any)
			n, _ := pm["name"].(string)
			out[name] = append(out[name], n)
		}
	}
	return out
}

// Tools lists the OpenRPC method names with their x-usp-access levels.
func (s *Schemas) Tools() map[string]string {
	out := map[string]string{}
	methods, _ := s.openRPC["methods"].([]any)
	for _, m := range methods {
		mm, _ := m.(map[string]any)
		name, _ := mm["name"].(string)
		access, _ := mm["x-usp-access"].(string)
		out[name] = access
	}
	return out
}

// Vector is one flow vector file, decoded.
type Vector map[string]any

// FlowVectors reads every flow vector of the newer text, by id.
func FlowVectors(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(Newer(t), "tests", "vectors", "flow", "*.json"))
	if len(files) == 0 {
		t.Fatal("no flow vectors found")
	}
	out := map[string]json.RawMessage{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = body
	}
	return out
}
