package mail

import (
	"context"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Defaults of the session pool (SMTPOptions).
const (
	// DefaultMaxIdle sessions are kept between sends: enough for eight
	// bookings at once without opening a connection for each, and within
	// the concurrent sessions providers commonly allow one client.
	DefaultMaxIdle = 8
	// DefaultMaxMessages per session: providers commonly cap a session
	// at about a hundred messages.
	DefaultMaxMessages = 100
	// DefaultIdleTimeout stays well inside the five minutes RFC 5321
	// gives a server to wait for the next command, as providers hang up
	// on idle sessions sooner.
	DefaultIdleTimeout = 30 * time.Second
)

// session is one logged-in SMTP connection, used by one send at a time:
// the TLS handshake and the login are paid once for many messages.
type session struct {
	client *gomail.Client
	conn   *smtp.Client
	raw    *boundConn
	sent   int       // messages the server accepted on it
	idle   time.Time // when it was last put back
}

func (s *session) bind(ctx context.Context)        { s.raw.bind(ctx) }
func (s *session) ended(ctx context.Context) error { return s.raw.ended(ctx) }

// close drops the connection without a goodbye: its state is unknown, or
// the server has likely gone already.
func (s *session) close() { s.raw.closeNow() }

// quit says goodbye, bound to ctx, and closes the connection.
func (s *session) quit(ctx context.Context) {
	s.bind(ctx)
	_ = s.client.CloseWithSMTPClient(s.conn) // the session is over either way
	s.close()
}

// pool keeps idle sessions, the most recently used first, so a burst
// reuses warm ones and the oldest age out.
type pool struct {
	maxIdle     int
	maxMessages int
	idleTimeout time.Duration

	mu     sync.Mutex
	idle   []*session
	closed bool
}

// take returns an idle session, or nil when none is fresh enough. Stale
// ones are closed on the way.
func (p *pool) take(now time.Time) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		s := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if now.Sub(s.idle) < p.idleTimeout {
			return s
		}
		s.close()
	}
	return nil
}

// put keeps s for the next send, or ends it when it has carried its
// share of messages or the pool is full or closed.
func (p *pool) put(s *session, now time.Time) {
	s.raw.unbind()
	p.mu.Lock()
	keep := !p.closed && len(p.idle) < p.maxIdle && s.sent < p.maxMessages
	if keep {
		s.idle = now
		p.idle = append(p.idle, s)
	}
	p.mu.Unlock()
	if !keep {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.quit(ctx)
	}
}

// drain empties the pool and closes it to later puts.
func (p *pool) drain() []*session {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.idle
	p.idle, p.closed = nil, true
	return idle
}
