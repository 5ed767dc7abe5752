package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/message"
)

// TLSPolicy says when the SMTP driver encrypts its session.
type TLSPolicy int

const (
	// TLSMandatory, the default, encrypts every session: STARTTLS, or
	// implicit TLS on port 465. A server that does not offer STARTTLS is
	// refused, because the session carries the SMTP password, guests'
	// addresses and their booking codes, and an attacker who strips the
	// STARTTLS offer from the greeting must not be able to read them.
	TLSMandatory TLSPolicy = iota
	// TLSOpportunistic encrypts when the server offers STARTTLS and sends
	// in the clear otherwise. Passwords still go only over TLS.
	TLSOpportunistic
	// TLSNone never encrypts. It is refused for any host but a loopback
	// one: it exists for in-process test servers and local relays.
	TLSNone
)

// DefaultSendTimeout bounds one send, from dialling to the provider's
// answer to the data. It is the spec's limit for sending one mail.
const DefaultSendTimeout = 3500 * time.Millisecond

// implicitTLSPort is the submission port that speaks TLS from the first
// byte (RFC 8314) instead of upgrading with STARTTLS.
const implicitTLSPort = 465

// SMTPOptions tune the SMTP driver. A nil *SMTPOptions, or a zero field,
// means the default.
type SMTPOptions struct {
	TLSPolicy TLSPolicy
	// ImplicitTLS speaks TLS from the first byte (RFC 8314) instead of
	// upgrading with STARTTLS. It is always on for port 465.
	ImplicitTLS bool
	// TLSConfig verifies the server; nil means the system roots with the
	// configured host as the server name.
	TLSConfig *tls.Config
	// Timeout bounds each send; zero means DefaultSendTimeout.
	Timeout time.Duration
	// Clock dates an email whose Date is zero; nil means the system clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// SMTP sends email through a mail provider's submission server. It is
// safe for concurrent use: every send has its own connection.
type SMTP struct {
	host     string
	port     int
	username string
	password string
	from     string // used when an Email has no From
	policy   TLSPolicy
	implicit bool
	tls      *tls.Config
	timeout  time.Duration
	clock    clock.Clock
	logger   *slog.Logger
}

var _ message.Sender = (*SMTP)(nil)

// NewSMTP returns a driver for the server in c: SMTPHost, SMTPPort,
// SMTPUser and SMTPPassword, with From as the sender of an Email that
// names none.
func NewSMTP(c config.Mail, opts *SMTPOptions) (*SMTP, error) {
	var o SMTPOptions
	if opts != nil {
		o = *opts
	}
	if c.SMTPHost == "" {
		return nil, errors.New("mail: smtp host is empty")
	}
	if c.SMTPPort < 1 || c.SMTPPort > 65535 {
		return nil, fmt.Errorf("mail: smtp port %d is not a TCP port", c.SMTPPort)
	}
	if o.TLSPolicy == TLSNone && o.ImplicitTLS {
		return nil, errors.New("mail: implicit TLS contradicts the TLSNone policy")
	}
	if o.TLSPolicy == TLSNone && !isLoopback(c.SMTPHost) {
		return nil, fmt.Errorf("mail: smtp without TLS is allowed only on loopback, not %q", c.SMTPHost)
	}
	s := &SMTP{
		host: c.SMTPHost, port: c.SMTPPort, username: c.SMTPUser, password: c.SMTPPassword, from: c.From,
		policy: o.TLSPolicy, implicit: o.ImplicitTLS || c.SMTPPort == implicitTLSPort, timeout: o.Timeout, clock: o.Clock, logger: o.Logger,
	}
	if o.TLSConfig != nil {
		s.tls = o.TLSConfig.Clone()
	} else {
		s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if s.tls.ServerName == "" {
		s.tls.ServerName = c.SMTPHost
	}
	if s.timeout <= 0 {
		s.timeout = DefaultSendTimeout
	}
	if s.clock == nil {
		s.clock = clock.System{}
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("component", "mail")
	return s, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Send delivers e and returns nil once the server accepted the data. An
// error wraps message.ErrNotSent when the message certainly never left:
// the connection, greeting, TLS or authentication failed, or the server
// refused the sender, a recipient or the DATA command. Once the message
// data is on the wire, a failure or timeout leaves delivery uncertain and
// the error does not wrap ErrNotSent: the server may have queued the
// message and lost only its answer, so refunding or resending it could
// give the guest the same mail twice. A 4xx or 5xx answer to the data is
// treated as uncertain too, deliberately: some providers queue first and
// answer late or wrongly, and the cost of a wrong "not sent" is a duplicate.
func (s *SMTP) Send(ctx context.Context, e message.Email) error {
	msg, err := s.compose(e)
	if err != nil {
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()

	d := s.dialer(ctx)
	defer d.close()
	client, conn, err := s.login(ctx, d)
	if err != nil {
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, err)
	}
	err = client.SendWithSMTPClient(conn, msg)
	if msg.IsDelivered() {
		// The server answered 250 to the data. Only closing the session
		// can still fail, and that does not unsend the message.
		if err := client.CloseWithSMTPClient(conn); err != nil {
			s.logger.DebugContext(ctx, "smtp quit failed after delivery", "err", err)
		}
		return nil
	}
	if err == nil {
		return errors.New("smtp send: delivery uncertain: the server never confirmed the data")
	}
	f := failure(err, d.ended())
	if f.step == "RCPT TO" && f.code >= 500 {
		return fmt.Errorf("smtp send: %w: %w: %w", message.ErrNotSent, message.ErrRecipientRefused, f)
	}
	if f.beforeData {
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, f)
	}
	return fmt.Errorf("smtp send: delivery uncertain: %w", f)
}

func (s *SMTP) dialer(ctx context.Context) *dialer {
	return &dialer{ctx: ctx, tls: s.tls, implicitTLS: s.implicit && s.policy != TLSNone}
}

// login connects, negotiates TLS and authenticates through d.
func (s *SMTP) login(ctx context.Context, d *dialer) (*gomail.Client, *smtp.Client, error) {
	client, err := gomail.NewClient(s.host, s.clientOptions(d)...)
	if err != nil {
		return nil, nil, err
	}
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	return client, conn, nil
}

// Check logs in as Send would, then hangs up: serve runs it at start so a
// wrong password or an unreachable server is reported before the first
// guest asks for a code.
func (s *SMTP) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	d := s.dialer(ctx)
	defer d.close()
	client, conn, err := s.login(ctx, d)
	if err != nil {
		return fmt.Errorf("smtp check: %w", err)
	}
	// The login was the check; a failed goodbye says nothing about it.
	_ = client.CloseWithSMTPClient(conn)
	return nil
}

// sendFailure is a refused or broken SMTP transaction. Its text names the
// step and the server's reply codes but neither the reply text nor any
// address: servers echo recipients in their replies, callers log errors,
// and logs never carry a guest's email. The cause stays reachable with
// errors.As for code that needs the detail.
type sendFailure struct {
	step       string
	code       int    // the server's reply code, 0 when there was none
	status     string // the enhanced status code, such as "5.1.1"
	ended      error  // the send's context error, when it timed out or was cancelled
	beforeData bool   // no byte of the message data had been written
	cause      error
}

func (e *sendFailure) Error() string {
	switch {
	case e.code != 0 && e.status != "":
		return fmt.Sprintf("%s refused: %d %s", e.step, e.code, e.status)
	case e.code != 0:
		return fmt.Sprintf("%s refused: %d", e.step, e.code)
	case errors.Is(e.ended, context.DeadlineExceeded):
		return e.step + ": timed out"
	case e.ended != nil:
		return e.step + ": cancelled"
	}
	return e.step + ": connection failed"
}

func (e *sendFailure) Unwrap() error { return e.cause }

// failure classifies an error of go-mail's send step. The message data is
// written only after MAIL FROM, every RCPT TO and the DATA command were
// accepted, so a refusal of any of those means the message never left.
// ErrWriteContent and ErrSMTPDataClose come once the data started, and
// anything unrecognised is treated the same way: uncertain.
//
// ended is why the send's connection stopped, if it was cut short (see
// dialer.ended): go-mail's errors do not wrap the network error.
func failure(err, ended error) *sendFailure {
	f := &sendFailure{step: "send", cause: err, ended: ended}
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return f
	}
	f.code, f.status = se.ErrorCode(), se.EnhancedStatusCode()
	switch se.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
		f.step, f.beforeData = "compose", true
	case gomail.ErrConnCheck:
		f.step, f.beforeData = "connection check", true
	case gomail.ErrSMTPMailFrom:
		f.step, f.beforeData = "MAIL FROM", true
	case gomail.ErrSMTPRcptTo:
		f.step, f.beforeData = "RCPT TO", true
	case gomail.ErrSMTPData:
		f.step, f.beforeData = "DATA", true
	case gomail.ErrWriteContent:
		f.step = "message data"
	case gomail.ErrSMTPDataClose:
		f.step = "end of data"
	}
	return f
}

// clientOptions configure one go-mail client for one send.
func (s *SMTP) clientOptions(d *dialer) []gomail.Option {
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(s.timeout),
		gomail.WithTLSConfig(s.tls),
		gomail.WithDialContextFunc(d.dial),
		// Each send has its own session, so the NOOP before and the RSET
		// after a message are round trips the 3.5 s budget can spare.
		gomail.WithoutNoop(),
		gomail.WithoutRset(),
	}
	switch {
	case d.implicitTLS:
		// The dialer already speaks TLS; go-mail then sees a TLS
		// connection and must not ask for STARTTLS on top of it.
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case s.policy == TLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case s.policy == TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.username != "" {
		opts = append(opts, gomail.WithUsername(s.username), gomail.WithPassword(s.password))
		if s.policy == TLSNone {
			// Loopback only (NewSMTP checks), where a plain-text password
			// never crosses a network.
			opts = append(opts, gomail.WithOpportunisticSMTPAuth(
				gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1, gomail.SMTPAuthCramMD5,
				gomail.SMTPAuthPlainNoEnc, gomail.SMTPAuthLoginNoEnc))
		} else {
			// The strongest mechanism the server offers; PLAIN and LOGIN
			// only inside TLS.
			opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover))
		}
	}
	return opts
}

// compose builds the message: From, To, Reply-To when set, Subject, a
// Date from the email, a Message-ID derived from its ID, and the text as
// a single text/plain UTF-8 part.
func (s *SMTP) compose(e message.Email) (*gomail.Msg, error) {
	if e.ID == "" {
		return nil, errors.New("email has no ID")
	}
	if len(e.To) == 0 {
		return nil, errors.New("email has no recipient")
	}
	from := e.From
	if from == "" {
		from = s.from
	}
	// No User-Agent: it would tell every recipient the library version.
	m := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithCharset(gomail.CharsetUTF8), gomail.WithEncoding(gomail.EncodingQP))
	// The parse errors quote the address; they are dropped so that no
	// guest's address reaches a log through the returned error.
	if err := m.From(from); err != nil {
		return nil, errors.New("the sender is not a valid address")
	}
	if err := m.To(e.To...); err != nil {
		return nil, errors.New("a recipient is not a valid address")
	}
	if e.ReplyTo != "" {
		if err := m.ReplyTo(e.ReplyTo); err != nil {
			return nil, errors.New("the reply-to is not a valid address")
		}
	}
	m.Subject(e.Subject)
	date := e.Date
	if date.IsZero() {
		date = s.clock.Now()
	}
	m.SetDateWithValue(date)
	m.SetMessageIDWithValue(messageID(e.ID, from))
	m.SetBodyString(gomail.TypeTextPlain, e.Text)
	return m, nil
}

// dialer opens the one connection of a send and keeps every deadline
// that go-mail sets on it within the send's context, so a server that
// stalls mid-session cannot hold a send past its timeout, and a cancelled
// context stops the send at once.
type dialer struct {
	ctx         context.Context
	tls         *tls.Config
	implicitTLS bool

	mu   sync.Mutex
	conn *boundConn
	stop func() bool
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd net.Dialer
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	limit, _ := d.ctx.Deadline()
	bc := &boundConn{Conn: raw, ctx: d.ctx, limit: limit}
	_ = bc.SetDeadline(time.Time{}) // the context bounds the connection, not a deadline
	d.mu.Lock()
	d.conn = bc
	d.stop = context.AfterFunc(d.ctx, bc.expire)
	d.mu.Unlock()
	if !d.implicitTLS {
		return bc, nil
	}
	tc := tls.Client(bc, d.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, err
	}
	return tc, nil
}

// ended returns the send's context error, or context.DeadlineExceeded
// when the connection hit its deadline a moment before the context's own
// timer fired, as both are set to the same instant.
func (d *dialer) ended() error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn != nil && d.conn.timedOut.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

// close releases the connection however the send ended; go-mail leaves
// it open when QUIT fails.
func (d *dialer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return
	}
	d.stop()
	_ = d.conn.Conn.Close() // the session is over; its outcome is known
}

// boundConn clamps deadlines to the send's deadline and, once the send's
// context is done, to the past.
type boundConn struct {
	net.Conn
	ctx   context.Context
	limit time.Time // zero when the context has no deadline

	mu       sync.Mutex
	timedOut atomic.Bool // a read or write hit its deadline
}

func (c *boundConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.noteTimeout(err)
	return n, err
}

func (c *boundConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.noteTimeout(err)
	return n, err
}

func (c *boundConn) noteTimeout(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.timedOut.Store(true)
	}
}

// expired is a deadline long past: I/O fails at once.
func expired() time.Time { return time.Unix(1, 0) }

func (c *boundConn) bound(t time.Time) time.Time {
	if c.ctx.Err() != nil {
		return expired()
	}
	if !c.limit.IsZero() && (t.IsZero() || t.After(c.limit)) {
		return c.limit
	}
	return t
}

func (c *boundConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Conn.SetDeadline(c.bound(t))
}

func (c *boundConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Conn.SetReadDeadline(c.bound(t))
}

func (c *boundConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Conn.SetWriteDeadline(c.bound(t))
}

// expire runs when the send's context ends. Holding mu orders it with
// SetDeadline, which then sees the context done and keeps the past.
func (c *boundConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.Conn.SetDeadline(expired()) // a closed connection is expired already
}
