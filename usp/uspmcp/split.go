package uspmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/business"
	"frontdesk/hub"
	"frontdesk/mcpfront"
	"frontdesk/usp"
)

// Locations is a split hub's way to its locations' USP MCP endpoints
// (*hub.Proxy): which location an id names, which locations there are,
// and one tool call sent to one of them.
type Locations interface {
	USPOwner(arguments json.RawMessage) (string, bool)
	USPLocations() []business.Location
	USPCall(ctx context.Context, slug string, in hub.USPRequest) (hub.USPReply, error)
}

var _ Locations = (*hub.Proxy)(nil)

// observing is the hub's Locations, telling observe which platform a
// location authenticated for each call it answered, so the hub's session
// of that platform is offered its webhooks as in one process.
type observing struct {
	Locations
	observe func(context.Context, usp.Principal)
}

func (o observing) USPCall(ctx context.Context, slug string, in hub.USPRequest) (hub.USPReply, error) {
	reply, err := o.Locations.USPCall(ctx, slug, in)
	if err == nil && reply.Platform != "" {
		o.observe(ctx, usp.Principal{Platform: reply.Platform})
	}
	return reply, err
}

// forwarded is a tool call's answer as a location gave it: its result, or
// its JSON-RPC error, both passed on as they are.
type forwarded struct {
	res *mcp.CallToolResult
	err *jsonrpc.Error
}

// route answers at a split hub the calls that are a location's: one
// whose arguments name an id a location owns goes there whole; a
// platform's waitlist list naming no service is read from every
// location. ok is false for the calls the hub answers from its config
// (the catalog, its feed and its subscriptions) and those naming nothing
// a location owns, which the hub's own business answers as one process
// would (not found, invalid).
func route(ctx context.Context, locs Locations, name string, req *mcp.CallToolRequest) (forwarded, bool, error) {
	in := hub.USPRequest{Name: name, Arguments: req.Params.Arguments}
	if req.Extra != nil && req.Extra.Header != nil {
		in.Header = req.Extra.Header
		hctx := mcpfront.WithHeader(ctx, in.Header)
		in.Host, _ = mcpfront.RequestHost(hctx)
		in.RemoteAddr = mcpfront.RequestAddress(hctx)
	}
	if slug, ok := locs.USPOwner(in.Arguments); ok {
		f, err := callLocation(ctx, locs, slug, in)
		return f, true, err
	}
	if name == "usp_waitlist_list" && !namesService(in.Arguments) {
		f, err := listEveryWaitlist(ctx, locs, in)
		return f, true, err
	}
	return forwarded{}, false, nil
}

// namesService reports whether a call's arguments carry a service_id.
func namesService(arguments json.RawMessage) bool {
	var in struct {
		ServiceID *string `json:"service_id"`
	}
	return json.Unmarshal(arguments, &in) == nil && in.ServiceID != nil && *in.ServiceID != ""
}

// callLocation sends the call to slug and decodes its answer. A location
// that did not answer is USP's service_unavailable, naming it and its
// phone.
func callLocation(ctx context.Context, locs Locations, slug string, in hub.USPRequest) (forwarded, error) {
	reply, err := locs.USPCall(ctx, slug, in)
	if err != nil {
		return forwarded{}, unavailable(err)
	}
	return decodeAnswer(reply.Message)
}

// unavailable is the protocol error of a location that did not answer:
// service_unavailable with Retry-After (§9.4.3), its text the
// location's name and phone.
func unavailable(err error) error {
	var down *hub.Unreachable
	if !errors.As(err, &down) {
		return err
	}
	return &usp.Error{Code: usp.CodeServiceUnavailable, RetryAfter: usp.RetryAfter, Message: down.Error(), Err: err}
}

// decodeAnswer reads a location's JSON-RPC response. The structured
// result is kept as the bytes the location wrote, so the platform reads
// at the hub what one process would have written.
func decodeAnswer(msg json.RawMessage) (forwarded, error) {
	var wire struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &wire); err != nil {
		return forwarded{}, fmt.Errorf("decode location answer: %w", err)
	}
	if wire.Error != nil {
		return forwarded{err: &jsonrpc.Error{Code: wire.Error.Code, Message: wire.Error.Message, Data: wire.Error.Data}}, nil
	}
	var res mcp.CallToolResult
	var structured struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(wire.Result, &res); err != nil {
		return forwarded{}, fmt.Errorf("decode location result: %w", err)
	}
	if err := json.Unmarshal(wire.Result, &structured); err != nil {
		return forwarded{}, fmt.Errorf("decode location result: %w", err)
	}
	if structured.StructuredContent != nil {
		res.StructuredContent = structured.StructuredContent
	}
	return forwarded{res: &res}, nil
}

// part is one location's answer to a call that spans them.
type part struct {
	usp.WaitlistPart
	meta mcp.Meta
	rpc  *jsonrpc.Error // the location's protocol error
}

// listEveryWaitlist asks every location in parallel for the platform's
// waitlist entries, with the arguments as sent, and merges the answers
// (usp.MergeWaitlists). A location that could not be read is named in
// messages[]; a location's protocol error (the platform's credentials,
// a bad cursor) is the answer, as every location would give the same.
func listEveryWaitlist(ctx context.Context, locs Locations, in hub.USPRequest) (forwarded, error) {
	all := locs.USPLocations()
	parts := make([]part, len(all))
	hub.Span(ctx, all, func(ctx context.Context, i int, l business.Location) { parts[i] = readWaitlist(ctx, locs, l, in) })
	var pages []usp.WaitlistPart
	var meta mcp.Meta
	for _, p := range parts {
		if p.rpc != nil {
			return forwarded{err: p.rpc}, nil
		}
		if meta == nil {
			meta = p.meta
		}
		pages = append(pages, p.WaitlistPart)
	}
	res, err := usp.MergeWaitlists(pages)
	if err != nil {
		return forwarded{}, err
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summarize(res.Messages, fmt.Sprintf("%d waitlist entries.", len(res.Entries)))}},
		StructuredContent: res, Meta: meta}
	return forwarded{res: out}, nil
}

// readWaitlist is one location's part of a waitlist list; one that did
// not answer, or answered what does not decode, is unread.
func readWaitlist(ctx context.Context, locs Locations, l business.Location, in hub.USPRequest) part {
	unread := part{WaitlistPart: usp.WaitlistPart{Unread: (&hub.Unreachable{Location: l}).Error()}}
	reply, err := locs.USPCall(ctx, l.Slug, in)
	if err != nil {
		return unread
	}
	f, err := decodeAnswer(reply.Message)
	if err != nil {
		return unread
	}
	if f.err != nil {
		return part{rpc: f.err}
	}
	var list usp.WaitlistListResult
	raw, _ := f.res.StructuredContent.(json.RawMessage)
	if json.Unmarshal(raw, &list) != nil {
		return unread
	}
	return part{WaitlistPart: usp.WaitlistPart{List: &list}, meta: f.res.Meta}
}
