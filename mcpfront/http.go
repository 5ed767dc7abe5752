package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/hostguard"
	"frontdesk/internal/requestid"
)

// maxBody bounds an MCP request body. Tool arguments are small; a larger
// body is refused before it is parsed.
const maxBody = 1 << 20

// First protocol revisions with each behaviour.
const (
	revisionNoBatches = "2025-06-18" // JSON-RPC batches were removed here
	// RevisionStateless is the first revision without a handshake; the
	// SDK serves it statelessly, so its requests have no session.
	RevisionStateless = "2026-07-28"
)

// Headers of the streamable HTTP transport that tools read.
const (
	SessionHeader = "Mcp-Session-Id"
	VersionHeader = "Mcp-Protocol-Version"
)

var errParse = errors.New("parse error")

// hostHeader carries the request's actual Host to the tools. The front
// overwrites any value a client sent.
const hostHeader = "X-Frontdesk-Request-Host"

// addressHeader carries the client's network address to the tools, for
// rate limits by address. The front overwrites any value a client sent.
const addressHeader = "X-Frontdesk-Remote-Addr"

// requestHeader names, for the calls a POST carries, the POST in the
// front's table of requests in flight. The front overwrites any value a
// client sent.
const requestHeader = "X-Frontdesk-Request"

// inFlight is the front's table of POSTs being served. The SDK runs a
// session's calls under the context of the session's first request, so
// the calls look their own request up here to log with its id and to
// note a reservation reference on its lines.
type inFlight struct {
	mu   sync.Mutex
	next uint64
	ctxs map[string]context.Context
}

// add enters r and returns its key and the function that removes it.
func (f *inFlight) add(r *http.Request) (string, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	key := strconv.FormatUint(f.next, 10)
	f.ctxs[key] = r.Context()
	return key, func() {
		f.mu.Lock()
		delete(f.ctxs, key)
		f.mu.Unlock()
	}
}

// adopt gives each request it handles the identity of the HTTP request
// that carried it.
func (f *inFlight) adopt(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			f.mu.Lock()
			from, ok := f.ctxs[extra.Header.Get(requestHeader)]
			f.mu.Unlock()
			if ok {
				ctx = requestid.Join(ctx, from)
			}
		}
		return next(ctx, method, req)
	}
}

// HTTPOptions configure the HTTP front of an MCP server.
type HTTPOptions struct {
	// Hostnames are the Host and Origin host names accepted. Anything else
	// is refused, which protects local servers from DNS rebinding.
	Hostnames []string
	Guard     BatchGuard
	Logger    *slog.Logger
	// Streams, when set, serves the sessions' standalone GET streams, so
	// that messages from outside any request (USP webhooks) can reach them.
	Streams StreamServer
	// Resume, when set, reports whether a session id this process does not
	// hold names a session whose state the server keeps in its own store
	// (one that began before a restart, or on another instance). A POST in
	// such a session is then served without SDK session state instead of
	// answering 404, and its tools read the session id from the request.
	Resume func(ctx context.Context, session string) bool
}

// StreamServer serves a session's standalone GET stream in place of next,
// the SDK's handler, which it calls to do the streaming.
type StreamServer interface {
	ServeStream(w http.ResponseWriter, r *http.Request, session string, next http.Handler)
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
	requests := &inFlight{ctxs: map[string]context.Context{}}
	s.AddReceivingMiddleware(requests.adopt) // outermost: every later layer logs as the request
	return &front{
		requests:  requests,
		hosts:     hostguard.New(opts.Hostnames),
		guard:     opts.Guard,
		stateful:  mcp.NewStreamableHTTPHandler(get, &base),
		stateless: mcp.NewStreamableHTTPHandler(get, &stateless),
		streams:   opts.Streams,
		resume:    opts.Resume,
	}
}

type front struct {
	requests  *inFlight
	hosts     hostguard.Guard
	guard     BatchGuard
	stateful  http.Handler
	stateless http.Handler
	streams   StreamServer
	resume    func(ctx context.Context, session string) bool
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

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Answers carry booking data (codes go out, references come back):
	// nothing may keep them.
	w.Header().Set("Cache-Control", "no-store")
	jw := &jsonErrors{ResponseWriter: w}
	defer jw.finish()
	var sdk http.ResponseWriter = jw // what the SDK writes to
	if refusal := f.hosts.Check(r); refusal != "" {
		WriteError(jw, http.StatusForbidden, -32600, refusal)
		return
	}
	// The Host a tool sees is the one this request arrived with; a client
	// cannot supply its own.
	r.Header.Set(hostHeader, r.Host)
	r.Header.Set(addressHeader, remoteHost(r.RemoteAddr))
	key, done := f.requests.add(r)
	defer done()
	r.Header.Set(requestHeader, key)
	version := r.Header.Get("Mcp-Protocol-Version")
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			WriteError(jw, http.StatusRequestEntityTooLarge, -32600, "Request body is too large.")
			return
		}
		out, isBatch, err := f.guard.Inspect(body)
		if status, code, message, refused := guardAnswer(err, isBatch, version); refused {
			WriteError(jw, status, code, message)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
		if !isBatch {
			sdk = &answerWriter{ResponseWriter: jw}
		}
	}
	if version >= RevisionStateless {
		f.stateless.ServeHTTP(sdk, r)
		return
	}
	if id := r.Header.Get(SessionHeader); r.Method == http.MethodGet && id != "" && f.streams != nil {
		f.streams.ServeStream(jw, r, id, f.stateful)
		return
	}
	if id := r.Header.Get(SessionHeader); r.Method == http.MethodPost && id != "" && f.resume != nil {
		f.serveResumable(sdk, r, id)
		return
	}
	f.stateful.ServeHTTP(sdk, r)
}

// serveResumable serves a POST in a session: by the SDK when it holds the
// session, else, when the server's store keeps the session, statelessly.
// The SDK answers an unknown session with 404 before it reads the body,
// so the probe holds that answer back and the body is read again.
func (f *front) serveResumable(w http.ResponseWriter, r *http.Request, id string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		WriteError(w, http.StatusBadRequest, -32600, "The request body could not be read.")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	probe := &notFoundProbe{ResponseWriter: w}
	f.stateful.ServeHTTP(probe, r)
	if !probe.notFound {
		return
	}
	if !f.resume(r.Context(), id) {
		WriteError(w, http.StatusNotFound, -32001, "Session not found.")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.stateless.ServeHTTP(w, r)
}

// notFoundProbe passes an answer through unless it is a 404, which it
// swallows and records.
type notFoundProbe struct {
	http.ResponseWriter
	notFound bool
}

func (p *notFoundProbe) WriteHeader(status int) {
	if status == http.StatusNotFound {
		p.notFound = true
		h := p.Header()
		h.Del("Content-Type")
		h.Del("X-Content-Type-Options")
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *notFoundProbe) Write(b []byte) (int, error) {
	if p.notFound {
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

func (p *notFoundProbe) Flush() {
	if !p.notFound {
		// A writer that cannot flush sends at the end instead.
		_ = http.NewResponseController(p.ResponseWriter).Flush()
	}
}

func (p *notFoundProbe) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// WriteError answers with a JSON-RPC error object and no id.
func WriteError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
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
		_ = http.NewResponseController(j.ResponseWriter).Flush() // nothing buffered when it cannot flush
	}
}

func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

func (j *jsonErrors) finish() {
	if j.captured == nil {
		return
	}
	text := strings.TrimSpace(j.captured.String())
	j.captured = nil
	code, msg := plainError(j.status, text)
	WriteError(j.ResponseWriter, j.status, code, msg)
}

// internals mark an SDK error text that describes the decoder rather than
// the request: Go type names, JSON library messages.
var internals = []string{"jsonrpc", "wireDecode", " of type ", "json:", "unmarshal", "malformed payload", "storing stream", "%!"}

// plainError words an error the SDK answered in plain text. Its own short
// sentences about headers and sessions are kept; a text that names
// decoder internals or echoes a long value is replaced by a sentence
// chosen by the status alone.
func plainError(status int, text string) (code int, message string) {
	code = -32600
	if status >= 500 {
		code = -32603
	}
	if text != "" && len(text) <= 160 && !slices.ContainsFunc(internals, func(m string) bool { return strings.Contains(text, m) }) {
		return code, text
	}
	switch {
	case status == http.StatusRequestEntityTooLarge:
		return code, "Request body is too large."
	case status >= 500:
		return code, "Internal error: the request could not be served. Try again."
	}
	return code, "Invalid Request: the message could not be read as JSON-RPC (an id is a string or an integer)."
}
