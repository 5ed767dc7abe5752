package usp_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"frontdesk/internal/uspspec"
)

// specDoc reads one document of the newer specification.
func specDoc(t *testing.T, rel string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(uspspec.Newer(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func getDoc(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, raw)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("GET %s: not JSON: %v", url, err)
	}
	return doc
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// bodyProps are the property names of an operation's inline JSON request
// body; nil without one.
func bodyProps(op map[string]any) []string {
	rb, _ := op["requestBody"].(map[string]any)
	content, _ := rb["content"].(map[string]any)
	js, _ := content["application/json"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	return keys(props)
}

// TestOwnDocumentsMatchTheSpec: the business serves an OpenAPI and an
// OpenRPC document of exactly the methods it serves; every operation is
// the specification's (same path and HTTP method, same tool name, same
// access level), with the same request members and tool parameters.
func TestOwnDocumentsMatchTheSpec(t *testing.T) {
	tb := startTrust(t)
	served := map[string]bool{}
	for _, m := range tb.business.Served() {
		served[m.Name] = true
	}

	own := getDoc(t, tb.restURL+"/usp/openapi.json")
	spec := specDoc(t, "openapi/usp-rest.json")
	specPaths := spec["paths"].(map[string]any)
	seen := map[string]bool{}
	for path, ops := range own["paths"].(map[string]any) {
		for method, o := range ops.(map[string]any) {
			op := o.(map[string]any)
			name := op["operationId"].(string)
			seen[name] = true
			specOp, ok := specPaths[path].(map[string]any)[method].(map[string]any)
			if !ok {
				t.Errorf("%s %s (%s) is not an operation of the specification's OpenAPI", strings.ToUpper(method), path, name)
				continue
			}
			if got, want := bodyProps(op), bodyProps(specOp); !slices.Equal(got, want) {
				t.Errorf("%s %s: request members %v, the specification's %v", strings.ToUpper(method), path, got, want)
			}
		}
	}
	if got, want := keys(toAny(seen)), keys(toAny(served)); !slices.Equal(got, want) {
		t.Fatalf("OpenAPI operations %v, served %v", got, want)
	}

	rpc := getDoc(t, tb.restURL+"/usp/openrpc.json")
	specRPC := map[string]map[string]any{}
	for _, m := range specDoc(t, "openrpc/usp-mcp.json")["methods"].([]any) {
		mm := m.(map[string]any)
		specRPC[mm["name"].(string)] = mm
	}
	names := map[string]bool{}
	for _, m := range rpc["methods"].([]any) {
		mm := m.(map[string]any)
		name := mm["name"].(string)
		names[name] = true
		sm, ok := specRPC[name]
		if !ok {
			t.Errorf("%s is not a method of the specification's OpenRPC", name)
			continue
		}
		// The binding text, which outranks the OpenRPC document, makes
		// confirmation business_only ("MUST NOT be authorized that way").
		if name == "usp_bookings_confirm" {
			sm = maps.Clone(sm)
			sm["x-usp-access"] = "business_only"
		}
		if mm["x-usp-access"] != sm["x-usp-access"] {
			t.Errorf("%s: access %v, the specification's %v", name, mm["x-usp-access"], sm["x-usp-access"])
		}
		var got, want []string
		for _, p := range mm["params"].([]any) {
			got = append(got, p.(map[string]any)["name"].(string))
		}
		for _, p := range sm["params"].([]any) {
			want = append(want, p.(map[string]any)["name"].(string))
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: params %v, the specification's %v", name, got, want)
		}
	}
	if got, want := keys(toAny(names)), keys(toAny(served)); !slices.Equal(got, want) {
		t.Fatalf("OpenRPC methods %v, served %v", got, want)
	}
}

func toAny(m map[string]bool) map[string]any {
	out := map[string]any{}
	for k := range m {
		out[k] = true
	}
	return out
}
