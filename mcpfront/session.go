package mcpfront

import (
	"context"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"frontdesk/internal/clientip"
	"frontdesk/internal/clock"
)

// SessionLimits bound the stateful sessions of MCP endpoints. Hosted
// assistants reach a business from a handful of shared egress addresses,
// so no number of sessions per address is imposed: each address may open
// sessions at CreatePerSecond, after a first burst of CreateBurst, and the
// memory of all sessions together is bounded by Max.
//
// A session is closed only when it is idle: no request of it in flight
// (an open GET stream counts) and none for a while. One idle for Idle is
// closed by a timer whether or not other traffic comes. When Max sessions
// are open, a new one closes the session idle longest if that one has
// been idle for at least Evictable; with none idle that long the newcomer
// is refused (503 and Retry-After) and no live conversation is cut.
// Zero values mean the defaults below.
type SessionLimits struct {
	Idle            time.Duration
	Evictable       time.Duration
	Max             int
	CreatePerSecond float64
	CreateBurst     int
	Clock           clock.Clock
}

// Defaults of SessionLimits. One session of the SDK holds about 10 KiB
// when idle (BENCHMARKS.md, "MCP sessions from one address"), so the
// default cap keeps all sessions under about 110 MiB.
const (
	DefaultSessionIdle      = 30 * time.Minute
	DefaultSessionEvictable = 5 * time.Minute
	DefaultMaxSessions      = 10000
	DefaultCreatePerSecond  = 50
	DefaultCreateBurst      = 3000
	createRetryAfter        = 1
)

// releaseAfter is how many sessions one timer pass must close before it
// hands the freed memory back to the system at once: the collector would
// otherwise keep the heap a closed crowd of sessions grew to, since an
// idle server collects rarely.
const releaseAfter = 64

// SessionPool holds the sessions of every endpoint it limits, so that one
// cap bounds the memory of them all.
type SessionPool struct {
	limits  SessionLimits
	mu      sync.Mutex
	open    map[string]*openSession // session id → its state
	rates   map[string]*bucket      // client address → its creation budget
	scanned time.Time
	timer   *time.Timer // armed while sessions are open
}

// NewSessionPool returns an empty pool with limits l.
func NewSessionPool(l SessionLimits) *SessionPool {
	if l.Idle <= 0 {
		l.Idle = DefaultSessionIdle
	}
	if l.Evictable <= 0 {
		l.Evictable = min(DefaultSessionEvictable, l.Idle)
	}
	if l.Max <= 0 {
		l.Max = DefaultMaxSessions
	}
	if l.CreatePerSecond <= 0 {
		l.CreatePerSecond = DefaultCreatePerSecond
	}
	if l.CreateBurst <= 0 {
		l.CreateBurst = DefaultCreateBurst
	}
	if l.Clock == nil {
		l.Clock = clock.System{}
	}
	return &SessionPool{limits: l, open: map[string]*openSession{}, rates: map[string]*bucket{}}
}

// LimitSessions limits the sessions of next alone, in a pool of its own.
func LimitSessions(next http.Handler, l SessionLimits) http.Handler {
	return NewSessionPool(l).Limit(next)
}

// Open reports how many sessions the pool holds.
func (p *SessionPool) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open)
}

// Limit closes the sessions of next that the pool's limits bound, by
// sending next the DELETE a client would send, so the SDK frees each
// session as it does on a client's own goodbye. It keeps only session ids,
// times and what a DELETE needs. While sessions are open a timer looks for
// idle ones every Idle/8; with none open nothing runs.
func (p *SessionPool) Limit(next http.Handler) http.Handler {
	return &sessionLimiter{pool: p, next: next}
}

// openSession is what the pool knows of one session.
type openSession struct {
	id       string
	lastUsed time.Time
	inFlight int // requests of the session being served, streams included
	// How to close it as its client would: the handler and path it was
	// opened on, the Host and the protocol revision.
	via                http.Handler
	url, host, version string
}

// idle reports whether o may be closed at now after idling for d.
func (o *openSession) idle(now time.Time, d time.Duration) bool {
	return o.inFlight == 0 && now.Sub(o.lastUsed) >= d
}

// bucket is one address's budget of session creations.
type bucket struct {
	tokens float64
	at     time.Time
}

type sessionLimiter struct {
	pool *SessionPool
	next http.Handler
}

func (s *sessionLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := s.pool
	now := p.limits.Clock.Now()
	id := r.Header.Get(SessionHeader)
	opening := r.Method == http.MethodPost && id == "" && r.Header.Get(VersionHeader) < RevisionStateless
	var evicted *openSession
	p.mu.Lock()
	o, known := p.open[id]
	if known {
		o.lastUsed = now
		o.inFlight++
	}
	refusal := ""
	if opening {
		refusal, evicted = p.admit(clientip.Host(r), now)
	}
	p.mu.Unlock()
	if evicted != nil {
		evicted.close(r.Context())
	}
	switch refusal {
	case "rate":
		w.Header().Set("Retry-After", strconv.Itoa(createRetryAfter))
		WriteError(w, http.StatusTooManyRequests, -32000, "Too many MCP sessions started from this address; try again in a second.")
		return
	case "full":
		// Closing a live session to make room would cut a conversation
		// in the middle; the newcomer waits instead.
		w.Header().Set("Retry-After", "60")
		WriteError(w, http.StatusServiceUnavailable, -32000, "Too many MCP sessions are open; try again in a minute.")
		return
	}
	s.next.ServeHTTP(w, r)
	now = p.limits.Clock.Now()
	var expired []*openSession
	p.mu.Lock()
	if known {
		o.inFlight--
		o.lastUsed = now
	}
	if r.Method == http.MethodDelete {
		p.forget(id)
		p.mu.Unlock()
		return
	}
	if opened := w.Header().Get(SessionHeader); opened != "" && opened != id {
		if _, dup := p.open[opened]; !dup {
			p.open[opened] = &openSession{id: opened, lastUsed: now, via: s.next, url: r.URL.String(), host: r.Host, version: r.Header.Get(VersionHeader)}
			p.arm()
		}
	}
	if now.Sub(p.scanned) >= p.limits.Idle/8 || now.Before(p.scanned) {
		expired = p.expire(now)
	}
	p.mu.Unlock()
	for _, o := range expired {
		o.close(r.Context())
	}
}

// admit takes one session creation from addr's budget and makes room for
// it. It returns "rate" when addr is over its rate, "full" when every
// session is live, and otherwise the idle session it closes for room, if
// any. The caller holds mu.
func (p *SessionPool) admit(addr string, now time.Time) (refusal string, evicted *openSession) {
	b, ok := p.rates[addr]
	if !ok {
		b = &bucket{tokens: float64(p.limits.CreateBurst), at: now}
		p.rates[addr] = b
	}
	if now.After(b.at) {
		b.tokens = min(float64(p.limits.CreateBurst), b.tokens+now.Sub(b.at).Seconds()*p.limits.CreatePerSecond)
		b.at = now
	}
	if b.tokens < 1 {
		return "rate", nil
	}
	if len(p.open) >= p.limits.Max {
		victim := p.idlest(now)
		if victim == "" {
			return "full", nil
		}
		evicted = p.forget(victim)
	}
	b.tokens--
	return "", evicted
}

// idlest returns the id of the session idle longest, when it may be
// evicted, or "". The caller holds mu.
func (p *SessionPool) idlest(now time.Time) string {
	var oldest *openSession
	for _, o := range p.open {
		if o.inFlight == 0 && (oldest == nil || o.lastUsed.Before(oldest.lastUsed)) {
			oldest = o
		}
	}
	if oldest == nil || !oldest.idle(now, p.limits.Evictable) {
		return ""
	}
	return oldest.id
}

// expire forgets every session idle for Idle and returns them, and drops
// the creation budgets that have filled up again. The caller holds mu.
func (p *SessionPool) expire(now time.Time) []*openSession {
	p.scanned = now
	var out []*openSession
	for sid, o := range p.open {
		if o.idle(now, p.limits.Idle) {
			out = append(out, p.forget(sid))
		}
	}
	for addr, b := range p.rates {
		if float64(p.limits.CreateBurst)-b.tokens <= now.Sub(b.at).Seconds()*p.limits.CreatePerSecond {
			delete(p.rates, addr)
		}
	}
	return out
}

// arm starts the timer unless it runs already. The caller holds mu.
func (p *SessionPool) arm() {
	if p.timer == nil && len(p.open) > 0 {
		p.timer = time.AfterFunc(p.limits.Idle/8, p.tick)
	}
}

// tick is the timer's pass: it closes the idle sessions no request came
// to find, and runs again while any are open.
func (p *SessionPool) tick() {
	p.mu.Lock()
	p.timer = nil
	expired := p.expire(p.limits.Clock.Now())
	p.arm()
	p.mu.Unlock()
	for _, o := range expired {
		// The pass outlives any request; a DELETE is answered at once.
		o.close(context.Background())
	}
	if len(expired) >= releaseAfter {
		debug.FreeOSMemory()
	}
}

// forget drops session id and returns what was known of it, or nil. The
// caller holds mu.
func (p *SessionPool) forget(id string) *openSession {
	o, ok := p.open[id]
	if !ok {
		return nil
	}
	delete(p.open, id)
	return o
}

// close ends one forgotten session as its client would.
func (o *openSession) close(ctx context.Context) {
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
	o.via.ServeHTTP(discardWriter{header: http.Header{}}, req)
}

// discardWriter takes the answer to a DELETE the pool sent itself.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
