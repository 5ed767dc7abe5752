package uspmcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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
	USPCall(ctx context.Context, slug string, in hub.USPRequest) (json.RawMessage, error)
}

var _ Locations = (*hub.Proxy)(nil)

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
	msg, err := locs.USPCall(ctx, slug, in)
	if err != nil {
		return forwarded{}, unavailable(err)
	}
	return decodeAnswer(msg)
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
	loc  business.Location
	list *usp.WaitlistListResult
	meta mcp.Meta
	err  error // the location could not be read
	rpc  *jsonrpc.Error
}

// listEveryWaitlist asks every location in parallel for the platform's
// waitlist entries, with the arguments as sent, and merges the answers
// (mergeWaitlists). A location that could not be read is named in
// messages[] as a service_unavailable warning; when none could be, the
// call is service_unavailable. A location's protocol error (the
// platform's credentials, a bad cursor) is the answer, as every location
// would give the same.
func listEveryWaitlist(ctx context.Context, locs Locations, in hub.USPRequest) (forwarded, error) {
	all := locs.USPLocations()
	parts := make([]part, len(all))
	var wg sync.WaitGroup
	for i, l := range all {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, hub.SpanRead)
			defer cancel()
			parts[i] = readWaitlist(ctx, locs, l, in)
		})
	}
	wg.Wait()
	for _, p := range parts {
		if p.rpc != nil {
			return forwarded{err: p.rpc}, nil
		}
	}
	res, meta, err := mergeWaitlists(parts)
	if err != nil {
		return forwarded{}, err
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summarize(res.Messages, fmt.Sprintf("%d waitlist entries.", len(res.Entries)))}},
		StructuredContent: res, Meta: meta}
	return forwarded{res: out}, nil
}

// readWaitlist is one location's part of a waitlist list.
func readWaitlist(ctx context.Context, locs Locations, l business.Location, in hub.USPRequest) part {
	p := part{loc: l}
	msg, err := locs.USPCall(ctx, l.Slug, in)
	if err != nil {
		p.err = err
		return p
	}
	f, err := decodeAnswer(msg)
	switch {
	case err != nil:
		p.err = err
	case f.err != nil:
		p.rpc = f.err
	default:
		p.meta = f.res.Meta
		raw, _ := f.res.StructuredContent.(json.RawMessage)
		if err := json.Unmarshal(raw, &p.list); err != nil || p.list == nil {
			p.err = fmt.Errorf("decode %s's waitlist: %w", l.Slug, err)
		}
	}
	return p
}

// mergeWaitlists joins the locations' pages of one waitlist list. An
// entry's key, which its id encodes, starts with its service's id, so
// each location's entries sit together in the one order the pages
// follow: the merged page takes them in that order, up to and including
// the first location that has more, whose cursor resumes after its last
// entry at every location. A page may so hold up to the limit from each
// location. A location that could not be read is a warning naming it.
func mergeWaitlists(parts []part) (*usp.WaitlistListResult, mcp.Meta, error) {
	var res *usp.WaitlistListResult
	var meta mcp.Meta
	var read []part
	var warnings []usp.Message
	for _, p := range parts {
		if p.err != nil {
			warnings = append(warnings, usp.Message{Type: "warning", Code: string(usp.CodeServiceUnavailable), Content: unreadText(p)})
			continue
		}
		read = append(read, p)
		if res == nil {
			res, meta = &usp.WaitlistListResult{USP: p.list.USP, Entries: []usp.WaitlistEntry{}, Messages: []usp.Message{}}, p.meta
		}
	}
	if res == nil {
		return nil, nil, &usp.Error{Code: usp.CodeServiceUnavailable, RetryAfter: usp.RetryAfter, Err: parts[0].err,
			Message: "No location could be read just now; try again in a few seconds."}
	}
	slices.SortFunc(read, func(a, b part) int { return strings.Compare(firstKey(a.list), firstKey(b.list)) })
	total := 0
	for _, p := range read {
		res.Entries = append(res.Entries, p.list.Entries...)
		res.Messages = append(res.Messages, p.list.Messages...)
		if p.list.Pagination.NextCursor != "" {
			res.Pagination.NextCursor = p.list.Pagination.NextCursor
			break
		}
		if p.list.Pagination.Total != nil {
			total += *p.list.Pagination.Total
		}
	}
	if res.Pagination.NextCursor == "" && len(warnings) == 0 && len(read) == len(parts) && allTotals(read) {
		res.Pagination.Total = &total
	}
	res.Messages = append(res.Messages, warnings...)
	return res, meta, nil
}

// unreadText names a location that could not be read, and its phone.
func unreadText(p part) string {
	var down *hub.Unreachable
	if errors.As(p.err, &down) {
		return down.Error() + " Its waitlist entries are not in this answer."
	}
	return p.loc.Name + " could not be read just now; its waitlist entries are not in this answer. Try again in a few minutes or call " + p.loc.Phone + "."
}

// allTotals reports whether every page said how many entries its whole
// list holds.
func allTotals(parts []part) bool {
	return !slices.ContainsFunc(parts, func(p part) bool { return p.list.Pagination.Total == nil })
}

// firstKey is the stored key of a page's first entry, "" for an empty
// page: an entry's id is wl_ and the base64url of its key.
func firstKey(l *usp.WaitlistListResult) string {
	if len(l.Entries) == 0 {
		return ""
	}
	key, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(l.Entries[0].ID, "wl_"))
	return string(key)
}
