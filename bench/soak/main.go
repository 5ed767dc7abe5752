// Command soak runs `frontdesk serve` as a child on a temporary data
// directory and measures it from outside over loopback HTTP. By default
// it finds the server's capacity for MCP read tools briefly, then drives
// a mix of them at half that rate for -duration, and every -every writes
// a row of requests, errors, latency percentiles and the child's RSS to
// soak.csv, drawn in soak.svg. With -sessions N it instead opens N MCP
// sessions and leaves them idle, recording RSS idle, after opening and
// after the idle timeout (the child runs with --mcp-session-idle).
//
//	go build -o /tmp/frontdesk ./cmd/frontdesk
//	go run ./bench/soak -bin /tmp/frontdesk -duration 10m -out docs
//	go run ./bench/soak -bin /tmp/frontdesk -sessions 10000 -idle 1m
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const proto = "2025-11-25"

func main() {
	bin := flag.String("bin", "", "the built frontdesk binary (required)")
	duration := flag.Duration("duration", 10*time.Minute, "how long the soak drives load")
	every := flag.Duration("every", 10*time.Second, "sampling interval")
	rate := flag.Float64("rate", 0, "requests per second; 0 finds the capacity and takes half of it")
	workers := flag.Int("workers", 8, "concurrent clients, each with its own MCP session")
	out := flag.String("out", ".", "directory for soak.csv and soak.svg")
	sessions := flag.Int("sessions", 0, "instead of a soak, open this many idle MCP sessions and watch RSS")
	idle := flag.Duration("idle", time.Minute, "with -sessions: the child's MCP session idle timeout")
	watch := flag.Duration("watch", 150*time.Second, "with -sessions: how long RSS is watched after expiry, and again after one request")
	config := flag.String("config", "", "serve this business instead of the demo; the load spreads over up to 32 of its properties, each with a \"double\" room type (bench/scale.sh writes such files)")
	flag.Parse()
	if *bin == "" {
		fail(fmt.Errorf("-bin is required: go build -o /tmp/frontdesk ./cmd/frontdesk"))
	}
	var extra []string
	if *sessions > 0 {
		extra = []string{"--mcp-session-idle", idle.String()}
	}
	c, err := startChild(*bin, *config, extra)
	if err != nil {
		fail(err)
	}
	defer c.stop()
	if *sessions > 0 {
		err = measureSessions(c, *sessions, *idle, *watch)
	} else {
		err = soak(c, mix(slugs(c.config)), *duration, *every, *rate, *workers, *out)
	}
	if err != nil {
		c.stop()
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "soak:", err)
	os.Exit(1)
}

// child is the running server.
type child struct {
	cmd    *exec.Cmd
	dir    string
	base   string
	config string // the business's file, "" for the demo
	once   sync.Once
}

// startChild serves the business in cfgPath, or the demo when it is "".
func startChild(bin, cfgPath string, extra []string) (*child, error) {
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return nil, err
	}
	config := cfgPath
	if cfgPath == "" {
		cfg, err := exec.Command(bin, "init", "--demo").Output()
		if err != nil {
			return nil, fmt.Errorf("frontdesk init --demo: %w", err)
		}
		cfgPath = filepath.Join(dir, "frontdesk.toml")
		if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--config", cfgPath, "--addr", addr, "--data", filepath.Join(dir, "data")}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, dir: dir, base: "http://" + addr, config: config}
	for range 200 {
		if r, err := http.Get(c.base + "/healthz"); err == nil {
			r.Body.Close()
			return c, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.stop()
	return nil, fmt.Errorf("serve did not answer /healthz; see %s", log.Name())
}

func (c *child) stop() {
	c.once.Do(func() {
		_ = c.cmd.Process.Kill() // it may have exited already; Wait reaps it either way
		_ = c.cmd.Wait()         // a killed server exits non-zero by design
		_ = os.RemoveAll(c.dir)  // a temp dir left behind is harmless
	})
}

// rssKiB reads VmRSS of the child from /proc.
func (c *child) rssKiB() int { return c.status("VmRSS:") }

// peakKiB reads VmHWM, the most the child has held resident.
func (c *child) peakKiB() int { return c.status("VmHWM:") }

// status reads one size of /proc/PID/status, in KiB.
func (c *child) status(field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// errRefused is an initialize answered 503: the server holds as many
// sessions as it takes.
var errRefused = errors.New("initialize refused with 503")

// client speaks MCP over streamable HTTP on one session.
type client struct {
	http *http.Client
	url  string
	sid  string
	id   atomic.Int64
}

func (c *child) session(hc *http.Client) (*client, error) {
	cl := &client{http: hc, url: c.base + "/mcp"}
	resp, err := cl.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + proto + `","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	if err != nil {
		return nil, err
	}
	cl.sid = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode == http.StatusServiceUnavailable {
		return nil, errRefused
	}
	if cl.sid == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id (status %d)", resp.StatusCode)
	}
	if _, err := cl.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return cl, nil
}

func (cl *client) post(body string) (*http.Response, error) {
	req, err := http.NewRequest("POST", cl.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if cl.sid != "" {
		req.Header.Set("Mcp-Session-Id", cl.sid)
		req.Header.Set("MCP-Protocol-Version", proto)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// call posts one tools/call and reports whether it answered a result
// that is not a tool error.
func (cl *client) call(tool, args string) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, cl.id.Add(1), tool, args)
	req, err := http.NewRequest("POST", cl.url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cl.sid)
	req.Header.Set("MCP-Protocol-Version", proto)
	resp, err := cl.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"result"`)) || bytes.Contains(b, []byte(`"isError":true`)) {
		return fmt.Errorf("%s: status %d: %.200s", tool, resp.StatusCode, b)
	}
	return nil
}

// slugs are the properties the load asks about: the demo's Riverside
// Inn, or up to 32 properties spread evenly over the file's.
func slugs(config string) []string {
	if config == "" {
		return []string{"riverside"}
	}
	b, err := os.ReadFile(config)
	if err != nil {
		fail(err)
	}
	all := regexp.MustCompile(`(?m)^slug = "([^"]+)"`).FindAllStringSubmatch(string(b), -1)
	if len(all) == 0 {
		fail(fmt.Errorf("%s names no property", config))
	}
	n := min(32, len(all))
	out := make([]string, n)
	for i := range out {
		out[i] = all[i*len(all)/n][1]
	}
	return out
}

// mix is the load: the MCP read tools of a guest's assistant, in turn,
// about each property, and a search of every property.
func mix(slugs []string) [][2]string {
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
	in, out, month := day(29), day(32), day(59)
	var calls [][2]string
	for _, p := range slugs {
		calls = append(calls,
			[2]string{"find_rooms", `{"property":"` + p + `","checkin":"` + in + `","checkout":"` + out + `"}`},
			[2]string{"quote_stay", `{"property":"` + p + `","roomtype":"double","checkin":"` + in + `","checkout":"` + out + `"}`},
			[2]string{"property_info", `{"property":"` + p + `"}`},
			[2]string{"find_rooms", `{"checkin":"` + in + `","checkout":"` + month + `"}`})
	}
	return calls
}

// window gathers the outcomes of one sampling interval.
type window struct {
	mu      sync.Mutex
	lat     []time.Duration
	errors  int
	dropped int
	first   error
}

func (w *window) add(d time.Duration, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.errors++
		if w.first == nil {
			w.first = err
		}
		return
	}
	w.lat = append(w.lat, d)
}

// drop counts a request never sent because the queue was full.
func (w *window) drop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropped++
}

func (w *window) take() (lat []time.Duration, errors, dropped int, first error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lat, errors, dropped, first = w.lat, w.errors, w.dropped, w.first
	w.lat, w.errors, w.dropped, w.first = nil, 0, 0, nil
	return
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// sample is one row of the soak's record.
type sample struct {
	at            time.Duration
	requests      int
	errors        int
	dropped       int
	p50, p95, p99 time.Duration
	rssKiB        int
}

func soak(c *child, calls [][2]string, duration, every time.Duration, rate float64, workers int, out string) (err error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	clients := make([]*client, workers)
	for i := range clients {
		cl, err := c.session(hc)
		if err != nil {
			return err
		}
		clients[i] = cl
	}
	for _, m := range calls {
		if err := clients[0].call(m[0], m[1]); err != nil {
			return fmt.Errorf("check before load: %w", err)
		}
	}
	if rate == 0 {
		// Capacity: every client calls back to back for a few seconds.
		var n atomic.Int64
		end := time.Now().Add(5 * time.Second)
		var wg sync.WaitGroup
		for i, cl := range clients {
			wg.Go(func() {
				for k := i; time.Now().Before(end); k++ {
					if cl.call(calls[k%len(calls)][0], calls[k%len(calls)][1]) == nil {
						n.Add(1)
					}
				}
			})
		}
		wg.Wait()
		capacity := float64(n.Load()) / 5
		rate = capacity / 2
		fmt.Printf("capacity %.0f req/s with %d clients; soak at %.0f req/s\n", capacity, workers, rate)
	}
	startRSS := c.rssKiB()
	// Open loop: every few milliseconds the requests due by then are
	// queued with the time they were due, and latency counts from that
	// time, so a server that falls behind cannot lower the offered load
	// unseen; a request that finds the queue full is not sent and is
	// counted as dropped.
	type job struct {
		k   int
		due time.Time
	}
	// The queue holds a second of requests: a stall of the shared
	// machine shows as latency, and only a longer backlog drops.
	work := make(chan job, max(1, int(rate)))
	var w window
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Go(func() {
			for j := range work {
				m := calls[j.k%len(calls)]
				err := cl.call(m[0], m[1])
				w.add(time.Since(j.due), err)
			}
		})
	}
	f, err := os.Create(filepath.Join(out, "soak.csv"))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr // the CSV is the run's record: a failed close loses it
		}
	}()
	fmt.Fprintln(f, "seconds,requests,errors,dropped,p50_ms,p95_ms,p99_ms,rss_kib")
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	next := start.Add(every)
	sent := 0
	for {
		now := <-tick.C
		for due := int(now.Sub(start).Seconds() * rate); sent < due; sent++ {
			at := start.Add(time.Duration(float64(sent) / rate * float64(time.Second)))
			select {
			case work <- job{sent, at}:
			default:
				w.drop()
			}
		}
		if now.Before(next) {
			continue
		}
		lat, errs, dropped, first := w.take()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		s := sample{at: now.Sub(start).Round(time.Second), requests: len(lat) + errs, errors: errs, dropped: dropped,
			p50: percentile(lat, .50), p95: percentile(lat, .95), p99: percentile(lat, .99), rssKiB: c.rssKiB()}
		samples = append(samples, s)
		msText := func(d time.Duration) string { return strconv.FormatFloat(ms(d), 'f', 2, 64) }
		fmt.Fprintf(f, "%d,%d,%d,%d,%s,%s,%s,%d\n", int(s.at.Seconds()), s.requests, s.errors, s.dropped, msText(s.p50), msText(s.p95), msText(s.p99), s.rssKiB)
		fmt.Printf("%4ds %6d req %3d err %4d dropped p50 %sms p95 %sms p99 %sms rss %d KiB\n", int(s.at.Seconds()), s.requests, s.errors, s.dropped, msText(s.p50), msText(s.p95), msText(s.p99), s.rssKiB)
		if first != nil {
			fmt.Println("  first error:", first)
		}
		next = next.Add(every)
		if now.Sub(start) >= duration {
			break
		}
	}
	close(work)
	wg.Wait()
	fmt.Printf("RSS: %.1f MiB before the load, %.1f MiB at its end, %.1f MiB at the most (VmHWM, start included)\n", float64(startRSS)/1024, float64(c.rssKiB())/1024, float64(c.peakKiB())/1024)
	title := fmt.Sprintf("frontdesk serve, MCP read tools at %.0f req/s for %s (RSS %.1f MiB before the soak)", rate, duration, float64(startRSS)/1024)
	return os.WriteFile(filepath.Join(out, "soak.svg"), chart(title, samples), 0o644)
}
