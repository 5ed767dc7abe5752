// Package requestid gives each HTTP request an identity that every log
// line written for it carries: a request id, echoed to the client in
// X-Request-Id, and the reservation reference once a door has one. A
// slog.Handler adds both to each record logged with the request's
// context. It imports only the standard library.
package requestid

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Header is the request and response header of the id.
const Header = "X-Request-Id"

type key struct{}

// request is what one request's context carries. reference is set once
// the request has made or found a reservation, and call once a tool call
// it carried ended, after the context was made, so both sit behind a
// lock.
type request struct {
	id        string
	mu        sync.Mutex
	reference string
	call      []slog.Attr
	logged    bool // the request's own line is written: it takes no call
}

// With returns ctx carrying the request id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, &request{id: id})
}

// Join returns ctx carrying the request identity of from, when from has
// one: work that runs under another context (an MCP session's) then logs
// as the request it serves, and a reference it notes reaches that
// request's own lines.
func Join(ctx, from context.Context) context.Context {
	r, ok := from.Value(key{}).(*request)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, key{}, r)
}

// ID is the request id of ctx, or "".
func ID(ctx context.Context) string {
	if r, ok := ctx.Value(key{}).(*request); ok {
		return r.id
	}
	return ""
}

// SetReference notes the reservation reference the request concerns; the
// request's later log lines carry it. Outside a request it does nothing.
func SetReference(ctx context.Context, ref string) {
	if r, ok := ctx.Value(key{}).(*request); ok {
		r.mu.Lock()
		r.reference = ref
		r.mu.Unlock()
	}
}

// Reference is the reference SetReference noted, or "".
func Reference(ctx context.Context) string {
	if r, ok := ctx.Value(key{}).(*request); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.reference
	}
	return ""
}

// NoteCall offers attrs, how a tool call the request carried ended, to
// the request's own line, so a request that carries one call is logged
// in one line. It reports whether the line takes them: not outside a
// request, not for a second call of the request (a batch), and not once
// the line is written; the caller then logs its own.
func NoteCall(ctx context.Context, attrs ...slog.Attr) bool {
	r, ok := ctx.Value(key{}).(*request)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logged || r.call != nil {
		return false
	}
	r.call = attrs
	return true
}

// TakeCall returns what NoteCall noted, or nil, for the request's own
// line, which is being written: no call is noted after it.
func TakeCall(ctx context.Context) []slog.Attr {
	r, ok := ctx.Value(key{}).(*request)
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logged = true
	return r.call
}

// Valid reports whether id, sent by a proxy, may be used as it is: 1 to
// 64 characters of letters, digits and -_.:, so it can neither forge a
// log line nor carry guest data of any length.
func Valid(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// Source hands out request ids: a random prefix drawn once, then a
// counter, so an id costs an increment instead of a read of the random
// source on every request (a system call, some microseconds), and ids
// of different processes or restarts do not collide.
type Source struct {
	prefix [4]byte
	n      atomic.Uint64
}

// NewSource draws the prefix from rand.
func NewSource(rand io.Reader) (*Source, error) {
	s := &Source{}
	if _, err := io.ReadFull(rand, s.prefix[:]); err != nil {
		return nil, err
	}
	return s, nil
}

// Next is a fresh id of 16 hex digits.
func (s *Source) Next() string {
	var b [8]byte
	copy(b[:4], s.prefix[:])
	binary.BigEndian.PutUint32(b[4:], uint32(s.n.Add(1)))
	return hex.EncodeToString(b[:])
}

// Handler adds request_id and, once noted, reference to every record
// logged with a request's context, before next formats it.
func Handler(next slog.Handler) slog.Handler { return handler{next} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, rec slog.Record) error {
	if r, ok := ctx.Value(key{}).(*request); ok {
		r.mu.Lock()
		ref := r.reference
		r.mu.Unlock()
		rec = rec.Clone()
		if ref != "" && !hasKey(rec, "reference") {
			rec.AddAttrs(slog.String("request_id", r.id), slog.String("reference", ref))
		} else {
			rec.AddAttrs(slog.String("request_id", r.id))
		}
	}
	return h.next.Handle(ctx, rec)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler { return handler{h.next.WithAttrs(as)} }
func (h handler) WithGroup(name string) slog.Handler    { return handler{h.next.WithGroup(name)} }

func hasKey(rec slog.Record, key string) bool {
	found := false
	rec.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}
