package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/usp"
)

// USP tool descriptions (the MCP binding of USP, §9.2). Arguments are the
// operation's parameters with _meta.usp inside them; results carry the
// usp object, the operation's data and messages[] in structuredContent,
// and a one-line summary in content.
var uspTools = map[string]struct{ title, description string }{
	"usp_services_list": {"List services",
		"Lists this business's bookable services (rooms sold by the stay, timed services such as an airport shuttle) with type, duration, price in minor units, location and policies. Optional free-text query, filters (type, category_id, categories, location_id, price in minor units) and pagination (limit, cursor). Public: no credentials."},
	"usp_services_get": {"Get a service",
		"Returns one service by service_id. An unknown id is a service_not_found protocol error. Public: no credentials."},
	"usp_services_lookup": {"Look up services",
		"Returns the services named in ids (up to 100), each once; ids that name no service are reported in messages[] as service_not_found. Public: no credentials."},
	"usp_availability_query": {"Query availability",
		"Returns the open slots of one service between start_date and end_date (RFC 3339 dates, whole local days, or date-times; at most 31 days), in ascending start order, as instants with offsets. Optional timezone for dates and answers, party_size, location_id, resource_id, limit (default 50, at most 500) and cursor. Public: no credentials."},
}

// meta is the USP part of a tool call's _meta argument.
type meta struct {
	Meta struct {
		USP struct {
			Profile       string          `json:"profile"`
			CorrelationID string          `json:"correlation_id"`
			Authorization json.RawMessage `json:"authorization"`
		} `json:"usp"`
	} `json:"_meta"`
}

func openObject(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if required == nil {
		required = []string{}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func uspInputSchema(name string) *jsonschema.Schema {
	text := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	integer := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Description: d} }
	metaArg := openObject(map[string]*jsonschema.Schema{
		"usp": openObject(map[string]*jsonschema.Schema{
			"profile":        text("The platform's profile URI (https), for capability negotiation."),
			"correlation_id": text("Optional join id, echoed in the result's _meta.usp."),
		}),
	})
	props := map[string]*jsonschema.Schema{"_meta": metaArg}
	var required []string
	switch name {
	case "usp_services_list":
		props["query"] = text("Free-text search across names, descriptions and categories.")
		props["filters"] = openObject(map[string]*jsonschema.Schema{
			"type": text("Service vertical: appointment, group or reservation."), "category_id": text("Category id: lodging or timed."),
			"categories":  {Type: "array", Items: text("Category id.")},
			"location_id": text("Location id (the property slug)."),
			"price":       openObject(map[string]*jsonschema.Schema{"min": integer("Minimum price in minor units."), "max": integer("Maximum price in minor units.")}),
		})
		props["pagination"] = openObject(map[string]*jsonschema.Schema{"limit": integer("Page size, default 20, at most 100."), "cursor": {Types: []string{"string", "null"}}})
	case "usp_services_get":
		props["service_id"] = text("The service id.")
		required = []string{"service_id"}
	case "usp_services_lookup":
		props["ids"] = &jsonschema.Schema{Type: "array", Items: text("A service id.")}
		required = []string{"ids"}
	case "usp_availability_query":
		props["service_id"] = text("The service to query.")
		props["start_date"] = text("Start of range: RFC 3339 date or date-time.")
		props["end_date"] = text("End of range: RFC 3339 date (inclusive) or date-time (exclusive).")
		props["timezone"] = text("IANA time zone for dates and answers; default the location's.")
		props["resource_id"] = text("Only slots of this resource.")
		props["party_size"] = integer("Places needed; default 1.")
		props["location_id"] = text("Only slots at this location.")
		props["locale"] = text("BCP 47 language tag.")
		props["cursor"] = text("Cursor from the previous page.")
		props["limit"] = integer("Page size, default 50, at most 500.")
		required = []string{"service_id", "start_date", "end_date"}
	}
	return openObject(props, required...)
}

// NewUSP returns the MCP server of the USP binding: one usp_* tool per
// method the business serves. Protocol errors are JSON-RPC errors with
// data.code; business outcomes are results with messages[].
func NewUSP(b *usp.Business, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "frontdesk-usp", Title: "USP business binding", Version: opts.Version}, nil)
	log := opts.logger()
	s.AddReceivingMiddleware(logCalls(log, "usp"))
	for _, m := range usp.Methods() {
		about := uspTools[m.Name]
		tool := &mcp.Tool{
			Name: m.Name, Title: about.title, Description: about.description,
			InputSchema: uspInputSchema(m.Name),
			Annotations: &mcp.ToolAnnotations{
				Title: about.title, ReadOnlyHint: m.Access == usp.Public, DestructiveHint: boolPtr(false),
				IdempotentHint: true, OpenWorldHint: boolPtr(false),
			},
		}
		name := m.Name
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := callUSP(ctx, b, name, req)
			outcome := "ok"
			if err != nil {
				e, internal := usp.AsError(err)
				outcome = "refused"
				if internal {
					outcome = "error"
					log.ErrorContext(ctx, "usp tool failed", "tool", name, "err", err)
				}
				reportOutcome(ctx, string(e.Code), internal)
				err = rpcError(e, correlationOf(req))
			}
			if opts.Metrics != nil {
				opts.Metrics.ToolCalls.WithLabelValues("usp", name, outcome).Inc()
				opts.Metrics.ToolSeconds.WithLabelValues("usp", name).Observe(time.Since(start).Seconds())
			}
			return res, err
		})
	}
	return s
}

func correlationOf(req *mcp.CallToolRequest) string {
	var m meta
	json.Unmarshal(req.Params.Arguments, &m)
	return m.Meta.USP.CorrelationID
}

// rpcError renders a protocol error as the JSON-RPC error of §9.4.3: the
// code's bucket number, the code as message and data.code, and the
// correlation id echoed.
func rpcError(e *usp.Error, correlation string) error {
	data := map[string]string{"code": string(e.Code), "content": e.Message}
	if correlation != "" {
		data["correlation_id"] = correlation
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: e.Code.RPCCode(), Message: string(e.Code), Data: raw}
}

// callUSP parses the arguments, calls the business and renders the dual
// envelope.
func callUSP(ctx context.Context, b *usp.Business, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &usp.Error{Code: usp.CodeInvalidRequest, Message: "Tool arguments must be a JSON object with _meta.usp as an object."}
	}
	call := usp.Call{Profile: m.Meta.USP.Profile, CorrelationID: m.Meta.USP.CorrelationID,
		Credentials: usp.Credentials{Authorization: m.Meta.USP.Authorization}}
	if req.Extra != nil {
		call.Credentials.Header = req.Extra.Header
	}
	parse := func(v any) error {
		if err := json.Unmarshal(raw, v); err != nil {
			return &usp.Error{Code: usp.CodeInvalidRequest, Message: "Tool arguments do not have the types " + name + " takes: " + err.Error()}
		}
		return nil
	}
	var (
		res     any
		summary string
		err     error
	)
	switch name {
	case "usp_services_list":
		var in usp.ListRequest
		if err = parse(&in); err == nil {
			var r *usp.ListResult
			if r, err = b.ListServices(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, fmt.Sprintf("%d services%s.", len(r.Services), more(r.Pagination)))
			}
		}
	case "usp_services_get":
		var in struct {
			ServiceID string `json:"service_id"`
		}
		if err = parse(&in); err == nil {
			var r *usp.GetResult
			if r, err = b.GetService(ctx, call, in.ServiceID); err == nil {
				text := ""
				if r.Service != nil {
					text = r.Service.Name + " (" + r.Service.Type + ")."
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	case "usp_services_lookup":
		var in usp.LookupRequest
		if err = parse(&in); err == nil {
			var r *usp.LookupResult
			if r, err = b.LookupServices(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, fmt.Sprintf("%d of %d services found.", len(r.Services), len(in.IDs)))
			}
		}
	case "usp_availability_query":
		var in usp.QueryRequest
		if err = parse(&in); err == nil {
			var r *usp.QueryResult
			if r, err = b.QueryAvailability(ctx, call, in); err == nil {
				text := fmt.Sprintf("%d open slots for %s%s.", len(r.Slots), r.ServiceID, more(r.Pagination))
				if len(r.Slots) > 0 {
					text = fmt.Sprintf("%d open slots for %s from %s%s.", len(r.Slots), r.ServiceID, r.Slots[0].Start, more(r.Pagination))
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	// The SDK encodes the result once, with the rest of the response.
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}}, StructuredContent: res}
	if call.CorrelationID != "" {
		out.Meta = mcp.Meta{"usp": map[string]any{"correlation_id": call.CorrelationID}}
	}
	return out, nil
}

func more(p usp.Pagination) string {
	if p.HasMore {
		return "; more on the next page"
	}
	return ""
}

// summarize leads with the first error message when there is one, as the
// binding's business-outcome example does.
func summarize(messages []usp.Message, text string) string {
	for _, m := range messages {
		if m.Type == "error" {
			return "Error: " + m.Content
		}
	}
	var warn []string
	for _, m := range messages {
		warn = append(warn, m.Content)
	}
	return strings.TrimSpace(text + " " + strings.Join(warn, " "))
}
