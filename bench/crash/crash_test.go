package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/usp"
)

// failpoints are the boundaries serve's FRONTDESK_FAILPOINT knows, each
// tried before and after; "" is a kill at a random moment.
var failpoints = []string{"", "pending-registration", "proof-receipt", "record-creation", "inventory-hold",
	"notice-claim", "notice-queue", "cancellation-record", "index-release", "idempotency-write", "webhook-queue", "click-batch", "sign-in"}

// rounds is how many kills each engine gets: CRASH_ROUNDS, or one per
// failpoint, which is what go test and CI run. The sides alternate from
// one failpoint to the next, from one pass over the list to the next and
// from one engine to the other, so the default run takes every
// boundary on both sides across the two engines.
func rounds(t *testing.T) int {
	if v := os.Getenv("CRASH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CRASH_ROUNDS=%q is not a positive count", v)
		}
		return n
	}
	return len(failpoints)
}

func TestCrashHarness(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "frontdesk")
	if out, err := exec.Command("go", "build", "-tags", "failpoint", "-o", bin, "frontdesk/cmd/frontdesk").CombinedOutput(); err != nil {
		t.Fatalf("build frontdesk: %v\n%s", err, out)
	}
	demo, err := exec.Command(bin, "init", "--demo").Output()
	if err != nil {
		t.Fatal(err)
	}
	signature := signaturetest.Drawn(t)
	// The engines run side by side: most of a run is waiting, for
	// servers to start and for the notice lease to pass.
	// PostgreSQL takes each failpoint on the other side than SQLite.
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); harness(t, bin, demo, signature, "", 0) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); harness(t, bin, demo, signature, pgtest.Schema(t), 1) })
}

// crashConfig is the demo with its chat ceilings at their highest and
// the office always open, so the harness measures crashes, not the
// hourly code ceiling or the clock; with 127.0.0.2 trusted as a reverse
// proxy for the browsers of the form and the tracked link; the tracked
// link's destination among the owner's sites; and the harness's USP
// platform, whose webhooks go to hook.
func crashConfig(demo []byte, hook string) []byte {
	c := regexp.MustCompile(`(?m)^(portfolio_email_hourly|portfolio_email_daily|location_email_hourly|location_pending|portfolio_pending|cancel_portfolio_daily) = \d+$`).
		ReplaceAll(demo, []byte("$1 = 1000"))
	c = regexp.MustCompile(`(?m)^(mon|tue|wed|thu|fri|sat|sun) = "[^"]*"$`).ReplaceAll(c, []byte(`$1 = "00:00-23:59"`))
	c = bytes.Replace(c, []byte("[deployment]\n"), []byte("[deployment]\ntrusted_proxies = [\""+proxyAddr+"\"]\n"), 1)
	c = bytes.Replace(c, []byte("[orp]\n"), []byte("[orp]\nsites = [\""+linkSite+"\"]\n"), 1)
	return fmt.Appendf(c, "\n[[usp.platforms]]\nname = \"crash\"\napi_key_hashes = [%q]\nwebhook_url = %q\n", usp.HashAPIKey(platformKey), hook)
}

// server is one run of `frontdesk serve`.
type server struct {
	cmd  *exec.Cmd
	url  string
	log  string
	done chan error
}

// start runs serve on addr, the same for every run on the data: the ORP
// host's party ids and links carry its origin.
func start(t *testing.T, bin, config, addr, data, database, failpoint string, run int) *server {
	t.Helper()
	args := []string{"serve", "--config", config, "--addr", addr, "--data", data, "--log-level", "error"}
	if database != "" {
		args = append(args, "--database", database)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "FRONTDESK_FAILPOINT="+failpoint)
	name := filepath.Join(data, fmt.Sprintf("serve-%03d.log", run))
	log, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, url: "http://" + addr, log: name, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); log.Close() }()
	// A test that stops early leaves no server behind; a server gone
	// already refuses the signal, harmlessly.
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-s.done:
			// A failpoint may fire in the startup sweep: that run is
			// over before it served.
			if failpoint != "" && s.marked(failpoint) {
				s.done <- err
				return s
			}
			out, _ := os.ReadFile(name)
			t.Fatalf("serve exited before it was ready: %v\n%s", err, out)
		default:
		}
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
	}
	t.Fatal("serve was not ready within 30 s")
	return nil
}

// marked reports whether the failpoint's marker is in the server's log:
// the failpoint, not another fault, ended it.
func (s *server) marked(failpoint string) bool {
	out, _ := os.ReadFile(s.log)
	return bytes.Contains(out, []byte("failpoint "+failpoint+" fired\n"))
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// dead reports whether the server has exited (a failpoint fired).
func (s *server) dead() bool {
	select {
	case err := <-s.done:
		s.done <- err
		return true
	default:
		return false
	}
}

// harness runs the rounds on one engine and checks what they left.
func harness(t *testing.T, bin string, demo []byte, signature, database string, side int) {
	data := t.TempDir()
	hooks := &receiver{got: map[string]bool{}}
	hook := httptest.NewServer(hooks)
	defer hook.Close()
	config := filepath.Join(data, "crash.toml")
	if err := os.WriteFile(config, crashConfig(demo, hook.URL+"/hook"), 0o600); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(data, "platform.json")
	if err := os.WriteFile(profile, []byte(profileDocument), 0o600); err != nil {
		t.Fatal(err)
	}
	// cli runs a command of frontdesk on the store, with stdin as its
	// standard input.
	cli := func(stdin string, args ...string) {
		t.Helper()
		args = append(args, "--config", config, "--data", data)
		if database != "" {
			args = append(args, "--database", database)
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("frontdesk %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The platform's profile is pinned, so no call fetches it.
	cli("", "usp", "platform", "add", "--file", profile, platformProfile)
	// The staff screen's login, its password on standard input.
	cli(screenPassword+"\n", "staff", "add-user", "--username", screenUser, "--role", "owner")
	addr := freeAddr(t)
	d := &doors{bin: bin, config: config, data: data, database: database, signature: signature, ledger: newLedger(), screen: &screen{}}
	s := start(t, bin, config, addr, data, database, "", 0)
	d.link = trackedLink(t, s.url)
	// The screen signs in before the kills begin, as staff do at the
	// start of a shift: a round that dies at its first write would
	// otherwise cut off each sign-in, and every attempt counts against
	// the login's budget of sign-ins.
	if !d.screen.open(context.Background(), s.url) {
		t.Fatal("the staff screen's login could not sign in")
	}
	s.kill()

	began := time.Now()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 27))
	n := rounds(t)
	fired := map[string]int{}
	for round := range n {
		fp := failpoints[round%len(failpoints)]
		if fp != "" {
			fp = []string{"before:", "after:"}[(round+round/len(failpoints)+side)%2] + fp
		}
		s := start(t, bin, config, addr, data, database, fp, round+1)
		d.base = round * roundStep
		stop := make(chan struct{})
		driven := make(chan struct{})
		seed := r.Uint64()
		go func() { d.drive(s, stop, seed); close(driven) }()
		// A failpoint kills the server itself at its boundary; otherwise
		// the kill comes at a random moment.
		limit := time.Duration(200+r.IntN(2300)) * time.Millisecond
		if fp != "" {
			limit = failpointWait
		}
		for end := time.Now().Add(limit); time.Now().Before(end) && !s.dead(); {
			time.Sleep(20 * time.Millisecond)
		}
		died := s.dead()
		s.kill()
		close(stop)
		<-driven
		if fp != "" && died && s.marked(fp) {
			fired[strings.SplitN(fp, ":", 2)[1]]++
		}
		t.Logf("round %d: failpoint %q fired %v; acknowledged so far: %s", round, fp, died && s.marked(fp), d.ledger.summary())
	}
	// Every boundary must have ended a run at least once, or the run did
	// not test it.
	if n >= len(failpoints) {
		for _, fp := range failpoints[1:] {
			if fired[fp] == 0 {
				t.Errorf("failpoint %s never fired", fp)
			}
		}
	}
	t.Logf("%d kills in %s; failpoints fired: %v", n, time.Since(began).Round(time.Second), fired)
	t.Logf("staff screen: %d sign-ins; sessions carried across a restart: %d taken, %d refused; %d sign-ins refused as too many; %d sign-outs, %d settings saves, %d logins added",
		d.screen.signIns, d.screen.kept, d.screen.lost, d.screen.limited, d.screen.signOuts, d.screen.saves, len(d.screen.added))

	// A last run without failpoints: its startup sweep repairs what the
	// kills left, and after the notice lease a sweep resends the claims
	// the kills cut off and delivers the webhooks still queued.
	s = start(t, bin, config, addr, data, database, "", n+1)
	time.Sleep(31 * time.Second)
	cli("", "sweep")
	d.resolveStays(context.Background(), s.url)
	replays(t, s.url, d.ledger)
	s.kill()
	// Every login the screen was told it added is there.
	users, err := exec.Command(bin, "staff", "users", "--config", config, "--data", data, "--database", database).CombinedOutput()
	if err != nil {
		t.Fatalf("frontdesk staff users: %v\n%s", err, users)
	}
	for _, u := range d.screen.added {
		if !strings.Contains(string(users), u) {
			t.Errorf("login %s, acknowledged as added at the staff screen, is missing", u)
		}
	}
	check(t, data, database, d.ledger, hooks)
	t.Logf("acknowledged: %s", d.ledger.summary())
}

// failpointWait is how long a round waits for its failpoint to fire.
const failpointWait = 20 * time.Second

// freeAddr is a loopback address no one listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// replays sends every acknowledged USP create again with its key: each
// must answer with the booking it first made, after every restart.
func replays(t *testing.T, base string, l *ledger) {
	ctx := context.Background()
	cs, err := connectUSP(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	l.mu.Lock()
	creates := slices.Clone(l.creates)
	l.mu.Unlock()
	for _, cr := range creates {
		var door uspDoor = rest{base: base}
		if cr.mcp {
			door = uspMCP{cs}
		}
		if ref, _ := door.create(ctx, cr); ref != cr.ref {
			t.Errorf("USP create %s replayed answered %q, first %s", cr.key, ref, cr.ref)
		}
	}
	t.Logf("%d acknowledged USP creates replayed, each with its booking", len(creates))
}

// receiver is the platform's webhook endpoint: it records each event it
// is sent and answers 200.
type receiver struct {
	mu  sync.Mutex
	got map[string]bool // "reference type"
}

func (h *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ev struct {
		Event     string `json:"event"`
		BookingID string `json:"booking_id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got[ev.BookingID+" "+ev.Event] = true
	h.mu.Unlock()
}

func (h *receiver) seen() map[string]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.got)
}

// linkSite is the destination of the tracked link.
const linkSite = "crash-partner.example"

// trackedLink makes a tracked link on the ORP host the way two partners
// would: one lists an affiliate offer and approves it, the other accepts
// it and approves the deal, whose tracking carries the link.
func trackedLink(t *testing.T, base string) string {
	t.Helper()
	maker, pub := orpJoin(t, base), orpJoin(t, base)
	terms := map[string]any{
		"title": "Crash partner: 10% of each booking", "kind": "affiliate", "categories": []string{"travel.lodging"},
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true},
				"destination": "https://" + linkSite + "/rooms", "proof": []string{"link"}},
			map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 1000, "window": "P30D", "rail": "stripe", "proof": []string{"provider"}},
		},
	}
	offered := maker.send(t, base, "offer", map[string]any{"terms": terms})
	listed := maker.approve(t, offered)
	accepted := pub.send(t, base, "accept", map[string]any{"offer": body(listed)["id"], "terms_hash": body(offered)["terms_hash"]})
	active := pub.approve(t, accepted)
	tracking, _ := body(active)["tracking"].([]any)
	if len(tracking) == 0 {
		t.Fatalf("deal without tracking: %v", active)
	}
	link, _ := tracking[0].(map[string]any)["link"].(string)
	if link == "" {
		t.Fatalf("tracking without a link: %v", tracking)
	}
	return link
}

// party is an ORP party speaking the HTTP binding.
type party struct {
	id, token string
	n         int
}

func orpJoin(t *testing.T, base string) *party {
	t.Helper()
	status, out := orpPost(t, base+"/orp/join", "", map[string]any{"agent": map[string]any{"name": "crash", "version": "1"}})
	if status != http.StatusCreated {
		t.Fatalf("join = %d %v", status, out)
	}
	id, _ := out["party"].(string)
	token, _ := out["token"].(string)
	return &party{id: id, token: token}
}

// send sends one message and returns the reply.
func (p *party) send(t *testing.T, base, typ string, b map[string]any) map[string]any {
	t.Helper()
	p.n++
	m := map[string]any{"orp": "0.3", "type": typ, "id": fmt.Sprintf("m_crash_%04d", p.n), "ts": time.Now().UTC().Format(time.RFC3339), "from": p.id, "body": b}
	status, out := orpPost(t, base+"/orp", p.token, m)
	if status != http.StatusOK {
		t.Fatalf("%s = %d %v", typ, status, out)
	}
	return out
}

// approve opens the approval page a reply waits on and approves it.
func (p *party) approve(t *testing.T, reply map[string]any) map[string]any {
	t.Helper()
	waiting, _ := body(reply)["waiting"].(map[string]any)
	target, _ := waiting["url"].(string)
	status, out := orpPost(t, target, p.token, nil)
	if status != http.StatusOK {
		t.Fatalf("approve = %d %v", status, out)
	}
	return out
}

func body(m map[string]any) map[string]any { b, _ := m["body"].(map[string]any); return b }

func orpPost(t *testing.T, target, token string, in any) (int, map[string]any) {
	t.Helper()
	var b []byte
	if in != nil {
		b, _ = json.Marshal(in)
	}
	req, _ := http.NewRequest(http.MethodPost, target, bytes.NewReader(b))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out) // an empty or non-JSON answer fails on its status
	return resp.StatusCode, out
}

// doubles is how many doubles Riverside Inn has in the demo.
const doubles = 2

// The stays every door races for: stayWindows windows of two nights
// from firstNight, a month ahead (past the 48-hour cancellation cutoff),
// all within the demo's 550 days of advance booking.
var firstNight = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 30)

const stayWindows = 200
