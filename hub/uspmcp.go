package hub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
)

// USP's MCP binding at a split hub: the hub keeps the platform's MCP
// session and sends each tool call whose arguments name something a
// location owns to that location's own USP MCP endpoint, as one
// stateless request (MCP 2026-07-28) through the same proxy as REST. The
// location authenticates the platform itself: the tool's name and
// arguments travel byte for byte, so a proof over them (usp_m, usp_p)
// verifies there, against its own replay cache, and the credential
// headers the platform sent travel with them. The hub holds no platform
// credential and checks none; where a call goes comes from the config's
// origins, picked by the slug of an id, as for REST.

// statelessRevision is the MCP revision a location answers without a
// session (mcpfront.RevisionStateless).
const statelessRevision = "2026-07-28"

// maxUSPAnswer is the largest answer the hub reads from a location's USP
// MCP endpoint: the largest page of a list is far smaller.
const maxUSPAnswer = 4 << 20

// forwardedMCPHeaders are the request headers that reach the location
// with a tool call: the platform's credentials and its identity, and the
// observability join. Nothing else of the platform's request (its
// session, cookies, the hub's own front's headers) is sent.
var forwardedMCPHeaders = []string{"Authorization", "DPoP", "USP-Agent", "USP-Correlation-Id", "User-Agent",
	"Signature", "Signature-Input", "Content-Digest"}

// USPOwner is the location whose id the arguments of a USP MCP tool call
// name (namedOwner), as REST's path or body would: false when they name
// none a proxied location owns, and the hub answers the call itself.
func (px *Proxy) USPOwner(arguments json.RawMessage) (string, bool) {
	var args map[string]json.RawMessage
	if px == nil || json.Unmarshal(arguments, &args) != nil {
		return "", false
	}
	return px.namedOwner(func(name string) string {
		var v string
		_ = json.Unmarshal(args[name], &v) // an id that is no string names nothing
		return v
	})
}

// USPLocations are the proxied locations, in config order: those a call
// spanning every property asks.
func (px *Proxy) USPLocations() []business.Location {
	if px == nil {
		return nil
	}
	out := make([]business.Location, 0, len(px.order))
	for _, slug := range px.order {
		out = append(out, px.locs[slug])
	}
	return out
}

// Unreachable is a location that did not answer a USP call. Its text
// names the location and its phone, nothing of how the hub reaches it,
// and is safe to show.
type Unreachable struct{ Location business.Location }

func (e *Unreachable) Error() string {
	return e.Location.Name + " cannot be reached just now. Try again in a few minutes or call " + e.Location.Phone + "."
}

// USPRequest is one tool call of USP's MCP binding as the hub received
// it: the Host and the address (no port) it came from, its HTTP
// headers, and the tool's name and arguments as the platform sent them.
type USPRequest struct {
	Host, RemoteAddr string
	Header           http.Header
	Name             string
	Arguments        json.RawMessage
}

// USPCall sends one USP MCP tool call to location slug, with the
// platform's credential headers and the Host it called the hub at, and
// returns the JSON-RPC response the location wrote. A location that does
// not answer, or answers no JSON-RPC response, is *Unreachable.
func (px *Proxy) USPCall(ctx context.Context, slug string, in USPRequest) (json.RawMessage, error) {
	l, ok := px.locs[slug]
	if !ok {
		return nil, fmt.Errorf("usp call: %q is no proxied location", slug)
	}
	body, err := toolCall(in.Name, in.Arguments)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/usp/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("usp call: %w", err)
	}
	req.Host = in.Host
	if in.RemoteAddr != "" {
		req.RemoteAddr = net.JoinHostPort(in.RemoteAddr, "0") // the proxy forwards it as X-Forwarded-For
	}
	for _, h := range forwardedMCPHeaders {
		if v := in.Header.Values(h); len(v) > 0 {
			req.Header[http.CanonicalHeaderKey(h)] = v
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", statelessRevision)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", in.Name)
	w, err := px.send(slug, req)
	if err != nil {
		return nil, err
	}
	msg, ok := rpcMessage(w.Header.Get("Content-Type"), w.Body)
	if !ok {
		px.log.WarnContext(ctx, "location answered no usp mcp message", "location", slug, "status", w.Status)
		return nil, &Unreachable{Location: l}
	}
	return msg, nil
}

// USPAnswer is a location's answer to a call the hub sent it.
type USPAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// USPForward sends a USP REST call as the platform made it (its method,
// path, Host, headers and body, which a signature or proof covers) to
// location slug, and returns the location's answer: for a call that
// spans the locations, asked of each. A location that does not answer
// is *Unreachable.
func (px *Proxy) USPForward(ctx context.Context, slug string, r *http.Request, body []byte) (USPAnswer, error) {
	if _, ok := px.locs[slug]; !ok {
		return USPAnswer{}, fmt.Errorf("usp forward: %q is no proxied location", slug)
	}
	req := r.Clone(ctx)
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return px.send(slug, req)
}

// reach marks a request the hub sends on its own account: the proxy's
// unreachable sets failed when the location did not answer.
type reach struct{ failed bool }

// send forwards req to location slug through the proxy and keeps the
// answer, up to maxUSPAnswer.
func (px *Proxy) send(slug string, req *http.Request) (USPAnswer, error) {
	mark := &reach{}
	req = req.WithContext(context.WithValue(req.Context(), uspCall{}, mark))
	req.SetPathValue(slugValue, slug)
	w := &answerBuffer{header: http.Header{}}
	px.ServeHTTP(w, req)
	if mark.failed {
		return USPAnswer{}, &Unreachable{Location: px.locs[slug]}
	}
	return USPAnswer{Status: w.status, Header: w.header, Body: w.body.Bytes()}, nil
}

// toolCall is the JSON-RPC request of a stateless tools/call with the
// arguments as the platform sent them, byte for byte: the proof a
// location checks digests them.
func toolCall(name string, arguments json.RawMessage) ([]byte, error) {
	if len(arguments) == 0 {
		arguments = json.RawMessage(`{}`)
	}
	if !json.Valid(arguments) {
		return nil, errors.New("usp call: the arguments are not JSON")
	}
	head, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": statelessRevision, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}})
	if err != nil {
		return nil, fmt.Errorf("usp call: %w", err)
	}
	// head ends with the two braces that close params and the request.
	return slices.Concat(head[:len(head)-2], []byte(`,"arguments":`), arguments, []byte("}}")), nil
}

// rpcMessage is the JSON-RPC message of an MCP answer: its body as
// JSON, or the data of the first message event of a stream.
func rpcMessage(contentType string, body []byte) (json.RawMessage, bool) {
	if strings.HasPrefix(contentType, "application/json") {
		return body, json.Valid(body)
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, maxUSPAnswer)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Valid([]byte(data)) {
			return json.RawMessage(data), true
		}
	}
	return nil, false
}

// answerBuffer keeps a location's answer for the hub to read, up to
// maxUSPAnswer.
type answerBuffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answerBuffer) Header() http.Header { return a.header }

func (a *answerBuffer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answerBuffer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if a.body.Len()+len(b) > maxUSPAnswer {
		return 0, errors.New("usp answer too large")
	}
	return a.body.Write(b)
}

// USPProfiles are the business profiles (/.well-known/usp) the proxied
// locations serve now, read in parallel within SpanRead each; a location
// that does not answer is left out, and logged. The hub publishes their
// signing keys beside its own, since each location signs the webhooks
// of its own bookings with its own keys.
func (px *Proxy) USPProfiles(ctx context.Context) [][]byte {
	if px == nil {
		return nil
	}
	out := make([][]byte, len(px.order))
	Span(ctx, px.USPLocations(), func(ctx context.Context, i int, l business.Location) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/.well-known/usp", nil)
		if err != nil {
			return
		}
		req.Host, req.RemoteAddr = px.targets[l.Slug].Host, "127.0.0.1:0"
		a, err := px.send(l.Slug, req)
		if err != nil || a.Status != http.StatusOK {
			px.log.WarnContext(ctx, "location profile unread", "location", l.Slug, "status", a.Status)
			return
		}
		out[i] = a.Body
	})
	return slices.DeleteFunc(out, func(b []byte) bool { return b == nil })
}

// SpanRead bounds each location's read of a hub's answer that spans
// them: the worksheet's inventory read. The whole call keeps its own
// deadline.
const SpanRead = 3 * time.Second

// Span runs read for each of locs in parallel, each within SpanRead of
// ctx, and returns when all have: the reads of an answer that spans the
// locations.
func Span(ctx context.Context, locs []business.Location, read func(ctx context.Context, i int, l business.Location)) {
	var wg sync.WaitGroup
	for i, l := range locs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, SpanRead)
			defer cancel()
			read(ctx, i, l)
		})
	}
	wg.Wait()
}
