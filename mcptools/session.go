package mcptools

import (
	"context"
	"net/http"
	"sync"
	"time"

	"frontdesk/internal/clock"
)

// SessionLimits bound the stateful sessions of an MCP endpoint: a session
// idle for Idle is closed, and beyond Max sessions the one idle longest
// is closed. Zero values mean 30 minutes and 1,000.
type SessionLimits struct {
	Idle  time.Duration
	Max   int
	Clock clock.Clock
}

// LimitSessions closes the sessions of next that SessionLimits bound, by
// sending next the DELETE a client would send, so the SDK frees each
// session as it does on a client's own goodbye. It keeps only session ids
// and times. Expired sessions are found on later requests, so the bound
// needs no goroutine of its own.
func LimitSessions(next http.Handler, l SessionLimits) http.Handler {
	if l.Idle == 0 {
		l.Idle = 30 * time.Minute
	}
	if l.Max == 0 {
		l.Max = 1000
	}
	if l.Clock == nil {
		l.Clock = clock.System{}
	}
	return &sessionLimiter{next: next, limits: l, used: map[string]time.Time{}}
}

type sessionLimiter struct {
	next    http.Handler
	limits  SessionLimits
	mu      sync.Mutex
	used    map[string]time.Time // session id → last request
	scanned time.Time
}

func (s *sessionLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.limits.Clock.Now()
	id := r.Header.Get(SessionHeader)
	s.mu.Lock()
	if _, ok := s.used[id]; ok {
		s.used[id] = now
	}
	s.mu.Unlock()
	s.next.ServeHTTP(w, r)
	if r.Method == http.MethodDelete {
		s.mu.Lock()
		delete(s.used, id)
		s.mu.Unlock()
		return
	}
	var expired []string
	s.mu.Lock()
	if opened := w.Header().Get(SessionHeader); opened != "" && opened != id {
		s.used[opened] = now
		for len(s.used) > s.limits.Max {
			expired = append(expired, s.evictOldest())
		}
	}
	if now.Sub(s.scanned) >= s.limits.Idle/8 || now.Before(s.scanned) {
		s.scanned = now
		for sid, at := range s.used {
			if now.Sub(at) >= s.limits.Idle {
				delete(s.used, sid)
				expired = append(expired, sid)
			}
		}
	}
	s.mu.Unlock()
	for _, sid := range expired {
		s.close(r, sid)
	}
}

// evictOldest forgets the session idle longest and returns its id. The
// caller holds mu.
func (s *sessionLimiter) evictOldest() string {
	var oldest string
	var at time.Time
	for sid, t := range s.used {
		if oldest == "" || t.Before(at) {
			oldest, at = sid, t
		}
	}
	delete(s.used, oldest)
	return oldest
}

// close ends one session as its client would, on the same host as r.
func (s *sessionLimiter) close(r *http.Request, id string) {
	req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodDelete, r.URL.String(), nil)
	if err != nil {
		return
	}
	req.Host, req.RemoteAddr = r.Host, r.RemoteAddr
	req.Header.Set(SessionHeader, id)
	if v := r.Header.Get(VersionHeader); v != "" {
		req.Header.Set(VersionHeader, v)
	}
	s.next.ServeHTTP(discardWriter{header: http.Header{}}, req)
}

// discardWriter takes the answer to a DELETE the limiter sent itself.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
