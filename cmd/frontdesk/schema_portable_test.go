package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// typeUnions lists the paths in a schema whose "type" is a list, which
// clients mapping tool schemas onto a single-type dialect reject.
func typeUnions(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["type"].([]any); ok {
			out = append(out, path)
		}
		for k, sub := range v {
			out = append(out, typeUnions(sub, path+"."+k)...)
		}
	case []any:
		for i, sub := range v {
			out = append(out, typeUnions(sub, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// TestReadToolSchemasArePortable: the hub's and a location's tools give
// every input and output value one type (no ["null","array"] for lists
// that are never null), and the read tools' answers still validate
// against their output schemas.
func TestReadToolSchemasArePortable(t *testing.T) {
	t.Parallel()
	base := startServer(t, "")
	for _, path := range []string{"/mcp", "/locations/riverside/mcp"} {
		cs := connect(t, base+path, "2025-06-18")
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]any{}
		for _, tool := range res.Tools {
			for kind, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
				body, _ := json.Marshal(s)
				var v any
				if err := json.Unmarshal(body, &v); err != nil {
					t.Fatal(err)
				}
				for _, p := range typeUnions(v, kind) {
					t.Errorf("%s %s: %s has a type union", path, tool.Name, p)
				}
			}
			schemas[tool.Name] = tool.OutputSchema
		}
		checkin, checkout := testNow.AddDate(0, 0, 30).Format("2006-01-02"), testNow.AddDate(0, 0, 33).Format("2006-01-02")
		calls := map[string]map[string]any{
			"find_rooms":    {"checkin": checkin, "checkout": checkout},
			"property_info": {},
			"quote_stay":    {"roomtype": "double", "checkin": checkin, "checkout": checkout},
		}
		if path == "/mcp" {
			calls["list_properties"] = map[string]any{}
			for _, name := range []string{"property_info", "quote_stay"} {
				calls[name]["property"] = "riverside"
			}
		}
		for name, args := range calls {
			r, err := cs.CallTool(context.Background(), toolParams(name, args))
			if err != nil || r.IsError {
				t.Fatalf("%s %s: %v %+v", path, name, err, r)
			}
			body, _ := json.Marshal(schemas[name])
			var s jsonschema.Schema
			if err := json.Unmarshal(body, &s); err != nil {
				t.Fatal(err)
			}
			resolved, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("%s %s output schema: %v", path, name, err)
			}
			raw, _ := json.Marshal(r.StructuredContent)
			var answer any
			if err := json.Unmarshal(raw, &answer); err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(answer); err != nil {
				t.Errorf("%s %s: the answer does not fit its output schema: %v\n%s", path, name, err, raw)
			}
		}
	}
}
