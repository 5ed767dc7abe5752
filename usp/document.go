package usp

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Paths of the business's own interface documents, under the REST base:
// an OpenAPI document of the REST binding and an OpenRPC document of the
// MCP binding, each describing exactly the methods this business serves
// (Served) with the parameters it reads. Both are built from the same
// method table and input schemas as the bindings, so they cannot drift.
const (
	OpenAPIPath = "/openapi.json"
	OpenRPCPath = "/openrpc.json"
)

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// restBody is a method's parameters as a REST request body: its input
// schema without _meta (headers carry it) and without the path's
// parameters. nil when the method takes no body.
func restBody(m Method) *jsonschema.Schema {
	if m.HTTPMethod == "GET" || m.HTTPMethod == "DELETE" {
		return nil
	}
	in := InputSchema(m.Name)
	props := map[string]*jsonschema.Schema{}
	inPath := map[string]bool{}
	for _, p := range pathParam.FindAllStringSubmatch(m.Path, -1) {
		inPath[p[1]] = true
	}
	for k, v := range in.Properties {
		if k != "_meta" && !inPath[k] {
			props[k] = v
		}
	}
	required := []string{}
	for _, r := range in.Required {
		if !inPath[r] {
			required = append(required, r)
		}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

// OpenAPI is the business's OpenAPI 3.1 document of its REST binding.
func (b *Business) OpenAPI() []byte {
	paths := map[string]map[string]any{}
	for _, m := range b.Served() {
		op := map[string]any{
			"operationId":      m.Name,
			"summary":          m.Name,
			"x-usp-access":     string(m.Access),
			"x-usp-capability": string(m.Capability),
			"responses":        responses(m),
			"security":         security(m),
		}
		var params []map[string]any
		for _, p := range pathParam.FindAllStringSubmatch(m.Path, -1) {
			params = append(params, map[string]any{"name": p[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if m.HTTPMethod == "GET" {
			// A read's other parameters are its query's.
			in := InputSchema(m.Name)
			for _, name := range sortedKeys(in.Properties) {
				if name != "_meta" && !strings.Contains(m.Path, "{"+name+"}") {
					params = append(params, map[string]any{"name": name, "in": "query", "schema": in.Properties[name]})
				}
			}
		}
		if m.Access != Public {
			params = append(params, map[string]any{"name": "USP-Agent", "in": "header", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if m.HTTPMethod == "POST" || m.HTTPMethod == "PUT" || m.HTTPMethod == "DELETE" {
			params = append(params, map[string]any{"name": "Idempotency-Key", "in": "header", "schema": map[string]any{"type": "string", "format": "uuid"},
				"description": "A retry with the same key and body answers the first result without running again; another body with it is 409 idempotency_conflict."})
		}
		if ifMatchBy[m.Name] {
			params = append(params, map[string]any{"name": "If-Match", "in": "header", "schema": map[string]any{"type": "string"},
				"description": "The booking's revision (as an entity tag or bare); another current revision is 412 revision_mismatch."})
		}
		params = append(params, map[string]any{"name": "USP-Correlation-Id", "in": "header", "schema": map[string]any{"type": "string"},
			"description": "Any join id; echoed on the answer."})
		if params != nil {
			op["parameters"] = params
		}
		if body := restBody(m); body != nil {
			op["requestBody"] = map[string]any{"required": len(body.Required) > 0, "content": map[string]any{"application/json": map[string]any{"schema": body}}}
		}
		path := m.Path
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(m.HTTPMethod)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": b.cfg.Business.Name + " USP REST binding", "version": Version},
		"servers": []map[string]any{{"url": strings.TrimSuffix(b.origin, "/") + RESTPath}},
		"paths":   paths,
		"components": map[string]any{
			"schemas":         map[string]any{"Problem": problemSchema},
			"securitySchemes": securitySchemes,
		},
	}
	return encodeDocument(doc)
}

// OpenRPC is the business's OpenRPC document of its MCP binding: one
// method per tool, its params the tool's input schema's properties.
func (b *Business) OpenRPC() []byte {
	var methods []map[string]any
	for _, m := range b.Served() {
		in := InputSchema(m.Name)
		required := map[string]bool{}
		for _, r := range in.Required {
			required[r] = true
		}
		required["_meta"] = m.Access != Public
		var params []map[string]any
		for _, name := range sortedKeys(in.Properties) {
			params = append(params, map[string]any{"name": name, "required": required[name], "schema": in.Properties[name]})
		}
		methods = append(methods, map[string]any{
			"name": m.Name, "paramStructure": "by-name", "params": params,
			"result": map[string]any{"name": "result", "schema": map[string]any{
				"type": "object", "required": []string{"structuredContent"},
				"properties": map[string]any{"structuredContent": resultSchema(m.Name)},
			}},
			"errors":           rpcErrors(m),
			"x-usp-access":     string(m.Access),
			"x-usp-capability": string(m.Capability),
			// Authentication and the request's headers travel in
			// _meta.usp (authorization, idempotency_key, if_match,
			// correlation_id) or on the HTTP request of the MCP endpoint.
			"x-usp-authentication": securityNames(m),
		})
	}
	doc := map[string]any{
		"openrpc": "1.3.2",
		"info":    map[string]any{"title": b.cfg.Business.Name + " USP MCP binding", "version": Version},
		"servers": []map[string]any{{"name": "mcp", "url": strings.TrimSuffix(b.origin, "/") + MCPPath}},
		"methods": methods,
	}
	return encodeDocument(doc)
}

// securityNames are the mechanisms method m takes, for the OpenRPC
// document, which has no security field of its own.
func securityNames(m Method) []string {
	names := map[string]string{"apiKey": "api_key", "dpop": "platform_key_pop", "httpSignature": "http_message_signature", "bookingScoped": "booking_scoped_credential", "staffSession": "staff_session"}
	out := []string{}
	for _, req := range security(m) {
		for k := range req {
			out = append(out, names[k])
		}
	}
	return out
}

func sortedKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func encodeDocument(doc map[string]any) []byte {
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // plain maps and schemas always encode
	}
	return append(body, '\n')
}
