package uspmcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/hub"
	"frontdesk/mcpfront"
	"frontdesk/usp"
)

// Webhooks offers USP webhooks to the MCP sessions of the platform they
// are for, as usp_webhook JSON-RPC notifications (no id, §9.2.3). A
// session belongs to the platform that last authenticated a privileged
// call on it (Observe); the notification goes out on the session's
// standalone SSE stream (the GET the client keeps open), which is the one
// place a server message outside any request can travel. The SDK sends
// no notification of its own methods, so Webhooks writes the SSE event
// itself, whole, under the same lock as the SDK's writes to that stream.
//
// Notifications are best effort: a session without an open stream, or on
// another instance, misses them; the signed HTTP webhook is the durable
// delivery.
type Webhooks struct {
	mu        sync.Mutex
	platforms map[string]string                 // session id → platform
	streams   map[string]map[*lockedWriter]bool // session id → open GET streams
}

// NewWebhooks returns an empty registry.
func NewWebhooks() *Webhooks {
	return &Webhooks{platforms: map[string]string{}, streams: map[string]map[*lockedWriter]bool{}}
}

// maxObserved bounds the sessions remembered: a session that never opens
// a stream is forgotten only when the registry is full.
const maxObserved = 10000

var errStreamClosed = errors.New("uspmcp: stream not open")

type sessionKey struct{}

// withSession marks ctx with the MCP session a tool call arrived on.
func withSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil || ss.ID() == "" {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss.ID())
}

// Observe records that the session of ctx acts for p's platform; it is
// the usp.Options.Observe hook.
func (w *Webhooks) Observe(ctx context.Context, p usp.Principal) {
	if n, ok := ctx.Value(platformNoteKey{}).(*platformNote); ok {
		n.set(p.Platform)
	}
	id, _ := ctx.Value(sessionKey{}).(string)
	if w == nil || id == "" || p.Platform == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, known := w.platforms[id]; !known && len(w.platforms) >= maxObserved {
		clear(w.platforms) // the live streams' sessions say who they are again at their next call
	}
	w.platforms[id] = p.Platform
}

// TellPlatform answers a tool call that asks who it was for (the split
// hub's, hub.PlatformHeader) with the platform Observe heard of while
// serving it. on is false at the hub itself, whose answers go to the
// platforms and never carry the header.
func TellPlatform(on bool, next http.Handler) http.Handler {
	if !on {
		return next
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get(hub.PlatformHeader) == "" {
			next.ServeHTTP(rw, r)
			return
		}
		r.Header.Del(hub.PlatformHeader)
		n := &platformNote{}
		next.ServeHTTP(&tellingWriter{ResponseWriter: rw, note: n}, r.WithContext(context.WithValue(r.Context(), platformNoteKey{}, n)))
	})
}

type platformNoteKey struct{}

// platformNote is the platform authenticated while serving one request.
type platformNote struct {
	mu       sync.Mutex
	platform string
}

func (n *platformNote) set(platform string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.platform = platform
}

func (n *platformNote) get() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.platform
}

// tellingWriter adds the noted platform to the answer's header when the
// answer starts, which is after the tool call ran.
type tellingWriter struct {
	http.ResponseWriter
	note    *platformNote
	started bool
}

func (t *tellingWriter) WriteHeader(status int) {
	if !t.started {
		t.started = true
		if p := t.note.get(); p != "" {
			t.Header().Set(hub.PlatformHeader, p)
		}
	}
	t.ResponseWriter.WriteHeader(status)
}

func (t *tellingWriter) Write(b []byte) (int, error) {
	if !t.started {
		t.WriteHeader(http.StatusOK)
	}
	return t.ResponseWriter.Write(b)
}

func (t *tellingWriter) Flush() { _ = http.NewResponseController(t.ResponseWriter).Flush() }

func (t *tellingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// Notify sends body (a webhook payload) as the params of a usp_webhook
// notification on every open stream of the platform's sessions, and
// returns how many streams it reached.
func (w *Webhooks) Notify(_ context.Context, platform string, body []byte) int {
	msg, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{"2.0", "usp_webhook", body})
	if err != nil {
		return 0
	}
	event := append(append([]byte("event: message\ndata: "), msg...), '\n', '\n')
	w.mu.Lock()
	var targets []*lockedWriter
	for id, p := range w.platforms {
		if p == platform {
			for s := range w.streams[id] {
				targets = append(targets, s)
			}
		}
	}
	w.mu.Unlock()
	sent := 0
	for _, s := range targets {
		if s.writeEvent(event) == nil {
			sent++
		}
	}
	return sent
}

// ServeStream registers the GET stream of session id for the time next
// serves it.
func (w *Webhooks) ServeStream(rw http.ResponseWriter, r *http.Request, id string, next http.Handler) {
	lw := &lockedWriter{ResponseWriter: rw}
	w.mu.Lock()
	if w.streams[id] == nil {
		w.streams[id] = map[*lockedWriter]bool{}
	}
	w.streams[id][lw] = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.streams[id], lw)
		if len(w.streams[id]) == 0 {
			delete(w.streams, id)
			delete(w.platforms, id) // a session without a stream is gone or will reopen it
		}
		w.mu.Unlock()
		lw.close()
	}()
	next.ServeHTTP(lw, r)
}

// lockedWriter serializes writes to one SSE stream: the SDK writes each
// event in one Write, so events from both sides never interleave.
type lockedWriter struct {
	http.ResponseWriter
	mu      sync.Mutex
	started bool // the SDK has written the header: the stream is open
	closed  bool
}

func (l *lockedWriter) WriteHeader(status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = status == http.StatusOK
	l.ResponseWriter.WriteHeader(status)
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = true
	return l.ResponseWriter.Write(b)
}

func (l *lockedWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = http.NewResponseController(l.ResponseWriter).Flush() // nothing buffered when it cannot flush
}

func (l *lockedWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// writeEvent writes one whole SSE event, if the stream is open.
func (l *lockedWriter) writeEvent(event []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !l.started || l.Header().Get("Content-Type") != "text/event-stream" {
		return errStreamClosed
	}
	if _, err := l.ResponseWriter.Write(event); err != nil {
		return err
	}
	return http.NewResponseController(l.ResponseWriter).Flush()
}

func (l *lockedWriter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}

var _ mcpfront.StreamServer = (*Webhooks)(nil)
