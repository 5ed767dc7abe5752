package main

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/payment/stripe"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/relay"
)

// splitDeployment is the demo written by init --split, started as
// separate processes of this test binary run as frontdesk: the hub and
// each location, on ports of their own.
type splitDeployment struct {
	dir, bin string
	hub      string            // the hub's origin
	origins  map[string]string // each location's, by slug
	procs    map[string]*exec.Cmd
	keys     []relay.Key
	// stores are each process's store flags: none for the SQLite
	// directories of the files, a PostgreSQL schema of its own otherwise.
	stores map[string][]string
}

// loopbackPort is a loopback port nothing listened on a moment ago.
func loopbackPort(t *testing.T) string { return fmt.Sprint(freePort(t)) }

// startSplit starts the demo split on engine; locationEnv is added to
// the locations' environment alone.
func startSplit(t *testing.T, engine string, locationEnv ...string) *splitDeployment {
	t.Helper()
	return startSplitEdited(t, engine, func(text string) string { return text }, locationEnv...)
}

// startSplitEdited is startSplit with every file's text changed by edit
// first.
func startSplitEdited(t *testing.T, engine string, edit func(string) string, locationEnv ...string) *splitDeployment {
	t.Helper()
	env := map[string][]string{}
	for _, slug := range []string{"riverside", "oldtown", "airport"} {
		env[slug] = locationEnv
	}
	return startSplitWith(t, engine, splitOptions{edit: edit, env: env})
}

// splitOptions change how startSplitWith starts the demo split.
type splitOptions struct {
	edit func(string) string // changes every file's text first; nil for none
	bin  string              // the frontdesk binary to run; "" for this test binary
	env  map[string][]string // added to the environment of the process so named
}

// startSplitWith starts the demo split on engine as o says.
func startSplitWith(t *testing.T, engine string, o splitOptions) *splitDeployment {
	t.Helper()
	edit := o.edit
	if edit == nil {
		edit = func(text string) string { return text }
	}
	d := &splitDeployment{dir: t.TempDir(), origins: map[string]string{}, procs: map[string]*exec.Cmd{}, stores: map[string][]string{}, bin: o.bin}
	if d.bin == "" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		d.bin = filepath.Join(d.dir, "frontdesk") // TestMain runs main under this name
		if err := os.Symlink(self, d.bin); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(d.bin, "init", "--split", d.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("init --split: %v\n%s", err, out)
	}
	// The fixed ports of the demo become free ones, in every file.
	ports := map[string]string{}
	free := freePorts(t, len(config.SplitPorts))
	for i, p := range config.SplitPorts {
		ports[fmt.Sprintf("127.0.0.1:%d", p)] = fmt.Sprintf("127.0.0.1:%d", free[i])
	}
	names := []string{"hub", "riverside", "oldtown", "airport"}
	for _, name := range names {
		path := filepath.Join(d.dir, name+".toml")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := edit(string(b))
		for from, to := range ports {
			text = strings.ReplaceAll(text, from, to)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(d.bin, "check-config", path).CombinedOutput(); err != nil {
			t.Fatalf("check-config %s: %v\n%s", name, err, out)
		}
	}
	secret, err := os.ReadFile(filepath.Join(d.dir, "relay.secret"))
	if err != nil {
		t.Fatal(err)
	}
	if d.keys, err = relay.ParseKeys(string(secret)); err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		if engine == "postgres" {
			d.stores[name] = []string{"--database", pgtest.Schema(t)}
		}
		origin := "http://" + ports[fmt.Sprintf("127.0.0.1:%d", config.SplitPorts[i])]
		if name == "hub" {
			d.hub = origin
			continue
		}
		d.origins[name] = origin
		d.start(t, name, append([]string{"location", "--slug", name, "--config", filepath.Join(d.dir, name+".toml")}, d.stores[name]...), o.env[name])
	}
	for name, origin := range d.origins {
		waitReady(t, name, origin)
	}
	// The hub starts once its locations serve, as in production: it
	// publishes their USP signing keys from the start.
	d.start(t, "hub", append([]string{"hub", "--config", filepath.Join(d.dir, "hub.toml")}, d.stores["hub"]...), o.env["hub"])
	waitReady(t, "hub", d.hub)
	return d
}

// start runs one process, with env added to the test's environment,
// until the test ends.
func (d *splitDeployment) start(t *testing.T, name string, args, env []string) {
	t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = d.dir
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.procs[name] = cmd
	t.Cleanup(func() {
		d.stop(name)
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, logs.String())
		}
	})
}

// stop ends the process name, if it still runs, and waits for it.
func (d *splitDeployment) stop(name string) {
	cmd := d.procs[name]
	if cmd == nil || cmd.ProcessState != nil {
		return
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitReady(t *testing.T, name, origin string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(origin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s at %s was not ready within 30 s", name, origin)
}

// relayCall sends a start_booking call to a location's relay endpoint
// as the hub would, signed with key at the time given, and returns the
// status and the refusal's message.
func (d *splitDeployment) relayCall(t *testing.T, slug string, body []byte, keys []relay.Key, at time.Time, nonce string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.origins[slug]+relay.PathPrefix+relay.OpStart, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	relay.Sign(req, body, keys, at, nonce)
	status, b := roundTrip(t, req)
	var answer struct {
		Refusal *struct{ Message string } `json:"refusal"`
	}
	if err := json.Unmarshal([]byte(b), &answer); err != nil {
		t.Fatalf("relay answer %q: %v", b, err)
	}
	if answer.Refusal == nil {
		return status, ""
	}
	return status, answer.Refusal.Message
}

// roundTrip sends req and returns the status and the body of the answer.
func roundTrip(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSplitDeployment: the demo split into a hub and three location
// processes books through the hub's chat tools into the owning
// location's store; each location's relay endpoint refuses a forged,
// replayed or stale call without doing anything; and a stopped location
// gives the outage sentence for itself alone while another keeps
// booking.
func TestSplitDeployment(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitDeployment(t, engine) })
	}
}

func testSplitDeployment(t *testing.T, engine string) {
	d := startSplit(t, engine)
	demo := config.Demo()
	phones := map[string]string{}
	for _, l := range demo.Locations {
		phones[l.Slug] = l.Phone
	}
	cs := connect(t, d.hub+"/mcp", "2025-11-25")
	in := time.Now().AddDate(0, 0, 40).Format(time.DateOnly)
	out := time.Now().AddDate(0, 0, 42).Format(time.DateOnly)
	book := func(t *testing.T, slug, email string) string {
		t.Helper()
		res, started := callTool(t, cs, "start_booking", map[string]any{"property": slug, "roomtype": "double", "checkin": in, "checkout": out,
			"guest_name": "Ada Lovelace", "email": email, "phone": "+1 303 555 0199"})
		if res.IsError {
			t.Fatalf("start at %s: %s", slug, text(res))
		}
		code := latestCode(t, d.origins[slug], email)
		res, confirmed := callTool(t, cs, "confirm_booking", map[string]any{"booking_id": started["booking_id"], "code": code})
		if res.IsError {
			t.Fatalf("confirm at %s: %s", slug, text(res))
		}
		return confirmed["reservation_number"].(string)
	}

	t.Run("a booking lands in its location's store", func(t *testing.T) {
		ref := book(t, "riverside", "ada@example.com")
		if !strings.HasPrefix(ref, "RIV-") {
			t.Fatalf("reservation number %s", ref)
		}
		res, got := callTool(t, cs, "get_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
		if res.IsError || got["reservation_number"] != ref {
			t.Fatalf("get_booking through the hub: %s", text(res))
		}
		list := func(name string) string {
			out, err := exec.Command(d.bin, append([]string{"staff", "list", "--config", filepath.Join(d.dir, name+".toml")}, d.stores[name]...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("staff list at %s: %v\n%s", name, err, out)
			}
			return string(out)
		}
		if !strings.Contains(list("riverside"), ref) {
			t.Fatalf("riverside's store does not hold %s", ref)
		}
		for _, other := range []string{"hub", "oldtown"} {
			if strings.Contains(list(other), ref) {
				t.Fatalf("%s's store holds %s", other, ref)
			}
		}
		if n := len(devMessages(t, d.hub)); n != 0 {
			t.Fatalf("the hub sent %d messages; the location sends its own", n)
		}
	})

	t.Run("the relay refuses forged, replayed and stale calls", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"slug": "oldtown", "args": map[string]any{"property": "oldtown", "roomtype": "single",
			"checkin": in, "checkout": out, "guest_name": "Grace Hopper", "email": "grace@example.com", "phone": "+1 303 555 0188"}})
		nonce := func() string {
			b := make([]byte, 16)
			rand.Read(b)
			return hex.EncodeToString(b)
		}
		before := len(devMessages(t, d.origins["oldtown"]))
		first, at := nonce(), time.Now()
		if status, msg := d.relayCall(t, "oldtown", body, d.keys, at, first); status != http.StatusOK || msg != "" {
			t.Fatalf("a signed call = %d %q", status, msg)
		}
		if n := len(devMessages(t, d.origins["oldtown"])); n != before+1 {
			t.Fatalf("the signed call sent %d messages, want 1", n-before)
		}
		want := "The relayed call was not accepted. Nothing was changed. Call " + demo.Business.Phone + "."
		stranger := []relay.Key{{N: 1, Key: bytes.Repeat([]byte{7}, 32)}}
		for _, tt := range []struct {
			name string
			keys []relay.Key
			at   time.Time
		}{
			{"replayed", d.keys, at}, // the first call again, byte for byte
			{"forged", stranger, time.Now()},
			{"stale", d.keys, time.Now().Add(-2 * time.Minute)},
			{"from the future", d.keys, time.Now().Add(2 * time.Minute)},
		} {
			n := nonce()
			if tt.name == "replayed" {
				n = first
			}
			if status, msg := d.relayCall(t, "oldtown", body, tt.keys, tt.at, n); status != http.StatusUnauthorized || msg != want {
				t.Errorf("%s call = %d %q, want 401 %q", tt.name, status, msg, want)
			}
		}
		if n := len(devMessages(t, d.origins["oldtown"])); n != before+1 {
			t.Fatalf("refused calls sent %d messages", n-before-1)
		}
	})

	t.Run("a stopped location is out alone", func(t *testing.T) {
		d.stop("oldtown")
		res, _ := callTool(t, cs, "start_booking", map[string]any{"property": "oldtown", "roomtype": "double", "checkin": in, "checkout": out,
			"guest_name": "Ada Lovelace", "email": "ada2@example.com", "phone": "+1 303 555 0199"})
		want := "This booking cannot be checked right now. Try again in a few minutes or call " + phones["oldtown"] + ".\n" +
			d.hub + "/book/oldtown?roomtype=double&checkin=" + in + "&checkout=" + out
		if !res.IsError || text(res) != want {
			t.Fatalf("start at a stopped location = %q, want %q", text(res), want)
		}
		res, _ = callTool(t, cs, "find_rooms", map[string]any{"checkin": in, "checkout": out})
		if unread := "Old Town Lodge could not be read just now: call " + phones["oldtown"] + " or try again."; res.IsError || !strings.Contains(text(res), unread) {
			t.Fatalf("find_rooms with a location stopped = %q, want the others' rooms and %q", text(res), unread)
		}
		if ref := book(t, "airport", "ada3@example.com"); !strings.HasPrefix(ref, "APS-") {
			t.Fatalf("airport reservation number %s", ref)
		}
	})

	t.Run("the hub proxies a property's page and form to its location", func(t *testing.T) {
		for _, path := range []string{"/book/riverside?roomtype=double&checkin=" + in + "&checkout=" + out, "/properties/airport"} {
			resp, err := http.Get(d.hub + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			name := map[bool]string{true: "Riverside Inn", false: "Airport Suites"}[strings.HasPrefix(path, "/book/")]
			if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(name)) {
				t.Fatalf("GET %s at the hub = %d", path, resp.StatusCode)
			}
		}
		resp, err := http.Get(d.hub + "/book/nowhere")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET /book/nowhere at the hub = %d, want 404", resp.StatusCode)
		}
		// Old Town Lodge was stopped above: its pages say so, with its
		// phone and nothing of where the hub reaches it.
		resp, err = http.Get(d.hub + "/properties/oldtown")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(b, []byte("Old Town Lodge cannot be reached just now")) ||
			!bytes.Contains(b, []byte(strings.TrimPrefix(phones["oldtown"], "+"))) || bytes.Contains(b, []byte(strings.TrimPrefix(d.origins["oldtown"], "http://"))) {
			t.Fatalf("GET /properties/oldtown with its location stopped = %d\n%s", resp.StatusCode, b)
		}
	})

	t.Run("a form sent at the hub lands on its stay page through the hub", func(t *testing.T) {
		form := url.Values{"roomtype": {"double"}, "checkin": {in}, "checkout": {out}, "guests": {"2"}, "name": {"Grace Hopper"},
			"email": {"grace.form@example.com"}, "phone": {"(303) 555-0142"}, "signature": {signaturetest.Drawn(t)},
			"token": {formToken(t, d.hub+"/book/riverside")}}
		resp, err := http.PostForm(d.hub+"/book/riverside", form)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ref := findSent(string(b))
		if resp.StatusCode != http.StatusOK || ref == nil || !strings.HasPrefix(resp.Request.URL.String(), d.hub+"/stay/RIV.") {
			t.Fatalf("the form sent at the hub ended at %s = %d\n%s", resp.Request.URL, resp.StatusCode, b)
		}
		stay := resp.Request.URL.Path
		if !strings.Contains(d.staffList(t, "riverside"), ref[1]) || strings.Contains(d.staffList(t, "hub"), ref[1]) {
			t.Fatalf("%s is not riverside's alone", ref[1])
		}
		page := func(path string) (int, string) {
			t.Helper()
			resp, err := http.Get(d.hub + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, string(b)
		}
		if status, body := page(stay); status != http.StatusOK || !strings.Contains(body, ref[2]) {
			t.Fatalf("GET %s at the hub = %d", stay, status)
		}
		// The page's own form, sent at the hub from the page's origin,
		// acts at the location and comes back to the page at the hub.
		req, _ := http.NewRequest(http.MethodPost, d.hub+stay+"/withdraw", nil)
		req.Header.Set("Origin", d.hub)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Request.URL.String() != d.hub+stay+"?done=withdrawn" || !bytes.Contains(b, []byte("Your request is withdrawn")) {
			t.Fatalf("withdrawal at the hub ended at %s = %d\n%s", resp.Request.URL, resp.StatusCode, b)
		}
		if list := d.staffList(t, "riverside"); !regexp.MustCompile(ref[1] + `  riverside .* cancelled  form`).MatchString(list) {
			t.Fatalf("riverside's list after the withdrawal:\n%s", list)
		}
		// A token that names no location of the split, or the random part
		// alone, gets the hub's own page: no location is tried.
		random := strings.TrimPrefix(stay, "/stay/RIV.")
		for _, path := range []string{"/stay/ZZZ." + random, "/stay/" + random, "/stay/XYZ." + random + "/stay.ics"} {
			if status, body := page(path); status != http.StatusNotFound || !strings.Contains(body, "The link to your stay may be cut short") {
				t.Errorf("GET %s at the hub = %d, want its own 404\n%s", path, status, body)
			}
		}
	})

	t.Run("the hub serves a listing's feed from its location", func(t *testing.T) {
		d.addOwner(t, "riverside", "olga")
		olga := d.signInAt(t, "riverside", "olga")
		_, _, body := olga.do("GET", "/staff/channels", nil)
		feed := regexp.MustCompile(`/channels/RIV\.[a-z2-7]{32}\.ics`).FindString(body)
		if feed == "" {
			t.Fatalf("riverside's channels page names no feed of its own:\n%s", body)
		}
		resp, err := http.Get(d.hub + feed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/calendar; charset=utf-8" || !bytes.Contains(b, []byte("X-WR-CALNAME:Riverside Inn")) {
			t.Fatalf("GET %s at the hub = %d %q\n%s", feed, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		resp, err = http.Get(d.hub + strings.Replace(feed, "RIV.", "APS.", 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("the feed's token under Airport Suites' prefix = %d, want its 404", resp.StatusCode)
		}
	})
}

// staffList is `frontdesk staff list` on the store of name.
func (d *splitDeployment) staffList(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command(d.bin, append([]string{"staff", "list", "--config", filepath.Join(d.dir, name+".toml")}, d.stores[name]...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("staff list at %s: %v\n%s", name, err, out)
	}
	return string(out)
}

// TestSplitCommandsTakeTheirOwnFiles: init --split names the files it
// writes; hub, location and serve each refuse a file of another kind
// before opening anything, and location refuses a slug the file lacks.
func TestSplitCommandsTakeTheirOwnFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, _, err := runCmd(t, "init", "--split", dir)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, name := range []string{"hub", "riverside", "oldtown", "airport"} {
		want += filepath.Join(dir, name+".toml") + "\n"
	}
	if out != want {
		t.Fatalf("init --split printed %q, want %q", out, want)
	}
	demo := filepath.Join(dir, "demo.toml")
	if err := os.WriteFile(demo, config.DemoTOML, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--config", filepath.Join(dir, "hub.toml")}, `serve: the config's split.role is "hub"; run it with frontdesk hub`},
		{[]string{"hub", "--config", filepath.Join(dir, "oldtown.toml")}, `hub: the config's split.role is "location"; run it with frontdesk location`},
		{[]string{"location", "--slug", "oldtown", "--config", demo}, `location: the config's split.role is ""; run it with frontdesk serve`},
		{[]string{"location", "--slug", "beach", "--config", filepath.Join(dir, "oldtown.toml")}, `location: --slug "beach" names no location of the config`},
	} {
		if _, _, err := runCmd(t, tt.args...); err == nil || err.Error() != tt.want {
			t.Errorf("%v = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestSplitPaymentEvents: the hub, which has no payment provider, passes
// a provider's event to the location whose reservation it names, body
// and signature untouched, and that location checks the signature with
// its own secret.
func TestSplitPaymentEvents(t *testing.T) {
	const secret = "whsec_split"
	// The locations take events; none is asked for a checkout here, so
	// the mock's address is never dialled.
	d := startSplit(t, "sqlite", stripe.EnvMock+"=http://127.0.0.1:1", stripe.EnvWebhookSecret+"="+secret)
	session := map[string]any{"id": "cs_split", "object": "checkout.session",
		"metadata": map[string]string{"frontdesk_payment": "pay_000000000000000000000000", "reference": "RIV-00112233AABBCCDD"}}
	send := func(body []byte, signature string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, d.hub+"/payments/stripe", bytes.NewReader(body))
		req.Header.Set("Stripe-Signature", signature)
		req.Header.Set("Content-Type", "application/json")
		return roundTrip(t, req)
	}
	body, sig := stripemock.Event(t, secret, "evt_split", "checkout.session.completed", session, time.Now())
	// Riverside's answer: the signature verifies, and the payment is none
	// of its own. The hub alone would not know the event at all (404).
	if status, answer := send(body, sig); status != http.StatusOK || !strings.Contains(answer, "names no payment of this business") {
		t.Fatalf("a signed event through the hub = %d %s", status, answer)
	}
	if status, _ := send(body, stripemock.Sign(body, "whsec_forged", time.Now())); status != http.StatusBadRequest {
		t.Fatalf("a forged event through the hub = %d, want the location's 400", status)
	}
}

// addOwner adds user as an owner at location slug, with staffPassword,
// as its operator would: through the location's own config and store.
func (d *splitDeployment) addOwner(t *testing.T, slug, user string) {
	t.Helper()
	d.addUser(t, slug, user, "--role", "owner")
}

// addUser adds user at the process name (a location's slug, or "hub")
// with staffPassword and the flags scope, through its config and store.
func (d *splitDeployment) addUser(t *testing.T, name, user string, scope ...string) {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte(staffPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	add := append(append([]string{"staff", "add-user", "--username", user, "--password-file", pw, "--config", filepath.Join(d.dir, name+".toml")}, scope...), d.stores[name]...)
	if out, err := exec.Command(d.bin, add...).CombinedOutput(); err != nil {
		t.Fatalf("staff add-user at %s: %v\n%s", name, err, out)
	}
}

// signInAt signs user in at the process name's own origin: a
// location's, or the hub's for "hub".
func (d *splitDeployment) signInAt(t *testing.T, name, user string) *staffClient {
	t.Helper()
	c := &staffClient{t: t, base: cmp.Or(d.origins[name], d.hub)}
	status, h, body := c.do("POST", "/staff/signin", url.Values{"username": {user}, "password": {staffPassword}})
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == "frontdesk_staff" {
			c.cookie = ck.Value
		}
	}
	if status != http.StatusSeeOther || c.cookie == "" {
		t.Fatalf("sign-in at %s = %d %s", name, status, body)
	}
	return c
}
