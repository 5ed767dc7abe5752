package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBody bounds an MCP request body. Tool arguments are small; a larger
// body is refused before it is parsed.
const maxBody = 1 << 20

// First protocol revisions with each behaviour.
const (
	revisionNoBatches = "2025-06-18" // JSON-RPC batches were removed here
	revisionStateless = "2026-07-28" // no handshake; the SDK serves it statelessly
)

var errParse = errors.New("parse error")

// hostHeader carries the request's actual Host to the tools. The front
// overwrites any value a client sent.
const hostHeader = "X-Frontdesk-Request-Host"

// addressHeader carries the client's network address to the tools, for
// rate limits by address. The front overwrites any value a client sent.
const addressHeader = "X-Frontdesk-Remote-Addr"

// HTTPOptions configure the HTTP front of an MCP server.
type HTTPOptions struct {
	// Hostnames are the Host and Origin host names accepted. Anything else
	// is refused, which protects local servers from DNS rebinding.
	Hostnames []string
	Guard     BatchGuard
	Logger    *slog.Logger
}

// Handler serves one MCP server over streamable HTTP: sessions for
// revisions up to 2025-11-25 and stateless requests for 2026-07-28 and
// later. Every error it or the SDK produces is a JSON-RPC error object.
func Handler(s *mcp.Server, opts HTTPOptions) http.Handler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	get := func(*http.Request) *mcp.Server { return s }
	base := mcp.StreamableHTTPOptions{DisableLocalhostProtection: true, MaxRequestBodyBytes: maxBody, Logger: logger}
	stateless := base
	stateless.Stateless = true
	stateless.PropagateRequestCancellation = true
	return &front{
		hosts:     hostSet(opts.Hostnames),
		guard:     opts.Guard,
		stateful:  mcp.NewStreamableHTTPHandler(get, &base),
		stateless: mcp.NewStreamableHTTPHandler(get, &stateless),
	}
}

type front struct {
	hosts     map[string]bool
	guard     BatchGuard
	stateful  http.Handler
	stateless http.Handler
}

func hostSet(names []string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		set[strings.ToLower(strings.Trim(n, "[]"))] = true
	}
	return set
}

func (f *front) allowed(r *http.Request) bool {
	if !f.hosts[hostOnly(r.Host)] {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && f.hosts[strings.ToLower(u.Hostname())]
}

// remoteHost is the address without its port: one client's connections
// share one rate limit.
func remoteHost(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

func hostOnly(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	jw := &jsonErrors{ResponseWriter: w}
	defer jw.finish()
	if !f.allowed(r) {
		writeError(jw, http.StatusForbidden, -32600, "Forbidden: this host or origin is not served here.")
		return
	}
	// The Host a tool sees is the one this request arrived with; a client
	// cannot supply its own.
	r.Header.Set(hostHeader, r.Host)
	r.Header.Set(addressHeader, remoteHost(r.RemoteAddr))
	version := r.Header.Get("Mcp-Protocol-Version")
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			writeError(jw, http.StatusRequestEntityTooLarge, -32600, "Request body is too large.")
			return
		}
		out, isBatch, err := f.guard.Inspect(body)
		if status, code, message, refused := guardAnswer(err, isBatch, version); refused {
			writeError(jw, status, code, message)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
	}
	if version >= revisionStateless {
		f.stateless.ServeHTTP(jw, r)
		return
	}
	f.stateful.ServeHTTP(jw, r)
}

// writeError answers with a JSON-RPC error object and no id.
func writeError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("X-Content-Type-Options")
	w.WriteHeader(status)
	w.Write(errorLine(code, message))
}

// errorLine is a JSON-RPC error object with no id, ending in a newline.
func errorLine(code int, message string) []byte {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": message},
	})
	return append(body, '\n')
}

// jsonErrors turns the plain-text error replies of the SDK into JSON-RPC
// error objects, so no client ever has to parse a plain-text reply.
type jsonErrors struct {
	http.ResponseWriter
	status   int
	captured *bytes.Buffer // the plain-text body being replaced
}

func (j *jsonErrors) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(j.Header().Get("Content-Type"), "text/plain") {
		j.status, j.captured = status, &bytes.Buffer{}
		return
	}
	j.ResponseWriter.WriteHeader(status)
}

func (j *jsonErrors) Write(b []byte) (int, error) {
	if j.captured != nil {
		return j.captured.Write(b)
	}
	return j.ResponseWriter.Write(b)
}

func (j *jsonErrors) Flush() {
	if j.captured == nil {
		http.NewResponseController(j.ResponseWriter).Flush()
	}
}

func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

func (j *jsonErrors) finish() {
	if j.captured == nil {
		return
	}
	code := -32600
	if j.status >= 500 {
		code = -32603
	}
	msg := strings.TrimSpace(j.captured.String())
	j.captured = nil
	writeError(j.ResponseWriter, j.status, code, msg)
}
