package mcpfront

import (
	"context"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"frontdesk/internal/clientip"
	"frontdesk/internal/clock"
)

// SessionLimits bound the stateful sessions of an MCP endpoint. A session
// idle for Idle is closed, by a timer whether or not other traffic comes.
// One client address holds at most PerAddress sessions: its next one
// closes its own session idle longest, never anyone else's. When Max
// sessions are open in all, a new one is refused until some close. Zero
// values mean 30 minutes, 1,000 and 16.
type SessionLimits struct {
	Idle       time.Duration
	Max        int
	PerAddress int
	Clock      clock.Clock
}

// Defaults of SessionLimits.
const (
	DefaultSessionIdle       = 30 * time.Minute
	DefaultMaxSessions       = 1000
	DefaultSessionsPerClient = 16
)

// releaseAfter is how many sessions one timer pass must close before it
// hands the freed memory back to the system at once: the collector would
// otherwise keep the heap a closed crowd of sessions grew to, since an
// idle server collects rarely.
const releaseAfter = 64

// LimitSessions closes the sessions of next that SessionLimits bound, by
// sending next the DELETE a client would send, so the SDK frees each
// session as it does on a client's own goodbye. It keeps only session ids,
// times and what a DELETE needs. While sessions are open a timer looks for
// idle ones every Idle/8; with none open nothing runs.
func LimitSessions(next http.Handler, l SessionLimits) http.Handler {
	if l.Idle <= 0 {
		l.Idle = DefaultSessionIdle
	}
	if l.Max <= 0 {
		l.Max = DefaultMaxSessions
	}
	if l.PerAddress <= 0 {
		l.PerAddress = DefaultSessionsPerClient
	}
	if l.Clock == nil {
		l.Clock = clock.System{}
	}
	return &sessionLimiter{next: next, limits: l, open: map[string]*openSession{}, perAddr: map[string]int{}}
}

// openSession is what the limiter knows of one session.
type openSession struct {
	id, addr string
	lastUsed time.Time
	// How to close it as its client would: the path it was opened on,
	// the Host and the protocol revision.
	url, host, version string
}

type sessionLimiter struct {
	next    http.Handler
	limits  SessionLimits
	mu      sync.Mutex
	open    map[string]*openSession // session id → its state
	perAddr map[string]int          // client address → sessions open
	scanned time.Time
	timer   *time.Timer // armed while sessions are open
}

func (s *sessionLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.limits.Clock.Now()
	id := r.Header.Get(SessionHeader)
	addr := clientip.Host(r)
	opening := r.Method == http.MethodPost && id == "" && r.Header.Get(VersionHeader) < RevisionStateless
	s.mu.Lock()
	if o, ok := s.open[id]; ok {
		o.lastUsed = now
	}
	full := opening && len(s.open) >= s.limits.Max && s.perAddr[addr] < s.limits.PerAddress
	s.mu.Unlock()
	if full {
		// Closing another client's session to make room would let anyone
		// push live users out; the newcomer waits instead.
		w.Header().Set("Retry-After", "60")
		WriteError(w, http.StatusServiceUnavailable, -32000, "Too many MCP sessions are open; try again in a minute.")
		return
	}
	s.next.ServeHTTP(w, r)
	if r.Method == http.MethodDelete {
		s.mu.Lock()
		s.forget(id)
		s.mu.Unlock()
		return
	}
	var expired []*openSession
	s.mu.Lock()
	if opened := w.Header().Get(SessionHeader); opened != "" && opened != id {
		if _, known := s.open[opened]; !known {
			s.open[opened] = &openSession{id: opened, addr: addr, lastUsed: now, url: r.URL.String(), host: r.Host, version: r.Header.Get(VersionHeader)}
			s.perAddr[addr]++
			for s.perAddr[addr] > s.limits.PerAddress {
				expired = append(expired, s.forget(s.oldestOf(addr)))
			}
			s.arm()
		}
	}
	if now.Sub(s.scanned) >= s.limits.Idle/8 || now.Before(s.scanned) {
		expired = append(expired, s.expire(now)...)
	}
	s.mu.Unlock()
	for _, o := range expired {
		s.close(r.Context(), o)
	}
}

// expire forgets every session idle for Idle and returns them. The caller
// holds mu.
func (s *sessionLimiter) expire(now time.Time) []*openSession {
	s.scanned = now
	var out []*openSession
	for sid, o := range s.open {
		if now.Sub(o.lastUsed) >= s.limits.Idle {
			out = append(out, s.forget(sid))
		}
	}
	return out
}

// arm starts the timer unless it runs already. The caller holds mu.
func (s *sessionLimiter) arm() {
	if s.timer == nil && len(s.open) > 0 {
		s.timer = time.AfterFunc(s.limits.Idle/8, s.tick)
	}
}

// tick is the timer's pass: it closes the idle sessions no request came
// to find, and runs again while any are open.
func (s *sessionLimiter) tick() {
	s.mu.Lock()
	s.timer = nil
	expired := s.expire(s.limits.Clock.Now())
	s.arm()
	s.mu.Unlock()
	for _, o := range expired {
		// The pass outlives any request; a DELETE is answered at once.
		s.close(context.Background(), o)
	}
	if len(expired) >= releaseAfter {
		debug.FreeOSMemory()
	}
}

// oldestOf returns the id of addr's session idle longest. The caller holds
// mu.
func (s *sessionLimiter) oldestOf(addr string) string {
	var oldest string
	var at time.Time
	for sid, o := range s.open {
		if o.addr == addr && (oldest == "" || o.lastUsed.Before(at)) {
			oldest, at = sid, o.lastUsed
		}
	}
	return oldest
}

// forget drops session id from the counts and returns what was known of
// it, or nil. The caller holds mu.
func (s *sessionLimiter) forget(id string) *openSession {
	o, ok := s.open[id]
	if !ok {
		return nil
	}
	delete(s.open, id)
	if s.perAddr[o.addr]--; s.perAddr[o.addr] <= 0 {
		delete(s.perAddr, o.addr)
	}
	return o
}

// close ends one forgotten session as its client would.
func (s *sessionLimiter) close(ctx context.Context, o *openSession) {
	if o == nil {
		return
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodDelete, o.url, nil)
	if err != nil {
		return
	}
	req.Host, req.RemoteAddr = o.host, "127.0.0.1:0"
	req.Header.Set(SessionHeader, o.id)
	if o.version != "" {
		req.Header.Set(VersionHeader, o.version)
	}
	s.next.ServeHTTP(discardWriter{header: http.Header{}}, req)
}

// discardWriter takes the answer to a DELETE the limiter sent itself.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
