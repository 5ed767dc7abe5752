package mail

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/golden"
	"frontdesk/internal/smtptest"
	"frontdesk/message"
)

// sender is the configured sender of these tests.
const sender = "stay@samplestays.example"

func testEmail() message.Email {
	return message.Email{
		ID:      "notice-RIV-0123ABCD-guest",
		From:    sender,
		To:      []string{"guest@example.com"},
		ReplyTo: "riverside@samplestays.example",
		Subject: "Your code for Riverside Inn — 123456",
		Text: "Hello,\n\nYour confirmation code is 123456. It expires in 15 minutes.\n" +
			"Café, naïve, 10% off: a line that is long enough to be folded by quoted-printable encoding, which wraps at 76 characters.\n" +
			"Trailing space stays \n\n— Sample Stays\n",
		Date: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
	}
}

// newSMTP returns a driver for srv in the clear, as srv is on loopback.
func newSMTP(t *testing.T, host string, port int, opts SMTPOptions) *SMTP {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	s, err := NewSMTP(Server{From: sender, Host: host, Port: port}, &opts)
	if err != nil {
		t.Fatalf("NewSMTP = %v, want nil", err)
	}
	return s
}

func sendOne(t *testing.T, srv *smtptest.Server, e message.Email) *netmail.Message {
	t.Helper()
	s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSNone})
	if err := s.Send(t.Context(), e); err != nil {
		t.Fatalf("Send = %v, want nil", err)
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("server accepted %d messages, want 1", len(got))
	}
	if got[0].From != sender || !slices.Equal(got[0].To, e.To) {
		t.Fatalf("envelope = %q → %q, want %q → %q", got[0].From, got[0].To, sender, e.To)
	}
	m, err := netmail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatalf("parse sent message: %v\n%s", err, got[0].Data)
	}
	return m
}

func TestSMTPSendsExactMessage(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	e := testEmail()
	m := sendOne(t, srv, e)

	addr := func(name string) string {
		t.Helper()
		a, err := m.Header.AddressList(name)
		if err != nil || len(a) != 1 {
			t.Fatalf("%s = %q (%v), want one address", name, m.Header.Get(name), err)
		}
		return a[0].Address
	}
	if got, want := addr("From"), e.From; got != want {
		t.Errorf("From = %q, want %q", got, want)
	}
	if got, want := addr("To"), e.To[0]; got != want {
		t.Errorf("To = %q, want %q", got, want)
	}
	if got, want := addr("Reply-To"), e.ReplyTo; got != want {
		t.Errorf("Reply-To = %q, want %q", got, want)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil || subject != e.Subject {
		t.Errorf("Subject = %q (%v), want %q", subject, err, e.Subject)
	}
	date, err := m.Header.Date()
	if err != nil || !date.Equal(e.Date) {
		t.Errorf("Date = %v (%v), want %v", date, err, e.Date)
	}
	if got, want := m.Header.Get("Message-ID"), "<notice-RIV-0123ABCD-guest@samplestays.example>"; got != want {
		t.Errorf("Message-ID = %q, want %q", got, want)
	}
	mediaType, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mediaType != "text/plain" || !strings.EqualFold(params["charset"], "utf-8") {
		t.Errorf("Content-Type = %q, want text/plain; charset=UTF-8", m.Header.Get("Content-Type"))
	}
	for _, h := range []string{"User-Agent", "X-Mailer"} {
		if v := m.Header.Get(h); v != "" {
			t.Errorf("%s = %q, want none: it would name the library to every guest", h, v)
		}
	}

	raw, err := io.ReadAll(m.Body)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "smtp-body.txt", raw)
	if got := m.Header.Get("Content-Transfer-Encoding"); !strings.EqualFold(got, "quoted-printable") {
		t.Fatalf("Content-Transfer-Encoding = %q, want quoted-printable", got)
	}
	text, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	// SMTP carries lines with CRLF; the email's text joins them with LF.
	if got := strings.ReplaceAll(string(text), "\r\n", "\n"); got != e.Text {
		t.Errorf("decoded body = %q, want %q", got, e.Text)
	}
}

func TestSMTPReplyTo(t *testing.T) {
	tests := []struct {
		name    string
		replyTo string
	}{
		{"present", "riverside@samplestays.example"},
		{"absent", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, smtptest.Options{})
			e := testEmail()
			e.ReplyTo = tt.replyTo
			m := sendOne(t, srv, e)
			_, present := m.Header["Reply-To"]
			if present != (tt.replyTo != "") {
				t.Fatalf("Reply-To header = %q (present %v), want present %v", m.Header.Get("Reply-To"), present, tt.replyTo != "")
			}
			if present {
				a, err := netmail.ParseAddress(m.Header.Get("Reply-To"))
				if err != nil || a.Address != tt.replyTo {
					t.Fatalf("Reply-To = %q (%v), want %q", m.Header.Get("Reply-To"), err, tt.replyTo)
				}
			}
		})
	}
}

func TestSMTPUsesConfiguredSenderWhenEmailHasNone(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	e := testEmail()
	e.From = ""
	m := sendOne(t, srv, e)
	a, err := netmail.ParseAddress(m.Header.Get("From"))
	if err != nil || a.Address != sender {
		t.Fatalf("From = %q (%v), want %q", m.Header.Get("From"), err, sender)
	}
}

func TestSMTPAuthenticates(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "frontdesk", Password: "s3cret"})
	s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: srv.Port, User: "frontdesk", Password: "s3cret"},
		&SMTPOptions{TLSPolicy: TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), testEmail()); err != nil {
		t.Fatalf("Send = %v, want nil", err)
	}
	if got := len(srv.Messages()); got != 1 {
		t.Fatalf("server accepted %d messages, want 1", got)
	}
}

// TestSMTPTLS runs the production paths: STARTTLS or implicit TLS, with
// the password sent only inside TLS.
func TestSMTPTLS(t *testing.T) {
	tests := []struct {
		name   string
		server smtptest.Options
		opts   SMTPOptions
	}{
		{"starttls mandatory", smtptest.Options{StartTLS: true}, SMTPOptions{TLSPolicy: TLSMandatory}},
		{"starttls opportunistic", smtptest.Options{StartTLS: true}, SMTPOptions{TLSPolicy: TLSOpportunistic}},
		{"implicit tls", smtptest.Options{ImplicitTLS: true}, SMTPOptions{ImplicitTLS: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.server.Username, tt.server.Password = "frontdesk", "s3cret"
			srv := smtptest.Start(t, tt.server)
			tt.opts.TLSConfig, tt.opts.Timeout = srv.ClientTLS, 5*time.Second
			s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: srv.Port, User: "frontdesk", Password: "s3cret"}, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Send(t.Context(), testEmail()); err != nil {
				t.Fatalf("Send = %v, want nil", err)
			}
			got := srv.Messages()
			if len(got) != 1 || !got[0].TLS || got[0].User != "frontdesk" {
				t.Fatalf("server accepted %+v, want one message over TLS from user frontdesk", got)
			}
		})
	}
}

func TestSMTPRefusesAnUntrustedCertificate(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{StartTLS: true})
	// No TLSConfig: the system roots do not know the test certificate.
	s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSMandatory})
	err := s.Send(t.Context(), testEmail())
	if !message.NotSent(err) {
		t.Fatalf("Send = %v, want an error wrapping ErrNotSent", err)
	}
	if got := srv.DataReceived(); got != 0 {
		t.Fatalf("server received data %d times, want 0", got)
	}
}

// closedPort returns a loopback port that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// TestSMTPFailures checks the line between "certainly not sent", which
// may be refunded, and "uncertain", which may not, against a real server.
func TestSMTPFailures(t *testing.T) {
	tests := []struct {
		name        string
		server      smtptest.Options
		refused     bool // connect to a closed port instead of the server
		policy      TLSPolicy
		user, pass  string
		timeout     time.Duration
		cancelAfter time.Duration
		wantNotSent bool
		wantData    int    // messages whose data reached the server
		wantText    string // part of the error's text
	}{
		{name: "connection refused", refused: true, policy: TLSNone, wantNotSent: true},
		{name: "recipient rejected", server: smtptest.Options{RejectRcpt: []string{"guest@example.com"}}, policy: TLSNone, wantNotSent: true, wantText: "RCPT TO refused: 550 5.1.1"},
		{name: "wrong password", server: smtptest.Options{Username: "frontdesk", Password: "s3cret"}, policy: TLSNone, user: "frontdesk", pass: "wrong", wantNotSent: true},
		{name: "no credentials where required", server: smtptest.Options{Username: "frontdesk", Password: "s3cret"}, policy: TLSNone, wantNotSent: true},
		{name: "starttls required but not offered", policy: TLSMandatory, wantNotSent: true},
		{name: "password never sent in the clear", server: smtptest.Options{Username: "frontdesk", Password: "s3cret"}, policy: TLSOpportunistic, user: "frontdesk", pass: "s3cret", wantNotSent: true},
		{name: "failure after data", server: smtptest.Options{FailAfterData: true}, policy: TLSNone, wantNotSent: false, wantData: 1, wantText: "end of data refused: 451 4.3.0"},
		{name: "hang after data", server: smtptest.Options{HangAfterData: true}, policy: TLSNone, timeout: 300 * time.Millisecond, wantNotSent: false, wantData: 1, wantText: "end of data: timed out"},
		{name: "cancelled during data", server: smtptest.Options{HangAfterData: true}, policy: TLSNone, cancelAfter: 300 * time.Millisecond, wantNotSent: false, wantData: 1, wantText: "end of data: cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, tt.server)
			port := srv.Port
			if tt.refused {
				port = closedPort(t)
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: port, User: tt.user, Password: tt.pass},
				&SMTPOptions{TLSPolicy: tt.policy, Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if tt.cancelAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(tt.cancelAfter, cancel)
			}
			start := time.Now()
			err = s.Send(ctx, testEmail())
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("Send = nil, want an error")
			}
			t.Logf("Send = %v", err)
			if got := message.NotSent(err); got != tt.wantNotSent {
				t.Errorf("NotSent(%v) = %v, want %v", err, got, tt.wantNotSent)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Send = %q, want it to contain %q", err, tt.wantText)
			}
			// Callers log this error; logs never carry a guest's address.
			if strings.Contains(err.Error(), "guest@example.com") {
				t.Errorf("Send = %q, which names the guest's address", err)
			}
			if elapsed > 3*time.Second {
				t.Errorf("Send took %v; the send's timeout or context should have ended it", elapsed)
			}
			if got := srv.DataReceived(); got != tt.wantData {
				t.Errorf("server received data %d times, want %d", got, tt.wantData)
			}
			if got := len(srv.Messages()); got != 0 {
				t.Errorf("server accepted %d messages, want 0", got)
			}
		})
	}
}

func TestSMTPRefusesBadEmails(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSNone})
	tests := []struct {
		name string
		edit func(*message.Email)
	}{
		{"no ID", func(e *message.Email) { e.ID = "" }},
		{"no recipient", func(e *message.Email) { e.To = nil }},
		{"bad recipient", func(e *message.Email) { e.To = []string{"not an address"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEmail()
			tt.edit(&e)
			err := s.Send(t.Context(), e)
			if !message.NotSent(err) {
				t.Fatalf("Send = %v, want an error wrapping ErrNotSent", err)
			}
		})
	}
	if got := srv.DataReceived(); got != 0 {
		t.Fatalf("server received data %d times, want 0", got)
	}
}

func TestNewSMTPRefusesPlainTextOffLoopback(t *testing.T) {
	_, err := NewSMTP(Server{From: sender, Host: "smtp.example.com", Port: 587}, &SMTPOptions{TLSPolicy: TLSNone})
	if err == nil {
		t.Fatal("NewSMTP with TLSNone on a remote host = nil, want an error")
	}
	_, err = NewSMTP(Server{From: sender, Host: "127.0.0.1", Port: 465}, &SMTPOptions{TLSPolicy: TLSNone, ImplicitTLS: true})
	if err == nil {
		t.Fatal("NewSMTP with TLSNone and ImplicitTLS = nil, want an error")
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := NewSMTP(Server{Host: host, Port: 2525}, &SMTPOptions{TLSPolicy: TLSNone}); err != nil {
			t.Errorf("NewSMTP with TLSNone on %s = %v, want nil", host, err)
		}
	}
}

func TestMessageID(t *testing.T) {
	tests := []struct {
		name, id, from, want string
	}{
		{"plain", "notice-RIV-0123ABCD-guest", "stay@samplestays.example", "notice-RIV-0123ABCD-guest@samplestays.example"},
		{"display name", "code-1", "Sample Stays <Stay@SampleStays.Example>", "code-1@samplestays.example"},
		{"unsafe bytes", "a b@c<d>.e=f", "stay@x.example", "a=20b=40c=3Cd=3E=2Ee=3Df@x.example"},
		{"no sender", "code-1", "", "code-1@localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messageID(tt.id, tt.from); got != tt.want {
				t.Fatalf("messageID(%q, %q) = %q, want %q", tt.id, tt.from, got, tt.want)
			}
		})
	}
}

// TestSMTPCheckLogsIn: the start-up check succeeds with the right
// password and fails with a wrong one, without sending anything.
func TestSMTPCheckLogsIn(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "frontdesk", Password: "s3cret"})
	for _, tt := range []struct {
		password string
		ok       bool
	}{{"s3cret", true}, {"wrong", false}} {
		s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: srv.Port, User: "frontdesk", Password: tt.password},
			&SMTPOptions{TLSPolicy: TLSNone, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(t.Context()); (err == nil) != tt.ok {
			t.Errorf("Check with password %q = %v, want ok %v", tt.password, err, tt.ok)
		}
	}
	if got := len(srv.Messages()); got != 0 {
		t.Fatalf("Check sent %d messages", got)
	}
}

// TestSMTPTellsARefusedAddressFromAnOutage: only a permanent refusal of
// the recipient says the address was not accepted; a failed login or an
// unreachable server is an outage.
func TestSMTPTellsARefusedAddressFromAnOutage(t *testing.T) {
	tests := []struct {
		name       string
		server     smtptest.Options
		user, pass string
		closed     bool
		refused    bool
	}{
		{name: "recipient refused", server: smtptest.Options{RejectRcpt: []string{"guest@example.com"}}, refused: true},
		{name: "wrong password", server: smtptest.Options{Username: "frontdesk", Password: "s3cret"}, user: "frontdesk", pass: "wrong"},
		{name: "server unreachable", closed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, tt.server)
			port := srv.Port
			if tt.closed {
				port = closedPort(t)
			}
			s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: port, User: tt.user, Password: tt.pass},
				&SMTPOptions{TLSPolicy: TLSNone, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Send(t.Context(), testEmail())
			if !message.NotSent(err) || message.RecipientRefused(err) != tt.refused {
				t.Fatalf("Send = %v: NotSent %v, RecipientRefused %v, want true, %v", err, message.NotSent(err), message.RecipientRefused(err), tt.refused)
			}
		})
	}
}
