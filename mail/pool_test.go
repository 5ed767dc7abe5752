package mail

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/smtptest"
	"frontdesk/message"
)

// numbered is testEmail with its own ID, so each message is told apart.
func numbered(i int) message.Email {
	e := testEmail()
	e.ID = fmt.Sprintf("notice-%d", i)
	return e
}

func sendN(t *testing.T, s *SMTP, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := s.Send(t.Context(), numbered(i)); err != nil {
			t.Fatalf("Send %d = %v, want nil", i, err)
		}
	}
}

func TestSMTPReusesOneSessionOverTLS(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{StartTLS: true, Username: "frontdesk", Password: "s3cret"})
	s, err := NewSMTP(Server{From: sender, Host: srv.Host, Port: srv.Port, User: "frontdesk", Password: "s3cret"},
		&SMTPOptions{TLSPolicy: TLSMandatory, TLSConfig: srv.ClientTLS, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sendN(t, s, 0, 10)
	if got := srv.Connections(); got != 1 {
		t.Errorf("server saw %d connections for 10 messages, want 1", got)
	}
	got := srv.Messages()
	if len(got) != 10 {
		t.Fatalf("server accepted %d messages, want 10", len(got))
	}
	for _, m := range got {
		if !m.TLS || m.User != "frontdesk" || len(m.To) != 1 {
			t.Fatalf("message %+v, want it over TLS from user frontdesk to one recipient (RSET between messages)", m)
		}
	}
}

func TestSMTPSessionLimits(t *testing.T) {
	tests := []struct {
		name      string
		opts      SMTPOptions
		idleAfter time.Duration // clock advance after each message
		wantConns int
	}{
		{name: "max messages", opts: SMTPOptions{MaxMessages: 3}, wantConns: 4},
		{name: "idle timeout", opts: SMTPOptions{IdleTimeout: time.Minute}, idleAfter: time.Minute, wantConns: 10},
		{name: "idle within timeout", opts: SMTPOptions{IdleTimeout: time.Minute}, idleAfter: 59 * time.Second, wantConns: 1},
		{name: "no pool", opts: SMTPOptions{MaxIdle: -1}, wantConns: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, smtptest.Options{})
			clk := clock.NewFixed(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
			tt.opts.TLSPolicy, tt.opts.Clock = TLSNone, clk
			s := newSMTP(t, srv.Host, srv.Port, tt.opts)
			for i := range 10 {
				sendN(t, s, i, 1)
				clk.Advance(tt.idleAfter)
			}
			if got := srv.Connections(); got != tt.wantConns {
				t.Errorf("server saw %d connections, want %d", got, tt.wantConns)
			}
			if got := len(srv.Messages()); got != 10 {
				t.Errorf("server accepted %d messages, want 10", got)
			}
		})
	}
}

// TestSMTPReconnectsAfterTheServerHangsUp: a provider that closed an idle
// session costs no mail; the message goes over a new connection, once.
func TestSMTPReconnectsAfterTheServerHangsUp(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSNone})
	sendN(t, s, 0, 1)
	srv.DropConnections()
	sendN(t, s, 1, 1)
	if got := srv.Connections(); got != 2 {
		t.Errorf("server saw %d connections, want 2", got)
	}
	if got, want := srv.DataReceived(), 2; got != want {
		t.Errorf("server received data %d times, want %d", got, want)
	}
	if got := len(srv.Messages()); got != 2 {
		t.Errorf("server accepted %d messages, want 2", got)
	}
}

// TestSMTPNeverResendsOnceTheDataLeft: on a reused session a failure after
// the data reached the server is uncertain, as on a fresh one, and the
// message is not sent a second time.
func TestSMTPNeverResendsOnceTheDataLeft(t *testing.T) {
	tests := []struct {
		name   string
		server smtptest.Options
	}{
		{"refused after data", smtptest.Options{FailAfterData: true}},
		{"no answer to the data", smtptest.Options{HangAfterData: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := smtptest.Start(t, smtptest.Options{})
			s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSNone, Timeout: 500 * time.Millisecond})
			sendN(t, s, 0, 1)
			srv.SetOptions(tt.server)
			err := s.Send(t.Context(), numbered(1))
			if err == nil || message.NotSent(err) {
				t.Fatalf("Send = %v, want an uncertain error", err)
			}
			if got, want := srv.DataReceived(), 2; got != want {
				t.Errorf("server received data %d times, want %d: the second message was sent again", got, want)
			}
			if got := srv.Connections(); got != 1 {
				t.Errorf("server saw %d connections, want 1", got)
			}
		})
	}
}

// TestSMTPSessionsAreSafeForConcurrentSends sends from eight goroutines at
// once: every message arrives once, over no more connections than sends
// in flight.
func TestSMTPSessionsAreSafeForConcurrentSends(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	s := newSMTP(t, srv.Host, srv.Port, SMTPOptions{TLSPolicy: TLSNone, MaxIdle: 8})
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				errs <- s.Send(t.Context(), numbered(g*10+i))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Send = %v, want nil", err)
		}
	}
	seen := map[string]bool{}
	for _, m := range srv.Messages() {
		seen[string(m.Data)] = true
	}
	if got := len(seen); got != 80 {
		t.Errorf("server accepted %d distinct messages, want 80", got)
	}
	if got := srv.Connections(); got > 8 {
		t.Errorf("server saw %d connections, want at most 8", got)
	}
	s.Close(t.Context())
	if err := s.Send(t.Context(), numbered(80)); err != nil {
		t.Fatalf("Send after Close = %v, want nil", err)
	}
}
