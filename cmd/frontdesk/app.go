package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/hub"
	"frontdesk/internal/clock"
	"frontdesk/internal/metrics"
	"frontdesk/inventory"
	"frontdesk/location"
	"frontdesk/mail"
	"frontdesk/message"
	"frontdesk/postgres"
	"frontdesk/pricing"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Main owns the wiring of one frontdesk process.
type Main struct {
	Config config.Config
	Addr   string
	Logger *slog.Logger
	Clock  clock.Clock
	Out    io.Writer // where serve prints its URLs
	// WrapStore, when set, wraps the opened store: tests inject faults and
	// delays at the durable boundary through it.
	WrapStore func(store.Store) store.Store

	// Set by Run once the listener is open.
	URL      string
	listener net.Listener
	store    store.Store
	metrics  *metrics.Metrics
	hub      *hub.Hub
	bookings *booking.Service
	mailer   message.Sender
	devMail  *mail.Dev // set when the mail driver is dev
	orp      *orpState // set by mountORP when the config enables ORP
	// Rand is the random source; nil means crypto/rand.
	Rand  io.Reader
	ready chan struct{}

	usp *usp.Business // set by openUSP when the config enables USP
}

// newMain builds a Main from defaults, the config file, FRONTDESK_*
// environment variables and flags, in that order.
func newMain(cmd string, args []string, stdout, stderr io.Writer) (*Main, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", os.Getenv("FRONTDESK_CONFIG"), "config file; without it, the demo business")
	addr := fs.String("addr", envOr("FRONTDESK_ADDR", "127.0.0.1:8080"), "listen address")
	dataDir := fs.String("data", os.Getenv("FRONTDESK_DATA"), "directory for SQLite files (default ./frontdesk-data)")
	database := fs.String("database", os.Getenv("FRONTDESK_DATABASE"), "postgres:// URL; overrides --data")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q", cmd, fs.Arg(0))
	}
	c := config.Demo()
	if *configPath != "" {
		var err error
		if c, err = loadConfig(*configPath); err != nil {
			return nil, err
		}
	}
	if *dataDir != "" {
		c.Store.DataDir = *dataDir
	}
	if *database != "" {
		c.Store.Database = *database
	}
	if err := loadSecrets(&c.Mail); err != nil {
		return nil, err
	}
	logOut := stderr
	return &Main{Config: c, Addr: *addr, Logger: newLogger(logOut), Clock: clock.System{}, Out: stdout}, nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// loadSecrets reads the SMTP password from the environment variable or
// file the config names; secrets never sit in the file itself.
func loadSecrets(m *config.Mail) error {
	switch {
	case m.PasswordEnv != "":
		m.SMTPPassword = os.Getenv(m.PasswordEnv)
	case m.PasswordFile != "":
		b, err := os.ReadFile(m.PasswordFile)
		if err != nil {
			return fmt.Errorf("mail.smtp_password_file: %w", err)
		}
		m.SMTPPassword = strings.TrimSpace(string(b))
	}
	return nil
}

// newLogger writes JSON when w is not a terminal, text when it is.
func newLogger(w io.Writer) *slog.Logger {
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return slog.New(slog.NewTextHandler(w, nil))
		}
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// open connects the store and builds the services. origin is the hub's
// public origin.
func (m *Main) open(ctx context.Context, origin string) error {
	if m.Clock == nil {
		m.Clock = clock.System{}
	}
	if m.Logger == nil {
		m.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := openStore(ctx, m.Config.Store)
	if err != nil {
		return err
	}
	if m.WrapStore != nil {
		st = m.WrapStore(st)
	}
	m.store = st
	m.metrics = metrics.New()
	if m.Config.Deployment.PublicOrigin != "" {
		origin = m.Config.Deployment.PublicOrigin
	}
	pricer := pricing.New(m.Config, origin)
	locations := location.New(m.Config, pricer, inventory.New(st), m.Clock)
	m.hub = hub.New(m.Config, pricer, locations, m.Clock)
	if err := m.openMail(); err != nil {
		return err
	}
	if m.Rand == nil {
		m.Rand = rand.Reader
	}
	m.bookings = booking.New(booking.Options{
		Config: m.Config, Store: st, Pricer: pricer, Clock: m.Clock, Rand: m.Rand, Mail: m.mailer, Logger: m.Logger,
		Resolve: func(property string) (config.Location, bool) {
			l, err := m.hub.Resolve(property)
			return l, err == nil
		},
	})
	return m.openUSP(origin)
}

// openMail builds the configured mail driver: the dev mailbox keeps mail
// in the store, shown at /dev/mail; smtp sends through the provider.
func (m *Main) openMail() error {
	switch m.Config.Mail.Driver {
	case "smtp":
		s, err := mail.NewSMTP(m.Config.Mail, &mail.SMTPOptions{TLSPolicy: mail.TLSMandatory, Clock: m.Clock, Logger: m.Logger})
		if err != nil {
			return err
		}
		m.mailer = s
	default:
		m.devMail = mail.NewDev(m.store, m.Clock, m.Logger)
		m.mailer = m.devMail
	}
	return nil
}

func openStore(ctx context.Context, c config.Store) (store.Store, error) {
	if c.Database != "" {
		if !strings.HasPrefix(c.Database, "postgres://") && !strings.HasPrefix(c.Database, "postgresql://") {
			return nil, errors.New("--database must be a postgres:// URL")
		}
		return postgres.Open(ctx, c.Database)
	}
	if err := os.MkdirAll(c.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	return sqlite.Open(ctx, filepath.Join(c.DataDir, "frontdesk.db"))
}

// Run serves HTTP until ctx ends, then shuts down gracefully: calls in
// flight finish before the store closes.
func (m *Main) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", m.Addr)
	if err != nil {
		return err
	}
	m.listener = ln
	m.URL = "http://" + ln.Addr().String()
	if err := m.open(ctx, m.URL); err != nil {
		ln.Close()
		return err
	}
	defer m.Close()
	srv := &http.Server{
		Handler:           m.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	m.printURLs()
	if m.ready != nil {
		close(m.ready)
	}
	stopORP := m.startORP(ctx)
	defer stopORP() // after the server stops, so no acknowledged click is lost
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	m.Logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		// Long-lived event streams do not end by themselves; close them.
		srv.Close()
	}
	return nil
}

func (m *Main) printURLs() {
	fmt.Fprintf(m.Out, "frontdesk is serving %s\n", m.Config.Business.Name)
	fmt.Fprintf(m.Out, "  MCP hub (streamable HTTP):  %s/mcp\n", m.URL)
	for _, l := range m.Config.Locations {
		fmt.Fprintf(m.Out, "  %-27s %s/locations/%s/mcp\n", l.Name+":", m.URL, l.Slug)
	}
	fmt.Fprintf(m.Out, "  Pages:                      %s/\n", m.URL)
	if m.devMail != nil {
		fmt.Fprintf(m.Out, "  Dev mailbox:                %s/dev/mail\n", m.URL)
	}
	if m.usp != nil {
		fmt.Fprintf(m.Out, "  USP profile:                %s/.well-known/usp (MCP: %s/usp/mcp, REST: %s/usp/)\n", m.URL, m.URL, m.URL)
	}
	if m.orp != nil {
		fmt.Fprintf(m.Out, "  ORP host:                   %s/.well-known/orp.json (MCP: %s/orp/mcp)\n", m.URL, m.URL)
	}
	fmt.Fprintf(m.Out, "  Health, readiness, metrics: %s/healthz %s/readyz %s/metrics\n", m.URL, m.URL, m.URL)
	where := "SQLite in " + m.Config.Store.DataDir
	if m.Config.Store.Database != "" {
		where = "PostgreSQL"
	}
	fmt.Fprintf(m.Out, "  Store: %s\n", where)
}

// RunStdio serves the hub's MCP tools on stdin and stdout.
func (m *Main) RunStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	origin := "http://" + m.Addr
	if err := m.open(ctx, origin); err != nil {
		return err
	}
	defer m.Close()
	return serveHubStdio(ctx, m, in, out)
}

// Close releases the store.
func (m *Main) Close() error {
	if m.store == nil {
		return nil
	}
	err := m.store.Close()
	m.store = nil
	return err
}
