// Command bookload supports bench/booking.sh: it makes chat bookings
// against `frontdesk serve` from outside, as an assistant would, over the
// MCP transport (start_booking, the code from the guest's mailbox,
// confirm_booking), with the server mailing through SMTP to a sink this
// process runs, as in production. Each run gets a fresh server (a new
// SQLite directory, or a new PostgreSQL schema), so no run's ceilings or
// history carry into the next.
//
//	bookload flat N         N bookings one after another, no staff
//	                        decision: p50 of the first and last tenth
//	bookload pairs P SECS   P pairs of runs in ABBA order of raw
//	                        single-row commits, bookings one at a time
//	                        and eight at a time, SECS seconds each
//
// Environment: FRONTDESK (the binary), ENGINE ("sqlite" or "postgres"),
// FRONTDESK_TEST_POSTGRES (for postgres). The server inherits GOGC,
// GOMAXPROCS and GOMEMLIMIT; serve picks GOGC=400 itself when GOGC is
// unset.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5"

	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bookload:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: bookload flat N | pairs P SECS")
	}
	tmp, err := os.MkdirTemp("", "bookload")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temp dir left behind is harmless
	sink, err := startSink(tmp)
	if err != nil {
		return err
	}
	defer sink.close()
	e := env{bin: os.Getenv("FRONTDESK"), engine: os.Getenv("ENGINE"), dsn: os.Getenv("FRONTDESK_TEST_POSTGRES"), tmp: tmp, sink: sink}
	if e.bin == "" || (e.engine != "sqlite" && e.engine != "postgres") {
		return errors.New("set FRONTDESK to the binary and ENGINE to sqlite or postgres")
	}
	switch args[0] {
	case "flat":
		n, _ := strconv.Atoi(args[1])
		return e.flat(n)
	case "pairs":
		if len(args) < 3 {
			return errors.New("usage: bookload pairs P SECS")
		}
		p, _ := strconv.Atoi(args[1])
		secs, _ := strconv.Atoi(args[2])
		return e.pairs(p, time.Duration(secs)*time.Second)
	}
	return fmt.Errorf("unknown mode %q", args[0])
}

type env struct {
	bin, engine, dsn, tmp string
	sink                  *sink
	runs                  int
}

// maxRun bounds the bookings of one run: the chat ceilings admit at most
// 1,000 codes an hour and 1,000 reservations awaiting staff (the settings'
// range is 1 to 1000), and no staff decide here.
const maxRun = 990

// flat makes n bookings one after another on one fresh server.
func (e *env) flat(n int) error {
	srv, err := e.serve()
	if err != nil {
		return err
	}
	defer srv.stop()
	lat := make([]time.Duration, 0, n)
	for i := range n {
		d, err := srv.book(i, 0)
		if err != nil {
			return fmt.Errorf("booking %d: %w", i, err)
		}
		lat = append(lat, d)
	}
	tenth := max(n/10, 1)
	first, last := p50(lat[:tenth]), p50(lat[n-tenth:])
	fmt.Printf("flat %s n=%d first_p50_ms=%.2f last_p50_ms=%.2f last/first=%.3f\n", e.engine, n, ms(first), ms(last), float64(last)/float64(first))
	return nil
}

// pairs runs p pairs of (raw, one at a time, eight at a time), the
// order reversed in every second pair.
func (e *env) pairs(p int, d time.Duration) error {
	for i := range p {
		order := []string{"raw", "1", "8"}
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, what := range order {
			var err error
			if what == "raw" {
				err = e.raw(i, d)
			} else {
				w, _ := strconv.Atoi(what)
				err = e.rate(i, w, d)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// raw measures single-row commits one at a time on the engine, through
// the store as the server writes, in this process.
func (e *env) raw(pair int, d time.Duration) error {
	ctx := context.Background()
	var st store.Store
	var err error
	if e.engine == "sqlite" {
		st, err = sqlite.Open(ctx, filepath.Join(e.tmp, fmt.Sprintf("raw%d.db", pair)))
	} else {
		var dsn string
		var drop func()
		if dsn, drop, err = e.schema(); err == nil {
			defer drop()
			st, err = postgres.Open(ctx, dsn)
		}
	}
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }() // read-only use: the reads already reported their errors
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		n++
		if _, err := st.Create(ctx, store.Record{Kind: "bench", Key: strconv.Itoa(n), Value: []byte("x"), UpdatedAt: time.Now()}); err != nil {
			return err
		}
	}
	fmt.Printf("pair %d %s raw commits/s=%.1f\n", pair, e.engine, float64(n)/time.Since(start).Seconds())
	return nil
}

// rate makes bookings with workers at a time for d on a fresh server.
func (e *env) rate(pair, workers int, d time.Duration) error {
	srv, err := e.serve()
	if err != nil {
		return err
	}
	defer srv.stop()
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var failed error
	cpu0 := cpuSeconds(srv.cmd.Process.Pid)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for time.Since(start) < d {
				i := int(next.Add(1))
				if i > maxRun {
					return
				}
				took, err := srv.book(i, w)
				mu.Lock()
				if err != nil && failed == nil {
					failed = fmt.Errorf("booking %d: %w", i, err)
				}
				lat = append(lat, took)
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	cpu := cpuSeconds(srv.cmd.Process.Pid) - cpu0
	if failed != nil {
		return failed
	}
	fmt.Printf("pair %d %s workers=%d bookings/s=%.1f p50_ms=%.2f cpu_ms/booking=%.2f bookings=%d\n",
		pair, e.engine, workers, float64(len(lat))/wall.Seconds(), ms(p50(lat)), cpu*1000/float64(len(lat)), len(lat))
	return nil
}

// server is one running `frontdesk serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	client *http.Client
	sink   *sink
	drop   func()
	run    int
}

// serve starts a fresh server: the demo with its ceilings raised to the
// top of their range and rooms to spare, mailing through the sink.
func (e *env) serve() (*server, error) {
	e.runs++
	dir := filepath.Join(e.tmp, fmt.Sprintf("run%d", e.runs))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	out, err := exec.Command(e.bin, "init", "--demo").Output()
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	cfg := raise(string(out), e.sink.port)
	drop := func() {}
	if e.engine == "postgres" {
		dsn, d, err := e.schema()
		if err != nil {
			return nil, err
		}
		drop = d
		cfg = strings.Replace(cfg, "[mail]", fmt.Sprintf("[store]\ndatabase = %q\n\n[mail]", dsn), 1)
	}
	path := filepath.Join(dir, "bench.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.bin, "serve", "--config", path, "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--data", filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+e.sink.certFile)
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port), sink: e.sink, drop: drop, run: e.runs,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}}
	for range 200 {
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the server did not become ready; see serve.log")
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt) // it may have exited already; Wait says how it ended
	_ = s.cmd.Wait()                       // a server stopped by a signal exits non-zero by design
	s.drop()
}

// raise edits the demo's config: every chat ceiling at the top of its
// range, 1,000 rooms of each type, mail through SMTP at the sink.
func raise(cfg string, smtpPort int) string {
	for _, key := range []string{"portfolio_email_hourly", "portfolio_email_daily", "location_email_hourly", "cancel_portfolio_daily", "location_pending", "portfolio_pending"} {
		cfg = regexp.MustCompile(`(?m)^`+key+` = \d+`).ReplaceAllString(cfg, key+" = 1000")
	}
	cfg = regexp.MustCompile(`(?m)^count = \d+`).ReplaceAllString(cfg, "count = 1000")
	return strings.Replace(cfg, `driver = "dev"`, fmt.Sprintf("driver = \"smtp\"\nsmtp_host = \"127.0.0.1\"\nsmtp_port = %d", smtpPort), 1)
}

// book makes booking i as a guest would through their assistant: a
// one-night stay at one of the three properties, a distinct mailbox, the
// code read from the mailbox, the confirmation. It returns the time from
// the start's request to the confirmation's answer.
func (s *server) book(i, worker int) (time.Duration, error) {
	prop := []string{"riverside", "oldtown", "airport"}[i%3]
	day := time.Now().AddDate(0, 0, 20+i%300).Format("2006-01-02")
	out := time.Now().AddDate(0, 0, 21+i%300).Format("2006-01-02")
	email := fmt.Sprintf("g%d-r%d-w%d@example.com", i, s.run, worker)
	codes := s.sink.expect(email)
	defer s.sink.forget(email)
	t0 := time.Now()
	text, err := s.call("start_booking", map[string]any{"property": prop, "roomtype": "double", "checkin": day, "checkout": out,
		"guest_name": "Ada Lovelace", "email": email, "phone": "+1 303 555 0199"})
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(`"booking_id":\s*"([^"]+)"`).FindStringSubmatch(text)
	if m == nil {
		return 0, fmt.Errorf("start_booking answered %.300s", text)
	}
	var code string
	select {
	case code = <-codes:
	case <-time.After(30 * time.Second):
		return 0, errors.New("no code arrived")
	}
	text, err = s.call("confirm_booking", map[string]any{"booking_id": m[1], "code": code})
	if err != nil {
		return 0, err
	}
	if !strings.Contains(text, `"reservation_number"`) {
		return 0, fmt.Errorf("confirm_booking answered %.300s", text)
	}
	return time.Since(t0), nil
}

// call makes one stateless MCP tools/call and returns the answer's body.
func (s *server) call(tool string, args map[string]any) (string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bookload", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{}},
	}})
	req, _ := http.NewRequest(http.MethodPost, s.url+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"isError":true`)) {
		return "", fmt.Errorf("%s: %d %.300s", tool, resp.StatusCode, b)
	}
	return string(b), nil
}

// schema creates a fresh PostgreSQL schema and returns a DSN that uses
// it, with the function that drops it.
func (e *env) schema() (string, func(), error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.dsn)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = conn.Close(ctx) }()
	name := fmt.Sprintf("bookload_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(e.dsn)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		if c, err := pgx.Connect(ctx, e.dsn); err == nil {
			_, _ = c.Exec(ctx, "DROP SCHEMA "+name+" CASCADE") // cleanup of a benchmark schema; a leftover is harmless
			_ = c.Close(ctx)
		}
	}, nil
}

// sink is an SMTP server with STARTTLS that hands each code mailed to
// an expected address to whoever waits for it.
type sink struct {
	srv      *smtp.Server
	port     int
	certFile string
	mu       sync.Mutex
	waiting  map[string]chan string
}

func startSink(dir string) (*sink, error) {
	cert, pemBytes, err := selfSigned()
	if err != nil {
		return nil, err
	}
	k := &sink{waiting: map[string]chan string{}, certFile: filepath.Join(dir, "sink.pem")}
	if err := os.WriteFile(k.certFile, pemBytes, 0o600); err != nil {
		return nil, err
	}
	k.srv = smtp.NewServer(k)
	k.srv.Domain = "127.0.0.1"
	k.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	k.srv.AllowInsecureAuth = true
	k.srv.MaxRecipients = 10
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	k.port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = k.srv.Serve(ln) }() // ends with ErrServerClosed when the run closes it
	return k, nil
}

func (k *sink) close() { _ = k.srv.Close() }

func (k *sink) expect(addr string) chan string {
	ch := make(chan string, 4)
	k.mu.Lock()
	k.waiting[addr] = ch
	k.mu.Unlock()
	return ch
}

func (k *sink) forget(addr string) {
	k.mu.Lock()
	delete(k.waiting, addr)
	k.mu.Unlock()
}

var codePattern = regexp.MustCompile(`code is (\d{6})\.`)

// deliver hands the code in data to the waiter for each recipient.
func (k *sink) deliver(to []string, data []byte) {
	m := codePattern.FindSubmatch(data)
	if m == nil {
		return // a notice or a confirmation: nobody waits for it
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, addr := range to {
		if ch, ok := k.waiting[addr]; ok {
			select {
			case ch <- string(m[1]):
			default:
			}
		}
	}
}

// NewSession makes the sink its own go-smtp backend.
func (k *sink) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{k: k}, nil }

type session struct {
	k  *sink
	to []string
}

func (s *session) Mail(string, *smtp.MailOptions) error { return nil }
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(bufio.NewReader(r))
	if err != nil {
		return err
	}
	s.k.deliver(s.to, bytes.ReplaceAll(b, []byte("=\r\n"), nil))
	return nil
}
func (s *session) Reset()        { s.to = nil }
func (s *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and its PEM, which the
// server trusts through SSL_CERT_FILE.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pemBytes, nil
}

// cpuSeconds is the user and system CPU time process pid has used.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // clock ticks; USER_HZ is 100 on Linux
}

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
