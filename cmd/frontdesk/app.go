package main

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/channel"
	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/direct/directmcp"
	"frontdesk/hub"
	"frontdesk/internal/clock"
	"frontdesk/internal/connlimit"
	"frontdesk/internal/deadline"
	"frontdesk/internal/httpfront"
	"frontdesk/internal/metrics"
	"frontdesk/internal/random"
	"frontdesk/internal/requestid"
	"frontdesk/internal/serverlog"
	"frontdesk/internal/tlsfront"
	"frontdesk/inventory"
	"frontdesk/location"
	"frontdesk/mail"
	"frontdesk/mcpfront"
	"frontdesk/message"
	"frontdesk/orp"
	"frontdesk/payment"
	"frontdesk/payment/stripe"
	"frontdesk/postgres"
	"frontdesk/pricing"
	"frontdesk/referral"
	"frontdesk/relay"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/staff"
	"frontdesk/staff/office"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/uspmcp"
)

// Main owns the wiring of one frontdesk process.
type Main struct {
	Config config.Config
	// memory is what serve set of garbage collection, for the banner.
	memory string
	Addr   string
	split  *relay.Split   // the split deployment's role, nil in one process
	door   directmcp.Door // the hub's booking door when split, else nil
	proxy  *hub.Proxy     // a split hub's: what names a location, forwarded to it
	Logger *slog.Logger
	// logLines holds a server's log lines for a moment and writes them in
	// batches; nil for the other commands, which log a few lines.
	logLines *serverlog.Batch
	Clock    clock.Clock
	Out      io.Writer // where serve prints its URLs
	// ConfigFile is the config file read, "" for the built-in demo.
	ConfigFile string
	// MCPSessionIdle closes MCP sessions idle this long; zero means the
	// default of mcpfront.SessionLimits. Set by serve's --mcp-session-idle,
	// for measuring session memory.
	MCPSessionIdle time.Duration
	// WrapStore, when set, wraps the opened store: tests inject faults and
	// delays at the durable boundary through it.
	WrapStore func(store.Store) store.Store
	// WrapJournalFile, when set, wraps each file of the click journal
	// (the crash harness's failpoint at the click batch).
	WrapJournalFile func(orp.JournalFile) orp.JournalFile
	// clickJournalLock drops serve's lock on the click journal, once.
	clickJournalLock func()

	// Set by Run once the listener is open.
	URL        string
	MetricsURL string // set when /metrics has its own listener
	PlainURL   string // set when [tls] adds a plain-HTTP listener that redirects
	listener   net.Listener
	// shuttingDown ends when shutdown begins; streams end with it.
	shuttingDown context.Context
	// deadlineScale, when set, divides every deadline and the shutdown
	// grace, so tests see them pass in milliseconds.
	deadlineScale time.Duration
	store         store.Store
	metrics       *metrics.Metrics
	hub           *hub.Hub
	bookings      *direct.Service
	// core is the reservation core beneath every door.
	core     *reservation.Core
	office   *office.Office
	mailer   message.Sender
	devMail  *mail.Dev  // set when the mail driver is dev
	smtpMail *mail.SMTP // set when the mail driver is smtp
	orp      *orpState  // set by mountORP when the config enables ORP
	// referrals attributes bookings to ORP partners, with orp.
	referrals *referral.Ledger
	// Rand is the random source; nil means crypto/rand.
	Rand io.Reader
	// Payment is the provider deposits and prepayments are taken
	// through; nil refuses paid bookings with stripe.Missing.
	Payment  payment.Provider
	payments *payment.Ledger
	// USPRootCAs, when set, are the only roots platform profiles are
	// fetched under: tests serve them with their own certificate.
	USPRootCAs *x509.CertPool
	ready      chan struct{}

	// channels keeps the inventory in step with the listing sites.
	channels *channel.Service

	usp *usp.Business // set by openUSP when the config enables USP
	// uspCredentials issues and sweeps booking-scoped credentials.
	uspCredentials *usp.BookingCredentials
	// uspWebhooks offers webhooks to the platforms' MCP sessions.
	uspWebhooks *uspmcp.Webhooks
}

// newMain builds a Main on clk from defaults, the config file, FRONTDESK_*
// environment variables and flags, in that order. Each command gets only
// the flags it uses.
func newMain(clk clock.Clock, cmd string, args []string, stdout, stderr io.Writer) (*Main, error) {
	m, fs, err := newMainWith(clk, cmd, args, stdout, stderr, nil)
	if err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q (see frontdesk %s --help)", cmd, fs.Arg(0), cmd)
	}
	return m, nil
}

// newMainWith is newMain for a command with flags of its own, defined by
// define, and arguments; it returns the parsed flag set with them.
func newMainWith(clk clock.Clock, cmd string, args []string, stdout, stderr io.Writer, define func(*flag.FlagSet)) (*Main, *flag.FlagSet, error) {
	var configPath, addr, dataDir, database, logLevel, publicURL *string
	var mcpIdle *time.Duration
	slug := new(string)
	fs, err := parseFlags(cmd, args, stdout, func(fs *flag.FlagSet) {
		configPath = fs.String("config", os.Getenv("FRONTDESK_CONFIG"), "config file; without it, the demo business")
		if cmd == "location" {
			slug = fs.String("slug", "", "the location this process runs")
		}
		if cmd == "serve" || cmd == "hub" || cmd == "location" {
			addr = fs.String("addr", os.Getenv("FRONTDESK_ADDR"), "listen address (default: split.addr, else 127.0.0.1:8080)")
			mcpIdle = fs.Duration("mcp-session-idle", 0, "close MCP sessions idle this long (default 30m)")
		}
		dataDir = fs.String("data", os.Getenv("FRONTDESK_DATA"), "directory for SQLite files (default ./frontdesk-data)")
		database = fs.String("database", os.Getenv("FRONTDESK_DATABASE"), "postgres:// URL; overrides --data. Name the schema with\n?search_path=NAME, or the tables go into \"public\"")
		logLevel = fs.String("log-level", os.Getenv("FRONTDESK_LOG_LEVEL"), "debug, info, warn or error (default: server.log_level, else info)")
		if cmd != "sweep" {
			publicURL = fs.String("public-url", os.Getenv("FRONTDESK_PUBLIC_URL"), "where guests reach this server; links start here\n(default: deployment.public_url, else from the listen address)")
		}
		if define != nil {
			define(fs)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	c := config.Demo()
	if *configPath != "" {
		if c, err = loadConfig(*configPath); err != nil {
			return nil, nil, err
		}
	}
	if *dataDir != "" {
		c.Store.DataDir = *dataDir
	}
	if *database != "" {
		c.Store.Database = *database
	}
	if *logLevel != "" {
		c.Server.LogLevel = *logLevel
	}
	if publicURL != nil && *publicURL != "" {
		c.Deployment.PublicURL = strings.TrimSuffix(*publicURL, "/")
	}
	if cmd == "serve" && publicURL != nil && *publicURL != "" {
		// The flag is checked as the file is: its host must be served.
		if err := c.Validate(); err != nil {
			return nil, nil, fmt.Errorf("--public-url: %w", err)
		}
	}
	if (cmd == "serve" || cmd == "hub" || cmd == "location") && c.Split.Role != strings.TrimPrefix(cmd, "serve") {
		return nil, nil, fmt.Errorf("%s: the config's split.role is %q; run it with frontdesk %s", cmd, c.Split.Role, cmp.Or(c.Split.Role, "serve"))
	}
	if cmd == "location" && c.Only(*slug) != nil {
		return nil, nil, fmt.Errorf("location: --slug %q names no location of the config", *slug)
	}
	level, err := config.ParseLogLevel(c.Server.LogLevel)
	if err != nil {
		return nil, nil, fmt.Errorf("log level: %w", err)
	}
	if err := c.LoadSecrets(); err != nil {
		return nil, nil, err
	}
	provider, err := stripe.FromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("payment provider: %w", err)
	}
	var lines *serverlog.Batch
	if cmd == "serve" || cmd == "hub" || cmd == "location" {
		lines = serverlog.NewBatch(stderr, logFlushEvery, func(d time.Duration, f func()) { time.AfterFunc(d, f) })
	}
	m := &Main{Config: c, Logger: serverlog.New(stderr, lines, level), logLines: lines, Clock: clk, Out: stdout, ConfigFile: *configPath, Payment: provider}
	for _, w := range c.Warnings() {
		m.Logger.Warn("config", "warning", w)
	}
	if addr != nil {
		m.Addr = cmp.Or(*addr, c.Split.Addr, "127.0.0.1:8080")
	}
	if mcpIdle != nil {
		if *mcpIdle < 0 {
			return nil, nil, fmt.Errorf("--mcp-session-idle: %s is negative", *mcpIdle)
		}
		m.MCPSessionIdle = *mcpIdle
	}
	return m, fs, nil
}

// logFlushEvery is how long a server's info and debug lines wait to be
// written with the lines after them; warnings and errors go at once.
const logFlushEvery = 50 * time.Millisecond

// open connects the store and builds the services. listen is the address
// served, from which the public URL derives unless the config sets one.
func (m *Main) open(ctx context.Context, listen string) error {
	if listen == "" {
		listen = "127.0.0.1:8080" // serve's default, for the commands that do not listen
	}
	if m.Clock == nil {
		m.Clock = clock.System{}
	}
	if m.Logger == nil {
		m.Logger = slog.New(slog.DiscardHandler)
	}
	// Every line logged with a request's context names the request.
	m.Logger = slog.New(requestid.Handler(m.Logger.Handler()))
	st, err := openStore(ctx, m.Config.Store)
	if err != nil {
		return err
	}
	outages, _ := st.(store.Outages) // the engine's, whatever wraps it
	if m.WrapStore != nil {
		st = m.WrapStore(st)
	}
	m.store = st
	// Reservations kept from before the search index are indexed once.
	// A store that refuses writes (a full disk) still serves; the search
	// misses them until a later start indexes them.
	if err := reservation.IndexTerms(ctx, st, m.Clock.Now()); err != nil {
		m.Logger.Error("older reservations not yet indexed for staff search", "err", err)
	}
	m.metrics = m.newMetrics()
	m.Config.Deployment.PublicURL = config.PublicURL(m.Config.Deployment.PublicURL, listen)
	if m.Config.TLS.On() {
		m.Config.Deployment.PublicURL = strings.Replace(m.Config.Deployment.PublicURL, "http://", "https://", 1)
	}
	pricer := pricing.New(m.Config.Portfolio, m.Config.Deployment.PublicURL)
	locations := location.New(m.Config.Portfolio, pricer, inventory.New(st), m.Clock)
	m.hub = hub.New(m.Config.Portfolio, m.Config.Deployment.PublicURL, pricer, locations, m.Clock)
	if err := m.openMail(ctx); err != nil {
		return err
	}
	// Every component draws from this one source, in many goroutines.
	m.Rand = random.Locked(m.Rand)
	m.payments = payment.NewLedger(payment.Options{Records: st, Provider: m.Payment, Missing: stripe.Missing, Clock: m.Clock, Rand: m.Rand})
	// One core beneath every door: direct booking, USP, the staff screen
	// and the guest site book and decide through it.
	coreStore := direct.LimitedStore(st)
	m.core = reservation.NewCore(reservation.CoreOptions{Desk: reservation.NewDesk(coreStore), Store: coreStore,
		Portfolio: m.Config.Portfolio, Pricer: pricer, Clock: m.Clock, Rand: m.Rand, Logger: m.Logger.With("component", "booking"),
		Sender: m.mailer, ValidCode: referral.ValidCode})
	m.bookings = direct.New(direct.Options{
		Config: bookingConfig(m.Config), Store: st, Pricer: pricer, Clock: m.Clock, Rand: m.Rand, Mail: m.mailer, Logger: m.Logger,
		Getenv: os.Getenv,
		Resolve: func(property string) (business.Location, bool) {
			l, err := m.hub.Resolve(property)
			return l, err == nil
		},
		Core: m.core,
	})
	m.core.UseKeys(m.bookings)
	m.office = office.New(office.Options{Bookings: m.bookings, Core: m.core, Clock: m.Clock, Pricer: pricer, Logger: m.Logger})
	if m.split, err = relay.Open(relay.SplitOptions{Role: m.Config.Split.Role, Secret: m.Config.Split.Secret, Origins: m.Config.Split.Origins(),
		Hub: m.Config.Split.Hub, Others: m.Config.Split.Others, ORPLocation: m.Config.Split.ORPLocation, Portfolio: m.Config.Portfolio, Deployment: m.Config.Deployment.Deployment, Locations: locations, Bookings: m.bookings, Office: m.office,
		Clock: m.Clock, Rand: m.Rand, Log: m.Logger}); err != nil {
		return err
	} else if m.split != nil && m.split.Backend != nil {
		m.hub, m.door = hub.New(m.Config.Portfolio, m.Config.Deployment.PublicURL, pricer, m.split.Backend, m.Clock), m.split.Door
		if m.proxy, err = hub.NewProxy(m.Config.Portfolio, m.Config.Split.Origins(), m.Logger); err != nil {
			return err
		}
	}
	m.core.Desk().Outbox(reservation.OutboxOptions{Clock: m.Clock, Outages: outages, Logger: m.Logger, SetAside: m.metrics.SetAside})
	m.payments.AttachCancellations(m.core.Desk(), m.Config.Portfolio.Unit, m.Config.Business.Currency)
	m.payments.AttachNoShows(m.core.Desk(), m.Config.Portfolio.Unit, m.Config.Business.Currency)
	m.payments.UseBookings(m.core.Find)
	m.openChannels()
	if err := m.openUSP(ctx, m.Config.Deployment.PublicURL); err != nil {
		return err
	}
	if err := m.publishKeys(ctx); err != nil {
		return err
	}
	return m.syncCatalog(ctx)
}

// openMail builds the configured mail driver: the dev mailbox keeps mail
// in the store, shown at /dev/mail; smtp sends through the provider, and
// its login is tried once at start.
func (m *Main) openMail(ctx context.Context) error {
	switch m.Config.Mail.Driver {
	case "smtp":
		s, err := mail.NewSMTP(smtpServer(m.Config.Mail), &mail.SMTPOptions{TLSPolicy: mail.TLSMandatory, Clock: m.Clock, Logger: m.Logger})
		if err != nil {
			return err
		}
		m.mailer, m.smtpMail = s, s
		// A provider may be down for a moment, so a failed login does not
		// stop the server; it is said loudly, before any guest waits for a
		// code that cannot arrive.
		if err := s.Check(ctx); err != nil {
			m.Logger.Error("mail server check failed: booking codes cannot be sent until it logs in",
				"smtp_host", m.Config.Mail.SMTPHost, "smtp_port", m.Config.Mail.SMTPPort, "err", err)
		}
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
	return sqlite.Open(ctx, sqlitePath(c))
}

// Run serves HTTP until ctx ends, then shuts down within two grace
// periods: streams of server messages end at once, calls in flight get
// shutdownGrace to finish, then every connection closes; the last click
// writes and the store's close share one more shutdownGrace.
func (m *Main) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", m.Addr)
	if err != nil {
		return err
	}
	m.URL = "http://" + ln.Addr().String()
	tf, err := m.newTLSFront()
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	if tf != nil {
		m.URL = "https://" + ln.Addr().String()
	}
	if err := m.open(ctx, ln.Addr().String()); err != nil {
		return errors.Join(err, ln.Close())
	}
	// Closing the store waits for its queries; a hung database must not
	// hold the process past the final writes' window.
	finishBy := time.Time{}
	defer func() {
		window := m.grace()
		if !finishBy.IsZero() {
			window = time.Until(finishBy)
		}
		deadline.Bounded(window, func() {
			if err := m.Close(); err != nil {
				m.Logger.Error("close", "err", err)
			}
		})
	}()
	if m.Config.ORP.Enabled {
		h, err := m.newORPHost(ctx, m.Config.Deployment.PublicURL, true)
		if err != nil {
			return errors.Join(err, ln.Close())
		}
		m.orp = &orpState{host: h}
		m.useReferrals(h)
		m.metrics.Backlog("frontdesk_click_writer_backlog", "Answered tracked-link clicks waiting for the click writer to store them.",
			func() float64 { return float64(h.ClickBacklog()) })
	}
	var stopStreams context.CancelFunc
	m.shuttingDown, stopStreams = context.WithCancel(context.Background())
	defer stopStreams()
	limited := connlimit.New(ln, m.Config.Server.ConnectionsPerAddress)
	limited.Total = descriptorBudget()
	limited.Refused = func(string) { m.metrics.ConnectionsRefused.Inc() }
	m.listener = limited
	servers := []*http.Server{m.httpServer(m.routes())}
	listeners := []net.Listener{limited}
	if tf != nil {
		servers[0].TLSConfig = tf.Config
		if addr := m.Config.TLS.HTTPAddr; addr != "" {
			pln, err := net.Listen("tcp", addr)
			if err != nil {
				return errors.Join(fmt.Errorf("tls.http_addr: %w", err), ln.Close())
			}
			servers = append(servers, m.httpServer(m.front(tf.Plain(tlsfront.Redirect(m.Config.Deployment.Hostnames, ln.Addr().String(), m.probes())))))
			listeners = append(listeners, pln)
			m.PlainURL = "http://" + pln.Addr().String()
		}
	}
	if addr := m.Config.Server.MetricsAddr; addr != "" {
		mln, err := net.Listen("tcp", addr)
		if err != nil {
			return errors.Join(fmt.Errorf("server.metrics_addr: %w", err), ln.Close())
		}
		servers = append(servers, m.httpServer(m.front(m.metricsRoutes())))
		listeners = append(listeners, mln)
		m.MetricsURL = "http://" + mln.Addr().String()
	}
	m.printURLs()
	m.logStart(listeners)
	if m.ready != nil {
		close(m.ready)
	}
	stopORP := m.startORP(ctx)
	// A draft serves (its booking tools refuse) but never sweeps (§14).
	sweeps := []job{m.bookingSweepJob(), m.retentionJob(), m.channelsJob(), m.paymentSweepJob()}
	if err := direct.CheckSweep(m.Config.Deployment.Deployment); err != nil {
		m.Logger.Warn("scheduled sweep not started", "reason", err.Error())
		sweeps = nil
	}
	stopSweep := m.startJobs(ctx, sweeps...)
	defer stopSweep()
	stopOutbox := m.startOutbox(ctx)
	defer stopOutbox()
	stopUSP := m.startUSPWork(ctx)
	defer stopUSP()
	served := make(chan error, len(servers))
	for i, srv := range servers {
		go func() {
			if srv.TLSConfig != nil {
				served <- srv.ServeTLS(listeners[i], "", "") // certificates from TLSConfig
				return
			}
			served <- srv.Serve(listeners[i])
		}()
	}
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	m.Logger.Info("shutting down")
	stopStreams()
	grace := m.grace()
	httpfront.Shutdown(servers, grace, m.Logger)
	// Acknowledged clicks are written after the server stops taking them,
	// then the store closes: both within one more grace period, so a hung
	// store cannot hold the process longer.
	finishBy = time.Now().Add(grace)
	deadline.Bounded(grace, stopORP)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// shutdownGrace is how long calls in flight may run once shutdown begins,
// and again how long the final writes and the store's close may take.
const shutdownGrace = 10 * time.Second

func (m *Main) grace() time.Duration {
	if m.deadlineScale > 0 {
		return shutdownGrace / m.deadlineScale
	}
	return shutdownGrace
}

// httpServer is a listener's server with the limits every listener
// shares (httpfront.Server).
func (m *Main) httpServer(h http.Handler) *http.Server {
	return httpfront.Server(h, m.Logger.With("component", "http"))
}

func (m *Main) printURLs() {
	base := m.Config.Deployment.PublicURL
	fmt.Fprintf(m.Out, "frontdesk is serving %s\n", m.Config.Business.Name)
	fmt.Fprintf(m.Out, "  MCP hub (streamable HTTP):  %s/mcp\n", base)
	for _, l := range m.Config.Locations {
		fmt.Fprintf(m.Out, "  %-27s %s/locations/%s/mcp\n", l.Name+":", base, l.Slug)
	}
	fmt.Fprintf(m.Out, "  Pages:                      %s/ (free rooms: %s/search)\n", base, base)
	for _, l := range m.Config.Locations {
		fmt.Fprintf(m.Out, "  %-27s %s/book/%s\n", "Booking form, "+l.Slug+":", base, l.Slug)
	}
	fmt.Fprintf(m.Out, "  Staff screen:               %s/staff/ (first login: %s)\n", base, staff.FirstLoginHint(m.ConfigFile, m.Config.Store.Database != "", m.Config.Store.DataDir, config.Defaults().Store.DataDir))
	if m.devMail != nil {
		fmt.Fprintf(m.Out, "  Dev mailbox:                %s/dev/mail\n", base)
	}
	if m.usp != nil {
		fmt.Fprintf(m.Out, "  USP profile:                %s%s (MCP: %s/usp/mcp, REST: %s/usp/)\n", m.URL, m.usp.ProfileLocation(), m.URL, m.URL)
	}
	if m.orp != nil {
		fmt.Fprintf(m.Out, "  ORP host:                   %s/.well-known/orp.json (MCP: %s/orp/mcp)\n", base, base)
	}
	metrics := base + "/metrics"
	if m.MetricsURL != "" {
		metrics = m.MetricsURL + "/metrics"
	}
	fmt.Fprintf(m.Out, "  Health, readiness, metrics: %s/healthz %s/readyz %s\n", base, base, metrics)
	fmt.Fprintf(m.Out, "  Store: %s\n", m.Config.Store.Banner())
	if m.memory != "" {
		fmt.Fprintf(m.Out, "  Memory: %s\n", m.memory)
	}
	if d := m.Config.Deployment; d.Context != "production" || !d.Published {
		fmt.Fprintf(m.Out, "  Booking tools: off until [deployment] states context = \"production\" and published = true\n")
	}
}

// RunStdio serves the hub's MCP tools on stdin and stdout.
func (m *Main) RunStdio(ctx context.Context, in io.Reader, out io.Writer) (err error) {
	defer closing(&err, m)
	if err := m.openWithReferrals(ctx, m.Addr); err != nil {
		return err
	}
	if m.referrals != nil {
		// The ledger settles ends from the outbox while the hub serves.
		relay, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { m.runRelay(relay) })
		defer wg.Wait()
		defer stop()
	}
	m.Logger.Info("links in answers start with the public url", "public_url", m.Config.Deployment.PublicURL)
	return mcpfront.ServeStdio(ctx, directmcp.NewHub(m.hub, m.bookings, m.door, m.mcpOptions()), in, out, bookingGuard())
}

// Close releases the store.
func (m *Main) Close() error {
	if m.store == nil {
		return nil
	}
	var errs []error
	if m.bookings != nil {
		// Notice outcomes recorded after their answers go in first.
		m.bookings.Wait()
	}
	if m.smtpMail != nil {
		// Idle sessions say goodbye rather than drop.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		m.smtpMail.Close(ctx)
		cancel()
	}
	if m.devMail != nil {
		// The dev mailbox writes its queue before the store goes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, m.devMail.Close(ctx))
		cancel()
	}
	m.unlockClickJournal()
	err := errors.Join(append(errs, m.store.Close())...)
	m.store = nil
	return err
}
