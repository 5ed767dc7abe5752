// Package mcpfront is the shared MCP front every binding is served
// through: the streamable HTTP handler that checks hosts, answers
// malformed bodies with JSON-RPC errors and looks at a whole batch before
// any call in it runs (BatchGuard), the stdio server, session limits, the
// server every binding starts from (declared capabilities, the call log,
// panics contained) and typed tool registration (Tool, Add). It knows no
// protocol's tools: direct booking's are in direct/directmcp, USP's in
// usp/uspmcp and ORP's in orp/orpmcp.
//
// It is a front: adapters import it; it imports only internal helpers.
package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/metrics"
)

// Tool describes one tool: its wire identity and its handler.
type Tool[In, Out any] struct {
	Name, Title, Description string
	ReadOnly, Destructive    bool
	Idempotent, OpenWorld    bool
	Input                    *jsonschema.Schema
	// OwnValidation hands the arguments to Run unchecked: the booking
	// tools answer every argument problem with their own exact sentence.
	OwnValidation bool
	// Run returns the result and its one-line summary, or an error: one
	// that is safe to show (a refusal) or an internal fault.
	Run func(ctx context.Context, in In) (Out, string, error)
	// Text, when set, is what the JSON text block shows of a result that
	// holds a secret the model must not put in content; nil shows it all.
	Text func(Out) any
	// NeverNull says Run's answers hold no null: every list is made, never
	// nil, and every optional value is left out when absent. The output
	// schema then gives each value one type instead of a union with
	// "null", which clients that map tool schemas onto a single-type
	// dialect (Gemini-style function declarations) reject.
	NeverNull bool
}

// Env is what every tool registration shares.
type Env struct {
	Server  string // "hub", "location:<slug>", "orp"…, for metrics and logs
	Log     *slog.Logger
	Metrics *metrics.Metrics
	// Safe turns an error into text a guest may see and the code that
	// names its case in the log. It decides which errors are refusals and
	// words internal faults without detail.
	Safe func(err error) (text, code string, internal bool)
}

// Codes of refusals the tool layer gives itself, before or instead of
// the domain. A domain refusal carries its own code.
const (
	codeArguments = "invalid_arguments" // the arguments fail the input schema
	codeBatch     = "batch_refused"     // a batch held more than one limited call
	CodeInternal  = "internal"          // a fault with no domain answer
	codeEncode    = "encode_failed"     // the result could not be encoded
)

// outcomeKey keys the slot in which a tool handler leaves how its call
// ended for the one log line the server writes about it (logCalls): only
// the handler knows the code behind a refusal, only the middleware sees
// calls that never reach a handler.
type outcomeKey struct{}

// callOutcome is how a tool call ended, as its handler knows it.
type callOutcome struct {
	reported bool
	code     string // names the refusal or fault; "" for a success
	internal bool   // an internal fault, not a business refusal
}

// ReportOutcome leaves the call's code in ctx's slot, if it has one.
func ReportOutcome(ctx context.Context, code string, internal bool) {
	if o, ok := ctx.Value(outcomeKey{}).(*callOutcome); ok {
		*o = callOutcome{reported: true, code: code, internal: internal}
	}
}

var numberSchema = &jsonschema.Schema{Type: "number"}

// anyJSON is the schema of a json.RawMessage: JSON that a domain wrote and
// the tool passes through unchanged, such as an ORP message body.
var anyJSON = &jsonschema.Schema{}

// outputSchema infers the schema of Out, with exact decimal amounts as
// JSON numbers and raw JSON as any JSON value.
func outputSchema[Out any](neverNull bool) *jsonschema.Schema {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.Number]():     numberSchema,
			reflect.TypeFor[json.RawMessage](): anyJSON,
		},
	})
	if err != nil {
		panic(fmt.Sprintf("mcpfront: output schema of %T: %v", *new(Out), err))
	}
	if neverNull {
		s = s.CloneSchemas()
		dropNull(s)
	}
	return s
}

// dropNull turns every type union of "null" and one other type in s into
// that type alone. The inference writes the union for every list and
// pointer, since Go can encode them as null.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	for _, sub := range s.Properties {
		dropNull(sub)
	}
	for _, sub := range s.Defs {
		dropNull(sub)
	}
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range list {
			dropNull(sub)
		}
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

func boolPtr(b bool) *bool { return &b }

// exported is an input schema as clients see it. The schema package drops
// an empty "required" list, but direct-booking.md §6 prints one on the
// mode-switching tools, so every schema that requires nothing says so
// with "required": [].
func exported(s *jsonschema.Schema) any {
	body, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpfront: encode input schema: %v", err))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		panic(fmt.Sprintf("mcpfront: read input schema: %v", err))
	}
	if _, ok := top["required"]; ok || len(s.Required) > 0 {
		return s
	}
	return json.RawMessage(append(body[:len(body)-1], []byte(`,"required":[]}`)...))
}

// definition is a tool's wire identity with its schemas derived and
// resolved once. Servers that serve the same tool, such as every
// location's read tools, share one.
type definition struct {
	tool     *mcp.Tool
	resolved *jsonschema.Resolved
	quick    *quickCheck // nil when only the validator can judge
}

// define derives t's definition: the input schema resolved for
// validation, the output schema inferred from Out.
func define[In, Out any](t Tool[In, Out]) definition {
	resolved, err := t.Input.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpfront: input schema of %s: %v", t.Name, err))
	}
	return definition{resolved: resolved, quick: newQuickCheck(t.Input).bind(reflect.TypeFor[In]()), tool: &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  exported(t.Input),
		OutputSchema: outputSchema[Out](t.NeverNull),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: boolPtr(t.Destructive),
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   boolPtr(t.OpenWorld),
		},
	}}
}

// Add registers t on s. Arguments are validated against the exported input
// schema, so the schema a client sees is the one enforced.
func Add[In, Out any](s *mcp.Server, env Env, t Tool[In, Out]) {
	install(s, env, define(t), t)
}

// AddShared is Add with the definition taken from defs, and derived and
// kept there on first use. A nil defs derives it afresh.
func AddShared[In, Out any](s *mcp.Server, env Env, defs *Definitions, t Tool[In, Out]) {
	if defs == nil {
		Add(s, env, t)
		return
	}
	defs.mu.Lock()
	d, ok := defs.byName[t.Name]
	if !ok {
		d = define(t)
		defs.byName[t.Name] = d
	}
	defs.mu.Unlock()
	install(s, env, d, t)
}

// Definitions are tool Definitions by name, shared by servers of one kind.
type Definitions struct {
	mu     sync.Mutex
	byName map[string]definition
}

func NewDefinitions() *Definitions { return &Definitions{byName: map[string]definition{}} }

// CallDeadline bounds every tool call: the hub deadline of
// direct-booking.md ("Request deadlines", 44 s), below the 45-second
// acceptance target. Each door's own, shorter deadlines run inside it.
const CallDeadline = 44 * time.Second

// install registers t's handler on s under the definition d.
func install[In, Out any](s *mcp.Server, env Env, d definition, t Tool[In, Out]) {
	s.AddTool(d.tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(ctx, CallDeadline)
		defer cancel()
		ctx = withHeader(ctx, req)
		var res *mcp.CallToolResult
		outcome, code := "refused", codeBatch
		if text, refused := batchRefusal(req.Params.Meta); refused {
			res = errorResult(text)
		} else {
			res, outcome, code = call(ctx, env, t, d, req.Params.Arguments)
		}
		ReportOutcome(ctx, code, outcome == "error")
		env.Metrics.ToolCall(env.Server, t.Name, outcome, time.Since(start).Seconds())
		return res, nil
	})
}

// call runs t on raw and returns the result, the outcome for metrics
// ("ok", "refused" or "error") and the code of a refusal or fault.
func call[In, Out any](ctx context.Context, env Env, t Tool[In, Out], d definition, raw json.RawMessage) (*mcp.CallToolResult, string, string) {
	var in In
	if t.OwnValidation {
		// Numbers stay as written (json.Number), so the tool can refuse one
		// it cannot read exactly, such as 1e400, instead of seeing it
		// dropped. What does not decode reaches run as the zero value.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&in)
	} else if !d.quick.decode(raw, &in) {
		// The quick check spares most calls the validator's cost and
		// decodes them itself (decode); what it cannot vouch for, the
		// validator judges and words, and encoding/json decodes.
		in = *new(In)
		if d.quick == nil || !d.quick.passesRaw(raw) {
			var args map[string]any
			if len(raw) == 0 || string(raw) == "null" {
				args = map[string]any{}
			} else if err := json.Unmarshal(raw, &args); err != nil {
				return errorResult("Tool arguments must be a JSON object."), "refused", codeArguments
			}
			if d.quick == nil || !d.quick.passes(args) {
				if err := d.resolved.Validate(args); err != nil {
					return errorResult(argumentError(err)), "refused", codeArguments
				}
			}
		}
		if err := json.Unmarshal(raw, &in); err != nil && len(raw) > 0 && string(raw) != "null" {
			return errorResult("Tool arguments do not match the input schema."), "refused", codeArguments
		}
	}
	out, summary, err := t.Run(ctx, in)
	if err != nil {
		text, code, internal := env.Safe(err)
		if internal {
			env.Log.ErrorContext(ctx, "tool call failed", "tool", t.Name, "code", code, "err", err)
			return errorResult(text), "error", code
		}
		return errorResult(text), "refused", code
	}
	body, err := encode(out)
	text := body
	if err == nil && t.Text != nil {
		text, err = json.Marshal(t.Text(out))
	}
	if err != nil {
		env.Log.ErrorContext(ctx, "encode tool result", "tool", t.Name, "err", err)
		return errorResult("The answer could not be encoded."), "error", codeEncode
	}
	// The result also goes out as JSON text after the summary, as MCP
	// recommends: many clients show the model only the text content, and
	// it needs the identifiers (booking_id, cancel_id) and the rooms to go on.
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(body),
	}, "ok", ""
}

// appendsJSON is a result that writes its own JSON, exactly as
// json.Marshal would: the read tools' answers, written on every call.
type appendsJSON interface {
	AppendJSON(b []byte) ([]byte, error)
}

// encode is json.Marshal, by the value itself when it can.
func encode(v any) ([]byte, error) {
	if a, ok := v.(appendsJSON); ok {
		return a.AppendJSON(make([]byte, 0, 1024))
	}
	return json.Marshal(v)
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// argumentError words a schema failure for the caller. It goes back to
// the caller only, never to logs.
func argumentError(err error) string {
	return "Tool arguments do not match the input schema: " + err.Error()
}

type headerKey struct{}

// withHeader keeps the HTTP request's headers in ctx for the call, so a
// tool can read the request identity the front recorded.
func withHeader(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Extra == nil || req.Extra.Header == nil {
		return ctx
	}
	return WithHeader(ctx, req.Extra.Header)
}

// WithHeader returns ctx carrying h as the call's HTTP request headers.
func WithHeader(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

// Header is the HTTP request headers of the call in ctx, or nil over stdio.
func Header(ctx context.Context) http.Header {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h
}

// RequestAddress is the network address the request came from, as the
// front recorded it, for rate limits by address; "" over stdio.
func RequestAddress(ctx context.Context) string {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h.Get(addressHeader)
}

// RequestHost is the Host the request really arrived with, as the front
// recorded it; "" and false over stdio.
func RequestHost(ctx context.Context) (string, bool) {
	h, ok := ctx.Value(headerKey{}).(http.Header)
	if !ok {
		return "", false
	}
	return h.Get(hostHeader), true
}

// Options configure the MCP servers. Nil fields mean defaults.
type Options struct {
	Logger  *slog.Logger
	Metrics *metrics.Metrics
	Version string
}

// Log is the logger the servers log with.
func (o Options) Log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger.With("component", "mcp")
}

// Str is a string argument's schema. Input schemas are written out so
// the exported schema is exactly the one enforced.
func Str(maxLength int, description string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MaxLength: &maxLength, Description: description}
}

// Object is an object argument's schema: the properties in order, the
// required ones, and nothing else.
func Object(order []string, props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if required == nil {
		required = []string{}
	}
	return &jsonschema.Schema{
		Type: "object", Properties: props, PropertyOrder: order, Required: required,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}
