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
	// MaxIdle sessions are kept open between sends; zero means
	// DefaultMaxIdle, a negative value keeps none.
	MaxIdle int
	// MaxMessages a session carries before it is closed; zero means
	// DefaultMaxMessages.
	MaxMessages int
	// IdleTimeout retires a session idle that long; zero means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Clock dates an email whose Date is zero and ages idle sessions;
	// nil means the system clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// SMTP sends email through a mail provider's submission server. It is
// safe for concurrent use: a send has a session to itself, an idle one
// from the pool or a new connection.
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
	pool     pool
}

var _ message.Sender = (*SMTP)(nil)

// Server is the submission server mail is handed to: its address, the
// login (empty User: none) and From, the sender of an Email that names
// none.
type Server struct {
	Host     string
	Port     int
	User     string
	Password string
	From     string
}

// NewSMTP returns a driver for the server c.
func NewSMTP(c Server, opts *SMTPOptions) (*SMTP, error) {
	var o SMTPOptions
	if opts != nil {
		o = *opts
	}
	if c.Host == "" {
		return nil, errors.New("mail: smtp host is empty")
	}
	if c.Port < 1 || c.Port > 65535 {
		return nil, fmt.Errorf("mail: smtp port %d is not a TCP port", c.Port)
	}
	if o.TLSPolicy == TLSNone && o.ImplicitTLS {
		return nil, errors.New("mail: implicit TLS contradicts the TLSNone policy")
	}
	if o.TLSPolicy == TLSNone && !isLoopback(c.Host) {
		return nil, fmt.Errorf("mail: smtp without TLS is allowed only on loopback, not %q", c.Host)
	}
	s := &SMTP{
		host: c.Host, port: c.Port, username: c.User, password: c.Password, from: c.From,
		policy: o.TLSPolicy, implicit: o.ImplicitTLS || c.Port == implicitTLSPort, timeout: o.Timeout, clock: o.Clock, logger: o.Logger,
	}
	if o.TLSConfig != nil {
		s.tls = o.TLSConfig.Clone()
	} else {
		s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if s.tls.ServerName == "" {
		s.tls.ServerName = c.Host
	}
	if s.timeout <= 0 {
		s.timeout = DefaultSendTimeout
	}
	if s.clock == nil {
		s.clock = clock.System{}
	}
	s.pool = pool{maxIdle: o.MaxIdle, maxMessages: o.MaxMessages, idleTimeout: o.IdleTimeout}
	if s.pool.maxIdle == 0 {
		s.pool.maxIdle = DefaultMaxIdle
	}
	if s.pool.maxMessages <= 0 {
		s.pool.maxMessages = DefaultMaxMessages
	}
	if s.pool.idleTimeout <= 0 {
		s.pool.idleTimeout = DefaultIdleTimeout
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
//
// Send uses an idle session when there is one (see pool). A reused session
// that breaks before any byte of the data was written, as one does when
// the provider dropped it while idle, is discarded and the message goes
// once more on a fresh connection; nothing after that point is retried.
func (s *SMTP) Send(ctx context.Context, e message.Email) error {
	msg, err := s.compose(e)
	if err != nil {
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()

	if sess := s.pool.take(s.clock.Now()); sess != nil {
		err := s.deliver(ctx, sess, msg, true)
		if !staleSession(err) {
			return s.done(sess, err)
		}
		sess.close()
	}
	sess, err := s.login(ctx)
	if err != nil {
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, err)
	}
	return s.done(sess, s.deliver(ctx, sess, msg, false))
}

// deliver runs one mail transaction on sess, which a reused session starts
// with RSET: the check that the connection is still alive, and a clean
// state whatever the last transaction left.
func (s *SMTP) deliver(ctx context.Context, sess *session, msg *gomail.Msg, reused bool) error {
	if reused {
		sess.bind(ctx)
		err := sess.conn.UpdateDeadline(s.timeout)
		if err == nil {
			err = sess.conn.Reset()
		}
		if err != nil {
			return &sendFailure{step: "RSET", beforeData: true, ended: sess.ended(ctx), cause: err}
		}
	}
	err := sess.client.SendWithSMTPClient(sess.conn, msg)
	if msg.IsDelivered() {
		// The server answered 250 to the data; nothing after it can
		// unsend the message.
		return nil
	}
	if err == nil {
		return errors.New("delivery uncertain: the server never confirmed the data")
	}
	return failure(err, sess.ended(ctx))
}

// done ends a send on sess: a session that delivered goes back to the
// pool, any other is closed, as its state is unknown.
func (s *SMTP) done(sess *session, err error) error {
	if err == nil {
		sess.sent++
		s.pool.put(sess, s.clock.Now())
		return nil
	}
	sess.close()
	var f *sendFailure
	switch {
	case !errors.As(err, &f):
		return fmt.Errorf("smtp send: %w", err)
	case f.step == "RCPT TO" && f.code >= 500:
		return fmt.Errorf("smtp send: %w: %w: %w", message.ErrNotSent, message.ErrRecipientRefused, f)
	case f.beforeData:
		return fmt.Errorf("smtp send: %w: %w", message.ErrNotSent, f)
	}
	return fmt.Errorf("smtp send: delivery uncertain: %w", f)
}

// staleSession reports whether err is a reused session's connection
// failing before any byte of the message data was written: no answer at
// all, or 421, the provider closing the session. Then the message
// certainly did not leave, and a second try on a fresh connection cannot
// make a duplicate. A refusal with any other code would only repeat, and
// a failure once the data started may have delivered it.
func staleSession(err error) bool {
	var f *sendFailure
	return errors.As(err, &f) && f.beforeData && f.ended == nil && (f.code == 0 || f.code == 421)
}

// login connects, negotiates TLS and authenticates, bound to ctx.
func (s *SMTP) login(ctx context.Context) (*session, error) {
	d := &dialer{ctx: ctx, tls: s.tls, implicitTLS: s.implicit && s.policy != TLSNone}
	client, err := gomail.NewClient(s.host, s.clientOptions(d)...)
	if err != nil {
		return nil, err
	}
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		d.close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	return &session{client: client, conn: conn, raw: d.conn}, nil
}

// Check logs in as Send would, then hangs up: serve runs it at start so a
// wrong password or an unreachable server is reported before the first
// guest asks for a code.
func (s *SMTP) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	sess, err := s.login(ctx)
	if err != nil {
		return fmt.Errorf("smtp check: %w", err)
	}
	// The login was the check; a failed goodbye says nothing about it.
	sess.quit(ctx)
	return nil
}

// Close says goodbye on every idle session. Sends after Close still work,
// each on its own connection.
func (s *SMTP) Close(ctx context.Context) {
	for _, sess := range s.pool.drain() {
		sess.quit(ctx)
	}
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
		// Send resets a reused session itself, before its next message,
		// which checks the connection as NOOP would; a fresh one needs
		// neither.
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

// dialer opens a session's connection and binds it to the context of
// the send that logs in.
type dialer struct {
	ctx         context.Context
	tls         *tls.Config
	implicitTLS bool

	conn *boundConn // set by dial, which go-mail calls once, before it returns
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd net.Dialer
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.conn = &boundConn{Conn: raw}
	d.conn.bind(d.ctx)
	if !d.implicitTLS {
		return d.conn, nil
	}
	tc := tls.Client(d.conn, d.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, err
	}
	return tc, nil
}

// close releases a connection that never became a session.
func (d *dialer) close() {
	if d.conn != nil {
		d.conn.closeNow()
	}
}

// boundConn keeps every deadline that go-mail sets within the context of
// the send using the connection, so a server that stalls mid-session
// cannot hold a send past its timeout, and a cancelled context stops the
// send at once. An idle pooled connection is bound to nothing.
type boundConn struct {
	net.Conn

	mu       sync.Mutex
	ctx      context.Context // nil while idle
	limit    time.Time       // zero when ctx has no deadline
	stop     func() bool
	timedOut atomic.Bool // a read or write hit its deadline
}

// bind makes ctx the bound of the connection until the next bind or
// unbind.
func (c *boundConn) bind(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		c.stop()
	}
	c.ctx = ctx
	c.limit, _ = ctx.Deadline()
	c.timedOut.Store(false)
	c.stop = context.AfterFunc(ctx, func() { c.expire(ctx) })
	_ = c.Conn.SetDeadline(c.bound(time.Time{})) // a closed connection fails its next I/O anyway
}

// unbind frees an idle connection from the last send's context, whose
// end must not expire it.
func (c *boundConn) unbind() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		c.stop()
	}
	c.ctx, c.limit, c.stop = nil, time.Time{}, nil
}

// ended returns ctx's error, or context.DeadlineExceeded when the
// connection hit its deadline a moment before the context's own timer
// fired, as both are set to the same instant. go-mail's errors do not
// wrap the network error.
func (c *boundConn) ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.timedOut.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

// closeNow closes the connection however the session ended; go-mail
// leaves it open when QUIT fails.
func (c *boundConn) closeNow() {
	c.unbind()
	_ = c.Conn.Close() // the session is over; its outcome is known
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
	if c.ctx != nil && c.ctx.Err() != nil {
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

// expire runs when the context of a send ends. Holding mu orders it with
// SetDeadline, which then sees the context done and keeps the past; a
// connection bound to a later send since is left alone.
func (c *boundConn) expire(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != ctx {
		return
	}
	_ = c.Conn.SetDeadline(expired()) // a closed connection is expired already
}
