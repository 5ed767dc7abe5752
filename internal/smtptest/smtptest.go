// Package smtptest runs an in-process SMTP server on 127.0.0.1 for tests:
// it records every message it accepts and can be told to refuse
// recipients, refuse credentials, or fail or hang once the message data
// has arrived, so a sender's handling of each failure is tested against a
// real SMTP conversation rather than a mock.
//
// It is for tests only. It imports only the standard library and
// github.com/emersion/go-smtp (with its SASL companion).
package smtptest

import (
	"errors"
	"io"
	"log"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted: the envelope and the raw
// bytes of the data, with CRLF line ends as they came over the wire.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Options choose how the server misbehaves. The zero value accepts
// everything without authentication.
type Options struct {
	// RejectRcpt refuses RCPT TO for these addresses with a permanent 550,
	// so the message is refused before any data is sent.
	RejectRcpt []string
	// FailAfterData reads the whole message and then answers 451, so the
	// sender has sent the data but the server did not accept it.
	FailAfterData bool
	// HangAfterData reads the whole message and then never answers until
	// the server closes, so the sender cannot know whether it was taken.
	HangAfterData bool
	// Username and Password, when Username is set, make the server offer
	// AUTH PLAIN (over plain TCP, as this is loopback) and refuse MAIL
	// FROM until the client has authenticated with them.
	Username, Password string
}

// Server is a running test SMTP server.
type Server struct {
	// Addr is the host:port the server listens on.
	Addr string
	// Host and Port are Addr split for clients that take them apart.
	Host string
	Port int

	opts     Options
	srv      *smtp.Server
	release  chan struct{} // closed on Close; frees hanging sessions
	sessions sync.WaitGroup

	mu       sync.Mutex
	messages []Message
	attempts int // DATA commands that delivered a whole message
}

// Start listens on 127.0.0.1:0 and serves until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: listen: %v", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	s := &Server{Addr: addr.String(), Host: addr.IP.String(), Port: addr.Port, opts: opts, release: make(chan struct{})}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Domain = "smtptest.localhost"
	s.srv.AllowInsecureAuth = true // loopback only; no certificate to offer
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		// Hanging sessions must be freed first, or closing their
		// connections would leave their goroutines blocked.
		close(s.release)
		s.srv.Close()
		<-served
		s.sessions.Wait()
	})
	return s
}

// Messages returns the accepted messages in the order they arrived.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.messages)
}

// DataReceived counts the messages whose data arrived in full, accepted
// or not: a sender that was refused at RCPT never gets this far.
func (s *Server) DataReceived() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

func (s *Server) newSession(*smtp.Conn) (smtp.Session, error) {
	s.sessions.Add(1)
	return &session{server: s}, nil
}

// session is one SMTP connection's state.
type session struct {
	server *Server
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (c *session) AuthMechanisms() []string {
	if c.server.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (c *session) Auth(mech string) (sasl.Server, error) {
	if c.server.opts.Username == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != c.server.opts.Username || password != c.server.opts.Password {
			return smtp.ErrAuthFailed
		}
		c.authed = true
		return nil
	}), nil
}

func (c *session) Mail(from string, _ *smtp.MailOptions) error {
	if c.server.opts.Username != "" && !c.authed {
		return smtp.ErrAuthRequired
	}
	c.from = from
	return nil
}

func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if slices.Contains(c.server.opts.RejectRcpt, to) {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "Mailbox unavailable"}
	}
	c.to = append(c.to, to)
	return nil
}

func (c *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := c.server
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
	switch {
	case s.opts.HangAfterData:
		<-s.release
		return errors.New("server closed")
	case s.opts.FailAfterData:
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Local error in processing"}
	}
	s.mu.Lock()
	s.messages = append(s.messages, Message{From: c.from, To: slices.Clone(c.to), Data: data})
	s.mu.Unlock()
	return nil
}

func (c *session) Reset() {
	c.from, c.to = "", nil
}

func (c *session) Logout() error {
	c.server.sessions.Done()
	return nil
}
