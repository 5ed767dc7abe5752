// Command history measures how the front desk's calls and pages grow with
// the reservations a business keeps. For each size it seeds a store with
// that many past stays through the reservation desk (each created and
// completed, its outbox events and all; ten begin each day, so 100,000 are
// 27 years of a small hotel group) and 2,000 stays to come, then
// starts `frontdesk serve` on it and, from this process over loopback,
// times the MCP read tools and start_booking, USP availability, and the
// staff list, today, calendar and search pages. Sizes run in alternating
// order (ABBA) over several runs, every server with the same runtime
// settings; it reports the median of each run's p50 latency and CPU per
// call, and the ratio of each size to the smallest.
//
//	go run ./bench/history [-sizes 1000,10000,100000] [-runs 5] [-n 200] [-keep DIR] [-database URL]
//
// A guest booked a year ago (Ada Lovelace) and one booked for next week
// (Grace Hopper) are in every store; the search pages must find both.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

const (
	future   = 2000
	password = "history bench password"
	// bookingCalls bounds the start_booking calls of one run (warm-up
	// included), so five runs stay under the hourly code ceiling.
	bookingCalls = 180
	// pastPerDay is how many stays of history begin each day.
	pastPerDay = 10
)

func main() {
	sizes := flag.String("sizes", "1000,10000,100000", "reservations of history, comma-separated")
	runs := flag.Int("runs", 5, "interleaved runs")
	n := flag.Int("n", 200, "calls of each kind per run")
	keep := flag.String("keep", "", "keep seeded stores here and reuse them (default: a temporary folder)")
	database := flag.String("database", "", "a PostgreSQL URL: seed and serve each size in its own schema instead of SQLite")
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()

	work := *keep
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "frontdesk-history-"); err != nil {
			log.Fatal(err)
		}
		defer func() { _ = os.RemoveAll(work) }() // a temporary folder; what is left of it harms nothing
	}
	if err := os.MkdirAll(work, 0o750); err != nil {
		log.Fatal(err)
	}
	bin := filepath.Join(work, "frontdesk")
	run("go", "build", "-o", bin, "./cmd/frontdesk")
	cfgPath := filepath.Join(work, "demo.toml")
	// start_booking is timed many times an hour, so the demo's code
	// ceilings are raised to the most the config allows (1,000 an hour),
	// and each run sends at most bookingCalls; every other setting is the
	// demo's.
	demo := string(output(bin, "init", "--demo"))
	for key, v := range map[string]string{"portfolio_email_hourly": "1000", "portfolio_email_daily": "1000", "location_email_hourly": "1000"} {
		demo = regexp.MustCompile(`(?m)^`+key+` = \d+$`).ReplaceAllString(demo, key+" = "+v)
	}
	if err := os.WriteFile(cfgPath, []byte(demo), 0o600); err != nil {
		log.Fatal(err)
	}
	run(bin, "check-config", cfgPath)
	cfg := config.Demo()
	pw := filepath.Join(work, "password")
	if err := os.WriteFile(pw, []byte(password+"\n"), 0o600); err != nil {
		log.Fatal(err)
	}

	var list []int
	for _, s := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			log.Fatalf("size %q is not a positive number", s)
		}
		list = append(list, v)
	}
	stores := map[int][]string{} // size → the store flags of serve
	for _, size := range list {
		flags := []string{"--data", filepath.Join(work, fmt.Sprintf("data-%d", size))}
		if *database != "" {
			flags = []string{"--database", withSchema(*database, fmt.Sprintf("frontdesk_history_%d", size))}
		}
		stores[size] = flags
		marker := filepath.Join(work, fmt.Sprintf("seeded-%d", size))
		if _, err := os.Stat(marker); err == nil {
			continue
		}
		start := time.Now()
		if err := seed(ctx, cfg, flags, size); err != nil {
			log.Fatalf("seed %d: %v", size, err)
		}
		run(bin, append([]string{"staff", "add-user", "--username", "olga", "--role", "owner", "--password-file", pw}, flags...)...)
		log.Printf("seeded %d reservations of history and %d to come in %s", size, future, time.Since(start).Round(time.Second))
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			log.Fatal(err)
		}
	}

	results := map[int]map[string][]sample{}
	for r := range *runs {
		order := slices.Clone(list)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, size := range order {
			got, err := measure(ctx, bin, cfgPath, stores[size], *n)
			if err != nil {
				log.Fatalf("run %d, size %d: %v", r+1, size, err)
			}
			if results[size] == nil {
				results[size] = map[string][]sample{}
			}
			for op, s := range got {
				results[size][op] = append(results[size][op], s)
			}
			log.Printf("run %d: size %d measured", r+1, size)
		}
	}
	report(os.Stdout, list, results)
}

// withSchema names schema in a PostgreSQL URL's search_path, creating it.
func withSchema(dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		log.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

func output(name string, args ...string) []byte {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		log.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out
}

// unit is one room type of one property, as the seed books it.
type unit struct {
	loc  business.Location
	unit reservation.Unit
}

// seed books size past stays and the stays to come through the desk.
func seed(ctx context.Context, cfg config.Config, flags []string, size int) error {
	var st store.Store
	var err error
	if flags[0] == "--database" {
		if err := createSchema(ctx, flags[1]); err != nil {
			return err
		}
		st, err = postgres.Open(ctx, flags[1])
	} else {
		if err := os.MkdirAll(flags[1], 0o750); err != nil {
			return err
		}
		st, err = sqlite.Open(ctx, filepath.Join(flags[1], "frontdesk.db"))
	}
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }() // the seed's own error decides; its writes are committed
	desk := reservation.NewDesk(st)
	var units []unit
	for _, l := range cfg.Locations {
		for _, u := range l.Units {
			if u.Kind == business.KindTimed {
				continue
			}
			units = append(units, unit{l, reservation.Unit{Location: l.Slug, Type: u.Type, Capacity: u.Count}})
		}
	}
	now := time.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	book := func(i int, u unit, day time.Time, nights int, c reservation.Contact, complete bool) error {
		slots := make([]string, nights)
		for k := range slots {
			slots[k] = day.AddDate(0, 0, k).Format(time.DateOnly)
		}
		sources := []reservation.Source{reservation.SourceChat, reservation.SourceForm, reservation.SourceStaff, reservation.USP("demo")}
		r, err := desk.Create(ctx, reservation.New{Kind: reservation.KindConfirmed, Reference: fmt.Sprintf("%s-%016X", u.loc.Prefix, uint64(i)<<8|uint64(size%251)),
			Unit: u.unit, Slots: slots, Source: sources[i%len(sources)], Contact: c, Guests: 1 + i%2, Total: int64(8900 * nights), By: "guest", At: now})
		if err != nil || !complete {
			return err
		}
		_, err = desk.Complete(ctx, reservation.Change{Read: r, By: "sweep", At: now})
		return err
	}
	firstNames := []string{"Maria", "James", "Wei", "Fatima", "Olu", "Sofia", "Liam", "Aiko", "Noah", "Priya", "Lucas", "Amara"}
	lastNames := []string{"Garcia", "Smith", "Chen", "Khan", "Adeyemi", "Rossi", "Murphy", "Tanaka", "Dubois", "Patel", "Silva", "Okafor"}
	contact := func(i int) reservation.Contact {
		return reservation.Contact{Name: fmt.Sprintf("%s %s%d", firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)], i),
			Email: fmt.Sprintf("guest%d@example.org", i), Phone: fmt.Sprintf("+1 303 %03d %04d", 200+i/10000%800, i%10000)}
	}
	// Past stays, pastPerDay a day over the room types, the newest ending
	// yesterday: a larger store is a business with more years behind it,
	// not a busier one, so the days around today look alike in every
	// store. Each is completed at once, which frees its room for the next.
	for i := range size {
		u := units[i%len(units)]
		day := today.AddDate(0, 0, -4-(size-1-i)/pastPerDay)
		c := contact(i)
		if i == size/2 {
			day, c = today.AddDate(-1, 0, 0), reservation.Contact{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+44 20 7946 0958"}
		}
		if err := book(i, u, day, 1+i%3, c, true); err != nil {
			return fmt.Errorf("past stay %d: %w", i, err)
		}
	}
	// Stays to come, one night each over the next 300 days, skipping
	// nights a room type has no room left on.
	made := 0
	for i := 0; made < future && i < future*4; i++ {
		u := units[i%len(units)]
		day := today.AddDate(0, 0, 1+(i*7)%300)
		c := contact(size + i)
		if made == 0 {
			day, c = today.AddDate(0, 0, 7), reservation.Contact{Name: "Grace Hopper", Email: "grace@example.com", Phone: "+1 303 555 0142"}
		}
		err := book(size+i, u, day, 1, c, false)
		if errors.Is(err, reservation.ErrUnitTaken) {
			continue
		}
		if err != nil {
			return fmt.Errorf("stay to come %d: %w", i, err)
		}
		made++
	}
	if made < future {
		return fmt.Errorf("only %d stays to come fitted", made)
	}
	// The outbox's events are numbered here, as serve would, so no server
	// of a run spends its first seconds on them.
	return desk.Relay(ctx)
}

func createSchema(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return err
	}
	schema := u.Query().Get("search_path")
	out, err := exec.CommandContext(ctx, "psql", "-X", "-q", "-h", u.Hostname(), "-U", u.User.Username(), "-d", strings.TrimPrefix(u.Path, "/"),
		"-c", `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE; CREATE SCHEMA "`+schema+`"`).CombinedOutput()
	if err != nil {
		return fmt.Errorf("create schema %s: %v: %s", schema, err, out)
	}
	return nil
}

// sample is one run's figures for one kind of call.
type sample struct {
	p50, cpu time.Duration // median latency; CPU of the server per call
	failed   int
}

// server is one started `frontdesk serve`.
type server struct {
	cmd  *exec.Cmd
	base string
}

func start(bin, cfgPath string, flags []string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close() // only its port was wanted
	args := append([]string{"serve", "--config", cfgPath, "--addr", addr}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOGC=400", "GOMEMLIMIT=off")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://" + addr}
	for range 600 {
		if resp, err := http.Get(s.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, s.settle()
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("serve did not get ready at %s", s.base)
}

// settle waits until the server's start-up work (the sweep, the outbox)
// is done: two quiet half-seconds in a row.
func (s *server) settle() error {
	quiet := 0
	for range 240 {
		before := s.cpu()
		time.Sleep(500 * time.Millisecond)
		if s.cpu()-before < 25*time.Millisecond {
			quiet++
			if quiet == 2 {
				return nil
			}
		} else {
			quiet = 0
		}
	}
	return fmt.Errorf("serve at %s never settled", s.base)
}

// cpu is the server's user and system CPU time so far.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// bearer adds a platform's API key to every request.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// measure starts a server on one store and times every kind of call.
func measure(ctx context.Context, bin, cfgPath string, flags []string, n int) (map[string]sample, error) {
	s, err := start(bin, cfgPath, flags)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	client := mcp.NewClient(&mcp.Implementation{Name: "history-bench", Version: "1"}, nil)
	chat, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp"}, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = chat.Close() }() // the server stops right after
	usp, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/usp/mcp", HTTPClient: &http.Client{Transport: bearer{"demo-platform-key"}}}, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = usp.Close() }() // the server stops right after
	jar, _ := cookiejar.New(nil)
	staff := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := staff.PostForm(s.base+"/staff/signin", url.Values{"username": {"olga"}, "password": {password}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("staff sign-in answered %d", resp.StatusCode)
	}

	today := time.Now().UTC()
	in := func(days int) string { return today.AddDate(0, 0, days).Format(time.DateOnly) }
	tool := func(cs *mcp.ClientSession, name string, args func(i int) map[string]any) func(i int) error {
		return func(i int) error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args(i)})
			if err != nil {
				return err
			}
			if res.IsError {
				text := ""
				if len(res.Content) > 0 {
					if t, ok := res.Content[0].(*mcp.TextContent); ok {
						text = t.Text
					}
				}
				return fmt.Errorf("%s answered an error: %.200s", name, text)
			}
			return nil
		}
	}
	page := func(path string, must ...string) func(int) error {
		return func(int) error {
			resp, err := staff.Get(s.base + path)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s answered %d", path, resp.StatusCode)
			}
			for _, m := range must {
				if !bytes.Contains(body, []byte(m)) {
					return fmt.Errorf("%s does not show %s", path, m)
				}
			}
			return nil
		}
	}
	calls := []struct {
		name string
		call func(i int) error
	}{
		{"find_rooms", tool(chat, "find_rooms", func(int) map[string]any { return map[string]any{"checkin": in(20), "checkout": in(23)} })},
		{"quote_stay", tool(chat, "quote_stay", func(int) map[string]any {
			return map[string]any{"property": "riverside", "roomtype": "double", "checkin": in(20), "checkout": in(23)}
		})},
		{"start_booking", tool(chat, "start_booking", func(i int) map[string]any {
			return map[string]any{"property": []string{"riverside", "oldtown", "airport"}[(i+3)%3], "roomtype": "double", "checkin": in(310 + i%200), "checkout": in(311 + i%200),
				"guest_name": "Bench Guest", "email": fmt.Sprintf("bench%d-%d@example.net", time.Now().UnixNano(), i), "phone": "+1 303 555 0100"}
		})},
		{"usp_availability", tool(usp, "usp_availability_query", func(int) map[string]any {
			return map[string]any{"service_id": "svc_riverside_double", "start_date": in(1), "end_date": in(30)}
		})},
		{"staff_list", page("/staff/reservations")},
		{"staff_today", page("/staff/today?location=riverside")},
		{"staff_calendar", page("/staff/calendar?location=riverside")},
		{"staff_search_past", page("/staff/reservations?q=lovelace", "Ada Lovelace")},
		{"staff_search_next", page("/staff/reservations?q=hopper", "Grace Hopper")},
	}
	out := map[string]sample{}
	for _, c := range calls {
		for i := range 10 { // warm up
			_ = c.call(1_000_000 + i)
		}
		calls := n
		if c.name == "start_booking" {
			calls = min(n, bookingCalls-10)
		}
		lat := make([]time.Duration, 0, calls)
		failed := 0
		before := s.cpu()
		for i := range calls {
			t0 := time.Now()
			if err := c.call(i); err != nil {
				failed++
				if failed == 1 {
					log.Printf("%s: %v", c.name, err)
				}
			}
			lat = append(lat, time.Since(t0))
		}
		used := s.cpu() - before
		slices.Sort(lat)
		out[c.name] = sample{p50: lat[len(lat)/2], cpu: used / time.Duration(calls), failed: failed}
	}
	return out, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// report prints, per kind of call and size, the median over runs of the
// p50 latency and of the CPU per call, and the ratio of each to the
// smallest size's.
func report(w io.Writer, sizes []int, results map[int]map[string][]sample) {
	base := sizes[0]
	var ops []string
	for op := range results[base] {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	fmt.Fprintf(w, "%-18s %9s %10s %8s %10s %8s %6s\n", "call", "history", "p50", "ratio", "cpu/call", "ratio", "failed")
	for _, op := range ops {
		var p50s, cpus []time.Duration
		for _, s := range results[base][op] {
			p50s, cpus = append(p50s, s.p50), append(cpus, s.cpu)
		}
		bp, bc := median(p50s), median(cpus)
		for _, size := range sizes {
			var ps, cs []time.Duration
			failed := 0
			for _, s := range results[size][op] {
				ps, cs, failed = append(ps, s.p50), append(cs, s.cpu), failed+s.failed
			}
			p, c := median(ps), median(cs)
			fmt.Fprintf(w, "%-18s %9d %10s %8.2f %10s %8.2f %6d\n", op, size, p.Round(time.Microsecond), float64(p)/float64(bp),
				c.Round(time.Microsecond), float64(c)/float64(max(bc, 1)), failed)
		}
	}
}
