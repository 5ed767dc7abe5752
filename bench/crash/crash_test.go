package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// failpoints are the boundaries serve's FRONTDESK_FAILPOINT knows, each
// tried before and after; "" is a kill at a random moment.
var failpoints = []string{"", "pending-registration", "proof-receipt", "record-creation", "inventory-hold",
	"notice-claim", "notice-queue", "cancellation-record", "index-release", "idempotency-write", "webhook-queue", "click-batch"}

// rounds is how many kills each engine gets: CRASH_ROUNDS, or one per
// failpoint (on alternating sides), which is what go test and CI run.
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
	if out, err := exec.Command("go", "build", "-o", bin, "frontdesk/cmd/frontdesk").CombinedOutput(); err != nil {
		t.Fatalf("build frontdesk: %v\n%s", err, out)
	}
	// The demo with its chat ceilings at their highest, so the harness
	// measures crashes, not the hourly code ceiling.
	demo, err := exec.Command(bin, "init", "--demo").Output()
	if err != nil {
		t.Fatal(err)
	}
	raised := regexp.MustCompile(`(?m)^(portfolio_email_hourly|portfolio_email_daily|location_email_hourly|location_pending|portfolio_pending) = \d+$`).
		ReplaceAll(demo, []byte("$1 = 1000"))
	config := filepath.Join(t.TempDir(), "crash.toml")
	if err := os.WriteFile(config, raised, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("sqlite", func(t *testing.T) { harness(t, bin, config, "") })
	t.Run("postgres", func(t *testing.T) { harness(t, bin, config, pgtest.Schema(t)) })
}

// server is one run of `frontdesk serve`.
type server struct {
	cmd  *exec.Cmd
	url  string
	done chan error
}

func start(t *testing.T, bin, config, data, database, failpoint string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "--config", config, "--addr", addr, "--data", data, "--log-level", "error"}
	if database != "" {
		args = append(args, "--database", database)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "FRONTDESK_FAILPOINT="+failpoint)
	log, err := os.OpenFile(filepath.Join(data, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, url: "http://" + addr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); log.Close() }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-s.done:
			t.Fatalf("serve exited before it was ready: %v (see %s)", err, filepath.Join(data, "serve.log"))
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

// acked is what clients were told happened: the references confirmed.
type acked struct {
	mu     sync.Mutex
	booked map[string]bool
}

var (
	refPattern  = regexp.MustCompile(`\b(RIV-[0-9A-F]{16})\b`)
	codePattern = regexp.MustCompile(`code is (\d{6})\.`)
)

// drive races guests for Riverside's doubles on the same nights until
// stop, two nights at a time over stayWindows windows: each starts a booking, reads its code from the dev mailbox and
// confirms. Every answer that claims a booking is recorded.
func drive(s *server, a *acked, guests int, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for g := range guests {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { <-stop; cancel() }()
			client := mcp.NewClient(&mcp.Implementation{Name: "crash", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
			if err != nil {
				return
			}
			defer cs.Close()
			for i := 0; ctx.Err() == nil; i++ {
				email := fmt.Sprintf("guest%d.%d.%d@example.com", g, i, time.Now().UnixNano()%100000)
				// Guests race for the same few nights at a time, and move on
				// to later ones as those sell out.
				in := firstNight.AddDate(0, 0, (i+g)%stayWindows*2)
				text, ok := call(ctx, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double",
					"checkin": in.Format(time.DateOnly), "checkout": in.AddDate(0, 0, 2).Format(time.DateOnly), "guest_name": "Crash Guest", "email": email, "phone": "+1 303 555 0199"})
				var start struct {
					BookingID string `json:"booking_id"`
				}
				if !ok || json.Unmarshal([]byte(lastLine(text)), &start) != nil || start.BookingID == "" {
					continue
				}
				code := codeFor(ctx, s.url, email)
				if code == "" {
					continue
				}
				text, ok = call(ctx, cs, "confirm_booking", map[string]any{"booking_id": start.BookingID, "code": code})
				ref := refPattern.FindString(text)
				if !ok || ref == "" {
					continue
				}
				a.mu.Lock()
				a.booked[ref] = true
				a.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// call calls a tool and returns its text blocks, one a line, ending with
// the structured result as JSON; ok is false for a refusal or a failed
// call.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false
	}
	var lines []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			lines = append(lines, tc.Text)
		}
	}
	structured, _ := json.Marshal(res.StructuredContent)
	lines = append(lines, string(structured))
	return strings.Join(lines, "\n"), !res.IsError
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

// codeFor reads the code mailed to email from the dev mailbox.
func codeFor(ctx context.Context, base, email string) string {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/dev/mail.json", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var box struct {
		Messages []struct {
			To   []string `json:"to"`
			Text string   `json:"text"`
		} `json:"messages"`
	}
	if json.NewDecoder(resp.Body).Decode(&box) != nil {
		return ""
	}
	msgs := box.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].To) == 1 && msgs[i].To[0] == email {
			if m := codePattern.FindStringSubmatch(msgs[i].Text); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

func harness(t *testing.T, bin, config, database string) {
	data := t.TempDir()
	a := &acked{booked: map[string]bool{}}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 27))
	n := rounds(t)
	for round := range n {
		fp := failpoints[round%len(failpoints)]
		if fp != "" {
			fp = []string{"before:", "after:"}[round%2] + fp
		}
		s := start(t, bin, config, data, database, fp)
		stop := make(chan struct{})
		driven := make(chan struct{})
		go func() { drive(s, a, 6, stop); close(driven) }()
		// A failpoint kills the server itself at its boundary; otherwise,
		// or when the boundary is not crossed in time, the kill comes at a
		// random moment.
		limit := time.Duration(200+r.IntN(1800)) * time.Millisecond
		if fp != "" {
			limit = 8 * time.Second
		}
		for end := time.Now().Add(limit); time.Now().Before(end) && !s.dead(); {
			time.Sleep(20 * time.Millisecond)
		}
		fired := s.dead()
		s.kill()
		close(stop)
		<-driven
		t.Logf("round %d: failpoint %q fired %v; %d bookings acknowledged so far", round, fp, fired, len(a.booked))
	}
	// A last run without failpoints: its startup sweep repairs what the
	// kills left, and after the notice lease a sweep resends the claims
	// the kills cut off.
	s := start(t, bin, config, data, database, "")
	time.Sleep(31 * time.Second)
	sweep := exec.Command(bin, "sweep", "--config", config, "--data", data)
	if database != "" {
		sweep.Args = append(sweep.Args, "--database", database)
	}
	if out, err := sweep.CombinedOutput(); err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	s.kill()
	check(t, data, database, a)
}

// check opens the store the server left and checks the invariants: every
// acknowledged booking exists, no night of a unit is held beyond its
// capacity, no reservation in a terminal state holds units, and every
// notice was delivered.
func check(t *testing.T, data, database string, a *acked) {
	ctx := context.Background()
	var st store.Store
	var err error
	if database != "" {
		st, err = postgres.Open(ctx, database)
	} else {
		st, err = sqlite.Open(ctx, filepath.Join(data, "frontdesk.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for ref := range a.booked {
		r, err := st.GetReservation(ctx, ref)
		if err != nil {
			t.Errorf("acknowledged booking %s: %v", ref, err)
			continue
		}
		if !reservation.State(r.State).HoldsUnits() && r.State != string(reservation.Cancelled) {
			t.Errorf("acknowledged booking %s is %s", ref, r.State)
		}
	}
	counts, err := st.Counts(ctx, "riverside", firstNight.Format(time.DateOnly), firstNight.AddDate(0, 0, 2*stayWindows).Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Unit == "double" && c.Held > doubles {
			t.Errorf("night %s: %d doubles held of %d: oversold", c.Slot, c.Held, doubles)
		}
	}
	for after := ""; ; {
		holds, err := st.Holds(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range holds {
			r, err := st.GetReservation(ctx, h.ID)
			if err == nil && reservation.State(r.State).Terminal() {
				t.Errorf("reservation %s is %s and still holds units", h.ID, r.State)
			}
		}
		if len(holds) < 1000 {
			break
		}
		after = holds[len(holds)-1].ID
	}
	notices, err := st.List(ctx, "booking-notice", "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notices {
		var v struct{ State string }
		json.Unmarshal(n.Value, &v)
		if v.State != "sent" {
			t.Errorf("notice %s is %s, not delivered", n.Key, v.State)
		}
	}
	t.Logf("%d bookings acknowledged, all stored; %d notices, all delivered", len(a.booked), len(notices))
}

// doubles is how many doubles Riverside Inn has in the demo.
const doubles = 2

// The stays the guests race for: stayWindows windows of two nights from
// firstNight.
var firstNight = time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)

const stayWindows = 40
