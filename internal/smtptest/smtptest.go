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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
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
	TLS  bool   // the message came over TLS
	User string // the username the client authenticated as, if any
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
	// AUTH PLAIN (over plain TCP too, as this is loopback) and refuse MAIL
	// FROM until the client has authenticated with them.
	Username, Password string
	// StartTLS offers STARTTLS with a self-signed certificate for
	// 127.0.0.1; ImplicitTLS speaks TLS from the first byte, as port 465
	// does. Clients trust the certificate through Server.ClientTLS.
	StartTLS, ImplicitTLS bool
}

// Server is a running test SMTP server.
type Server struct {
	// Addr is the host:port the server listens on.
	Addr string
	// Host and Port are Addr split for clients that take them apart.
	Host string
	Port int

	// ClientTLS trusts the server's certificate; nil without TLS.
	ClientTLS *tls.Config

	srv      *smtp.Server
	release  chan struct{} // closed on Close; frees hanging sessions
	sessions sync.WaitGroup

	mu       sync.Mutex
	opts     Options
	messages []Message
	attempts int        // DATA commands that delivered a whole message
	conns    []net.Conn // every connection accepted, open or not
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
	ln = &countingListener{Listener: ln, s: s}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	if opts.StartTLS || opts.ImplicitTLS {
		serverTLS, clientTLS, err := selfSigned(addr.IP)
		if err != nil {
			t.Fatalf("smtptest: certificate: %v", errors.Join(err, ln.Close()))
		}
		s.ClientTLS = clientTLS
		if opts.StartTLS {
			s.srv.TLSConfig = serverTLS
		}
		if opts.ImplicitTLS {
			ln = tls.NewListener(ln, serverTLS)
		}
	}
	s.srv.Domain = "smtptest.localhost"
	s.srv.AllowInsecureAuth = true // loopback only; no certificate to offer
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.srv.Serve(ln) // ends with an error when Close closes the listener
	}()
	t.Cleanup(func() {
		// Hanging sessions must be freed first, or closing their
		// connections would leave their goroutines blocked.
		close(s.release)
		_ = s.srv.Close() // the test is over; what it checked is decided
		// Serve may not have registered the listener with the server yet,
		// in which case Close did not reach it.
		_ = ln.Close()
		<-served
		s.sessions.Wait()
	})
	return s
}

// selfSigned makes a certificate for ip, valid for a day around now, and
// the server and client TLS configurations that use and trust it.
func selfSigned(ip net.IP) (server, client *tls.Config, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "smtptest"},
		IPAddresses:  []net.IP{ip},
		NotBefore:    now.Add(-12 * time.Hour),
		NotAfter:     now.Add(12 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: roots, ServerName: ip.String(), MinVersion: tls.VersionTLS12}
	return server, client, nil
}

// countingListener records each connection it accepts, below TLS, so
// Connections counts TCP connections and DropConnections can cut them.
type countingListener struct {
	net.Listener
	s *Server
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.s.mu.Lock()
		l.s.conns = append(l.s.conns, c)
		l.s.mu.Unlock()
	}
	return c, err
}

// Connections counts the TCP connections the server accepted.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// DropConnections closes every connection from the server's side without
// a word, as a provider does when it times out an idle session.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Close() // a connection closed already is what was wanted
	}
}

// SetOptions changes how the server misbehaves from the next command on;
// the TLS options are fixed at Start.
func (s *Server) SetOptions(opts Options) {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts.StartTLS, opts.ImplicitTLS = s.opts.StartTLS, s.opts.ImplicitTLS
	s.opts = opts
}

func (s *Server) options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts
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

func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) {
	s.sessions.Add(1)
	_, isTLS := c.TLSConnectionState()
	return &session{server: s, tls: isTLS}, nil
}

// session is one SMTP connection's state.
type session struct {
	server *Server
	tls    bool // a STARTTLS upgrade starts a new session
	user   string
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (c *session) AuthMechanisms() []string {
	if c.server.options().Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (c *session) Auth(mech string) (sasl.Server, error) {
	opts := c.server.options()
	if opts.Username == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != opts.Username || password != opts.Password {
			return smtp.ErrAuthFailed
		}
		c.authed, c.user = true, username
		return nil
	}), nil
}

func (c *session) Mail(from string, _ *smtp.MailOptions) error {
	if c.server.options().Username != "" && !c.authed {
		return smtp.ErrAuthRequired
	}
	c.from = from
	return nil
}

func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if slices.Contains(c.server.options().RejectRcpt, to) {
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
	opts := s.opts
	s.mu.Unlock()
	switch {
	case opts.HangAfterData:
		<-s.release
		return errors.New("server closed")
	case opts.FailAfterData:
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Local error in processing"}
	}
	s.mu.Lock()
	s.messages = append(s.messages, Message{From: c.from, To: slices.Clone(c.to), Data: data, TLS: c.tls, User: c.user})
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
