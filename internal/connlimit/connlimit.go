// Package connlimit caps the connections one network address may hold
// open on a listener, so one client cannot take every file descriptor of
// the server, and the server keeps answering everyone else, its probes
// included.
//
// It imports only the standard library.
package connlimit

import (
	"net"
	"sync"
)

// Listener accepts at most PerAddress open connections from each remote
// IP address, and at most Total in all when Total is set; a connection over
// either cap is closed as soon as it arrives.
type Listener struct {
	net.Listener
	PerAddress int
	// Total, when above zero, caps all open connections together, so many
	// addresses at once cannot take the descriptors the store needs.
	Total int
	// Refused, when set, is called for each connection closed over the cap.
	Refused func(addr string)

	mu    sync.Mutex
	open  map[string]int
	total int
}

// New wraps l.
func New(l net.Listener, perAddress int) *Listener {
	return &Listener{Listener: l, PerAddress: perAddress, open: map[string]int{}}
}

// Accept returns the next connection within the cap.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := host(c.RemoteAddr())
		l.mu.Lock()
		over := l.open[addr] >= l.PerAddress || l.Total > 0 && l.total >= l.Total
		if !over {
			l.open[addr]++
			l.total++
		}
		l.mu.Unlock()
		if over {
			_ = c.Close() // refused: nothing was read or written on it
			if l.Refused != nil {
				l.Refused(addr)
			}
			continue
		}
		return &conn{Conn: c, release: func() { l.release(addr) }}, nil
	}
}

// Open reports how many connections addr holds.
func (l *Listener) Open(addr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[addr]
}

func (l *Listener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.open[addr]--; l.open[addr] <= 0 {
		delete(l.open, addr)
	}
}

func host(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
