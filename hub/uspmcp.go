package hub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
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

// forwardedMCPHeaders are the request headers that reach the location
// with a tool call: the platform's credentials and its identity, and the
// observability join. Nothing else of the platform's request (its
// session, cookies, the hub's own front's headers) is sent.
var forwardedMCPHeaders = []string{"Authorization", "DPoP", "USP-Agent", "USP-Correlation-Id", "User-Agent",
	"Signature", "Signature-Input", "Content-Digest"}

// PlatformHeader carries, on a location's answer to a tool call the hub
// sent, the platform the location authenticated for it (the hub holds no
// credential to tell). The hub asks for it with the same header on the
// call, and reads it only from its configured locations' answers; it
// never passes it on.
const PlatformHeader = "Frontdesk-USP-Platform"

// askPlatform is PlatformHeader's value on a call: tell who this is.
const askPlatform = "?"

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

// USPRequest is one tool call of USP's MCP binding as the hub received
// it: the Host and the address (no port) it came from, its HTTP
// headers, and the tool's name and arguments as the platform sent them.
type USPRequest struct {
	Host, RemoteAddr string
	Header           http.Header
	Name             string
	Arguments        json.RawMessage
}

// USPReply is a location's answer to one USP MCP tool call: its JSON-RPC
// response, and the platform it authenticated for the call, if any.
type USPReply struct {
	Message  json.RawMessage
	Platform string
}

// USPCall sends one USP MCP tool call to location slug, with the
// platform's credential headers and the Host it called the hub at, and
// returns the JSON-RPC response the location wrote. A location that does
// not answer, or answers no JSON-RPC response, is *Unreachable.
func (px *Proxy) USPCall(ctx context.Context, slug string, in USPRequest) (USPReply, error) {
	l, ok := px.locs[slug]
	if !ok {
		return USPReply{}, fmt.Errorf("usp call: %q is no proxied location", slug)
	}
	body, err := toolCall(in.Name, in.Arguments)
	if err != nil {
		return USPReply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/usp/mcp", bytes.NewReader(body))
	if err != nil {
		return USPReply{}, fmt.Errorf("usp call: %w", err)
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
	req.Header.Set(PlatformHeader, askPlatform)
	w, err := px.send(slug, req)
	if err != nil {
		return USPReply{}, err
	}
	msg, ok := rpcMessage(w.Header.Get("Content-Type"), w.Body)
	if !ok {
		px.log.WarnContext(ctx, "location answered no usp mcp message", "location", slug, "status", w.Status)
		return USPReply{}, &Unreachable{Location: l}
	}
	return USPReply{Message: msg, Platform: w.Header.Get(PlatformHeader)}, nil
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
