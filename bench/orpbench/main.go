// Command orpbench supports bench/orp-wrk.sh, which measures tracked-link
// redirects with an outside load generator:
//
//	orpbench bare ADDR             serve the baseline: a bare net/http 302
//	orpbench durable ADDR FILE     serve the durable baseline: the same 302
//	                               once its click is written and synced to
//	                               FILE, clicks arriving together sharing one
//	                               write and one fdatasync
//	orpbench fronted ADDR FILE     serve the durable baseline behind the front
//	                               every answer of frontdesk passes: its
//	                               security headers, request id, metric and
//	                               log check, route, deadlines and host check
//	orpbench setup URL             make an active deal on a running server
//	                               and print its tracked link
//	orpbench count DATA_DIR TOKEN  print how many clicks of the link are
//	                               stored (run after the server stopped)
//	orpbench cpu PID               print the process's CPU seconds so far
//	orpbench load URL SECS CONNS OUT
//	                               request URL from CONNS connections for
//	                               SECS seconds or until the server dies,
//	                               and write the click id of every 302 to OUT
//	orpbench missing DATA_DIR TOKEN IDS
//	                               print how many click ids in the file IDS
//	                               are not stored (run after the server
//	                               stopped)
//
// It talks to frontdesk only over HTTP and, for count, through the SQLite
// store and the orp package, as the server itself reads them.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"frontdesk/config"
	"frontdesk/internal/baseline"
	"frontdesk/internal/clock"
	"frontdesk/internal/hostguard"
	"frontdesk/internal/httpfront"
	"frontdesk/internal/metrics"
	"frontdesk/internal/page"
	"frontdesk/internal/requestid"
	"frontdesk/orp"
	"frontdesk/sqlite"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "orpbench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: orpbench bare ADDR | durable ADDR FILE | fronted ADDR FILE | setup URL | count DATA_DIR TOKEN | cpu PID")
	}
	switch args[0] {
	case "bare":
		return http.ListenAndServe(args[1], http.HandlerFunc(baseline.Redirect))
	case "durable", "fronted":
		if len(args) != 3 {
			return fmt.Errorf("usage: orpbench %s ADDR FILE", args[0])
		}
		d, err := baseline.OpenDurable(args[2])
		if err != nil {
			return err
		}
		if args[0] == "durable" {
			return http.ListenAndServe(args[1], d)
		}
		h, err := fronted(d)
		if err != nil {
			return err
		}
		return http.ListenAndServe(args[1], h)
	case "setup":
		link, err := setup(strings.TrimSuffix(args[1], "/"))
		if err != nil {
			return err
		}
		fmt.Println(link)
		return nil
	case "count":
		if len(args) != 3 {
			return fmt.Errorf("usage: orpbench count DATA_DIR TOKEN")
		}
		return count(args[1], args[2])
	case "cpu":
		return cpu(args[1])
	case "load":
		if len(args) != 5 {
			return fmt.Errorf("usage: orpbench load URL SECS CONNS OUT")
		}
		return load(args[1], args[2], args[3], args[4])
	case "missing":
		if len(args) != 4 {
			return fmt.Errorf("usage: orpbench missing DATA_DIR TOKEN IDS")
		}
		return missing(args[1], args[2], args[3])
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// fronted serves h as serve mounts a tracked link: inside the route's
// deadlines and host check, behind the front every answer shares, with
// the demo business's headers and a logger at serve's default level.
// Every request is taken as the link's route, whose successes the front
// logs at debug level, without a router's matching.
func fronted(h http.Handler) (http.Handler, error) {
	ids, err := requestid.NewSource(rand.Reader)
	if err != nil {
		return nil, err
	}
	demo := config.Demo()
	route := httpfront.Deadlines(15*time.Second, 30*time.Second, 0,
		httpfront.GuardHost(hostguard.New([]string{"127.0.0.1"}), false, h))
	link := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Pattern = "GET /go/{token}"
		route.ServeHTTP(w, r)
	})
	return httpfront.Front(httpfront.Options{
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Metrics: metrics.New(),
		IDs:     ids,
		Headers: httpfront.SecurityHeaders(page.Brand{Accent: demo.Business.AccentColor, Logo: demo.Business.Logo, Lang: demo.Business.Locale}),
	}, link), nil
}

// setup lists an affiliate offer, accepts it from a second party and
// approves both asks, as two agents would, and returns the tracked link.
func setup(base string) (string, error) {
	terms := map[string]any{
		"title": "Acme Notes: 30% of first-year revenue", "kind": "affiliate", "categories": []string{"software.productivity"},
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
				"destination": "https://acmenotes.example/pricing", "proof": []string{"link"}},
			map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 3000, "window": "P30D", "rail": "stripe", "proof": []string{"provider"}},
		},
	}
	maker, err := join(base)
	if err != nil {
		return "", err
	}
	offer, err := maker.send(base, "offer", map[string]any{"terms": terms, "limit": 10})
	if err != nil {
		return "", err
	}
	listed, err := maker.approve(offer)
	if err != nil {
		return "", err
	}
	pub, err := join(base)
	if err != nil {
		return "", err
	}
	accepted, err := pub.send(base, "accept", map[string]any{"offer": listed.Body["id"], "terms_hash": listed.Body["terms_hash"]})
	if err != nil {
		return "", err
	}
	active, err := pub.approve(accepted)
	if err != nil {
		return "", err
	}
	tracking, _ := active.Body["tracking"].([]any)
	if active.Body["state"] != "active" || len(tracking) == 0 {
		return "", fmt.Errorf("the deal is %v, want active with a link", active.Body["state"])
	}
	link, _ := tracking[0].(map[string]any)["link"].(string)
	return link, nil
}

type party struct {
	ID    string `json:"party"`
	Token string `json:"token"`
	n     int
}

type message struct {
	Body map[string]any `json:"body"`
}

func join(base string) (*party, error) {
	var p party
	return &p, call("POST", base+"/orp/join", "", []byte("{}"), http.StatusCreated, &p)
}

func (p *party) send(base, typ string, body any) (message, error) {
	p.n++
	raw, _ := json.Marshal(map[string]any{"orp": "0.3", "type": typ, "id": fmt.Sprintf("m_bench_%04d", p.n),
		"ts": time.Now().UTC().Format(time.RFC3339), "from": p.ID, "body": body})
	var m message
	return m, call("POST", base+"/orp", p.Token, raw, http.StatusOK, &m)
}

func (p *party) approve(m message) (message, error) {
	w, _ := m.Body["waiting"].(map[string]any)
	url, _ := w["url"].(string)
	if url == "" {
		return m, fmt.Errorf("nothing waits for approval in %v", m.Body)
	}
	var out message
	return out, call("POST", url, p.Token, nil, http.StatusOK, &out)
}

func call(method, url, token string, body []byte, want int, out any) error {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s = %d %s", method, url, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// count prints the clicks stored for one link token.
func count(dataDir, token string) error {
	clicks, err := stored(dataDir, token)
	if err != nil {
		return err
	}
	fmt.Println(len(clicks))
	return nil
}

// stored reads the clicks stored for one link token.
func stored(dataDir, token string) (clicks []orp.StoredClick, err error) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dataDir, "frontdesk.db"))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	h, err := orp.New(orp.Options{Store: db, Clock: clock.System{}, Rand: rand.Reader, Origin: "http://127.0.0.1"})
	if err != nil {
		return nil, err
	}
	return h.StoredClicks(ctx, token, time.Unix(0, 0), time.Now().Add(time.Hour))
}

// load requests link from conns connections, never following the
// redirect, for secs seconds or until the server stops answering, and
// writes the click id of every 302 it got to out, one a line.
func load(link, secs, conns, out string) error {
	d, err := time.ParseDuration(secs + "s")
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(conns)
	if err != nil || n < 1 {
		return fmt.Errorf("connections %q: want a positive number", conns)
	}
	client := &http.Client{
		Transport:     &http.Transport{MaxIdleConnsPerHost: n},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	end := time.Now().Add(d)
	ids := make([][]string, n)
	var failures atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for time.Now().Before(end) {
				resp, err := client.Get(link)
				if err != nil {
					failures.Add(1)
					return // the server is gone
				}
				_ = resp.Body.Close()
				if u, err := url.Parse(resp.Header.Get("Location")); resp.StatusCode == http.StatusFound && err == nil {
					if id := u.Query().Get("via"); id != "" {
						ids[i] = append(ids[i], id)
					}
				}
			}
		})
	}
	wg.Wait()
	var b strings.Builder
	total := 0
	for _, list := range ids {
		for _, id := range list {
			b.WriteString(id + "\n")
			total++
		}
	}
	fmt.Printf("302s with a click id: %d; connections ended by an error: %d\n", total, failures.Load())
	return os.WriteFile(out, []byte(b.String()), 0o600)
}

// missing prints how many click ids listed in the file ids are not
// stored for token.
func missing(dataDir, token, ids string) error {
	raw, err := os.ReadFile(ids)
	if err != nil {
		return err
	}
	clicks, err := stored(dataDir, token)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, c := range clicks {
		have[c.ID] = true
	}
	lost := 0
	for _, id := range strings.Fields(string(raw)) {
		if !have[id] {
			lost++
		}
	}
	fmt.Println(lost)
	return nil
}

// cpu prints a process's user and system CPU seconds from /proc.
func cpu(pid string) error {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return err
	}
	// Fields after the command name, which ends with the last ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	fmt.Printf("%.2f\n", (utime+stime)/100) // USER_HZ is 100 on Linux
	return nil
}
