package crash

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the demo's time zone, wherever the harness runs

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/reservation"
)

// doors drives every door of one server for the same units until stop:
// chat guests booking and cancelling, booking-form requests, staff
// accepting and moving from the command line and at the staff screen,
// walk-ins booked at the staff screen, platforms over USP REST and USP
// MCP, and browsers following a tracked link.
type doors struct {
	bin, config, data, database string
	signature                   string   // a drawn signature for the booking form
	link                        string   // the tracked link, once made
	stays                       []string // pages of form requests filed, to read their references from
	base                        int      // the round's first window
	ledger                      *ledger
	screen                      *screen // the staff screen's session, kept across restarts
	seq                         int     // makes every guest's address new
	mu                          sync.Mutex
}

func (d *doors) next() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	return d.seq
}

// drive runs every door against s until stop and returns once all have
// stopped; seed makes the doors' random choices.
func (d *doors) drive(s *server, stop <-chan struct{}, seed uint64) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }()
	var wg sync.WaitGroup
	for g := range chatGuests {
		wg.Go(func() { d.chat(ctx, s, g) })
	}
	wg.Go(func() { d.form(ctx, s, rand.New(rand.NewPCG(seed, 1))) })
	wg.Go(func() { d.staff(ctx, rand.New(rand.NewPCG(seed, 2))) })
	wg.Go(func() { d.staffScreen(ctx, s, rand.New(rand.NewPCG(seed, 5))) })
	wg.Go(func() { d.usp(ctx, rest{base: s.url}, rand.New(rand.NewPCG(seed, 3))) })
	wg.Go(func() {
		cs, err := connectUSP(ctx, s.url)
		if err != nil {
			return
		}
		defer cs.Close()
		d.usp(ctx, uspMCP{cs}, rand.New(rand.NewPCG(seed, 4)))
	})
	wg.Go(func() { d.clicks(ctx) })
	wg.Wait()
	cancel()
}

// chatGuests is how many chat guests race in each round.
const chatGuests = 4

// stay is the n-th stay of the round's windows: every door races for
// the same roundWindows windows of two nights, and each round moves on
// by roundStep windows, so a long run keeps finding nights to race for.
func (d *doors) stay(n int) (time.Time, time.Time) {
	in := firstNight.AddDate(0, 0, (d.base+n%roundWindows)%stayWindows*2)
	return in, in.AddDate(0, 0, 2)
}

const (
	roundWindows = 10
	roundStep    = 5
)

var (
	refPattern  = regexp.MustCompile(`\b(RIV-[0-9A-F]{16})\b`)
	codePattern = regexp.MustCompile(`code is (\d{6})\.`)
	// The request-sent page shows the reference in groups of four.
	formSent  = regexp.MustCompile(`Request <span class="ref">(RIV-[0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4})</span> is with our staff`)
	formToken = regexp.MustCompile(`name="token" value="([A-Z]{2,6}\.[A-Za-z0-9_-]{43})"`)
)

// chat is one chat guest: it books with start_booking, the mailed code
// and confirm_booking; every third booking it then cancels in the two
// steps of cancel_booking, the others it leaves to staff.
func (d *doors) chat(ctx context.Context, s *server, g int) {
	client := mcp.NewClient(&mcp.Implementation{Name: "crash", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
	if err != nil {
		return
	}
	defer cs.Close()
	for i := 0; ctx.Err() == nil; i++ {
		email := fmt.Sprintf("guest%d@example.com", d.next())
		in, out := d.stay(i + g)
		text, ok := call(ctx, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double",
			"checkin": in.Format(time.DateOnly), "checkout": out.Format(time.DateOnly), "guest_name": "Crash Guest", "email": email, "phone": "+1 303 555 0199"})
		var start struct {
			BookingID string `json:"booking_id"`
		}
		if !ok || json.Unmarshal([]byte(lastLine(text)), &start) != nil || start.BookingID == "" {
			continue
		}
		code := codeFor(ctx, s.url, email, "")
		if code == "" {
			continue
		}
		text, ok = call(ctx, cs, "confirm_booking", map[string]any{"booking_id": start.BookingID, "code": code})
		ref := refPattern.FindString(text)
		if !ok || ref == "" {
			continue
		}
		d.ledger.ack(ref, "chat booking", reservation.Reserved)
		if i%3 != 0 {
			d.ledger.handOver(ref)
			continue
		}
		text, ok = call(ctx, cs, "cancel_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
		var step struct {
			CancelID string `json:"cancel_id"`
		}
		if !ok || json.Unmarshal([]byte(lastLine(text)), &step) != nil || step.CancelID == "" {
			continue // no code was sent: nothing changed
		}
		cancelCode := codeFor(ctx, s.url, email, code)
		if cancelCode == "" {
			continue
		}
		text, ok = call(ctx, cs, "cancel_booking", map[string]any{"cancel_id": step.CancelID, "code": cancelCode})
		var done struct {
			Status string `json:"status"`
		}
		switch {
		case ok && json.Unmarshal([]byte(lastLine(text)), &done) == nil && done.Status == "cancelled":
			d.ledger.ack(ref, "chat cancellation", reservation.Cancelled)
		case !ok && text == "":
			d.ledger.unanswered(ref, reservation.Cancelled)
		}
	}
}

// call calls a tool and returns its text blocks, one a line, ending with
// the structured result as JSON; ok is false for a refusal or a failed
// call, whose text is empty.
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

// codeFor reads the newest code mailed to email other than old from the
// dev mailbox, waiting a little for it.
func codeFor(ctx context.Context, base, email, old string) string {
	for range 20 {
		if c := newestCode(ctx, base, email); c != "" && c != old {
			return c
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(100 * time.Millisecond):
		}
	}
	return ""
}

func newestCode(ctx context.Context, base, email string) string {
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

// proxied is a client that reaches the server through the address the
// config trusts as a reverse proxy, so that each request can name its
// own client in X-Forwarded-For: the per-address limits of the form and
// of clicks then see many browsers, as they would in production.
var proxied = &http.Client{
	Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(proxyAddr)}}).DialContext},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
	Timeout: 30 * time.Second,
}

const proxyAddr = "127.0.0.2"

// browser is a request from the n-th browser behind the proxy.
func browser(ctx context.Context, method, target string, n int, body io.Reader) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, method, target, body)
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255))
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36")
	return req
}

// form files booking-form requests for the same doubles, each with the
// one-time token of the page it was read from; staff decide them.
func (d *doors) form(ctx context.Context, s *server, r *rand.Rand) {
	d.resolveStays(ctx, s.url)
	for ctx.Err() == nil {
		n := d.next()
		resp, err := proxied.Do(browser(ctx, http.MethodGet, s.url+"/book/riverside", n, nil))
		if err != nil {
			return
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		token := formToken.FindSubmatch(page)
		if token == nil {
			continue
		}
		in, out := d.stay(r.IntN(roundWindows))
		form := url.Values{"roomtype": {"double"}, "checkin": {in.Format(time.DateOnly)}, "checkout": {out.Format(time.DateOnly)}, "guests": {"2"},
			"name": {"Crash Form"}, "email": {fmt.Sprintf("form%d@example.com", n)}, "phone": {"(303) 555-0142"},
			"signature": {d.signature}, "token": {string(token[1])}}
		req := browser(ctx, http.MethodPost, s.url+"/book/riverside", n, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err = proxied.Do(req)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body) // the redirect is the answer
		resp.Body.Close()
		if resp.StatusCode == http.StatusSeeOther {
			d.stays = append(d.stays, resp.Header.Get("Location"))
		}
		d.resolveStays(ctx, s.url)
		pause(ctx, 200*time.Millisecond)
	}
}

// resolveStays reads the reference of each request filed from the page
// its form redirected to, which says it is with staff: the redirect is
// the acknowledgement, and a page a kill cut off is read after the
// restart.
func (d *doors) resolveStays(ctx context.Context, base string) {
	for len(d.stays) > 0 {
		resp, err := proxied.Do(browser(ctx, http.MethodGet, base+d.stays[0], d.next(), nil))
		if err != nil {
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return // cut off by a kill: read again after the restart
		}
		if m := formSent.FindSubmatch(body); resp.StatusCode == http.StatusOK && m != nil {
			ref := strings.ReplaceAll(string(m[1]), " ", "")
			d.ledger.ack(ref, "form request", reservation.Requested)
			d.ledger.handOver(ref)
		} else {
			d.ledger.lose(fmt.Sprintf("form request filed, its page answered %d", resp.StatusCode))
		}
		d.stays = d.stays[1:]
	}
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// staff takes the requests and bookings handed over and decides them
// with `frontdesk staff`, each command in its own process on the same
// store: each is confirmed, and every third one confirmed then moved. A
// command runs to its end even after the round ends, as staff at a desk
// do not stop with the server.
func (d *doors) staff(ctx context.Context, r *rand.Rand) {
	for ctx.Err() == nil {
		ref, ok := d.ledger.take(r)
		if !ok {
			pause(ctx, 100*time.Millisecond)
			continue
		}
		if d.decide(ref, "confirm", reservation.Confirmed) && r.IntN(3) == 0 {
			d.decide(ref, "move", reservation.Moved)
		}
	}
}

// decide runs one staff decision and reports whether it was answered done.
func (d *doors) decide(ref, action string, to reservation.State) bool {
	args := []string{"staff", action, ref, "--config", d.config, "--data", d.data, "--by", "crash"}
	if d.database != "" {
		args = append(args, "--database", d.database)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(d.bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case err == nil && strings.HasPrefix(string(out), ref+" is "+string(to)):
		d.ledger.ack(ref, "staff "+action, to)
		return true
	case err != nil && strings.Contains(stderr.String(), reservation.ErrUnitTaken.Message):
		// refused: another door took the units first
	case err != nil:
		d.ledger.unanswered(ref, to)
	}
	return false
}

// uspDoor is one binding of USP: it holds a slot, creates a booking on
// the hold under an idempotency key and cancels one. ok is false when
// no answer came; a refusal is an answer.
type uspDoor interface {
	hold(ctx context.Context, slot string) (hold string, ok bool)
	create(ctx context.Context, cr uspCreate) (ref string, ok bool)
	cancel(ctx context.Context, ref string) (cancelled, ok bool)
}

// usp is one platform booking the same doubles, a night at a time:
// first it retries the creates a kill left unanswered, with their keys,
// then it holds, creates, and cancels every other booking it made,
// handing the rest to staff.
func (d *doors) usp(ctx context.Context, door uspDoor, r *rand.Rand) {
	_, isMCP := door.(uspMCP)
	what := "usp rest"
	if isMCP {
		what = "usp mcp"
	}
	for _, cr := range d.ledger.pending(isMCP) {
		ref, ok := door.create(ctx, cr)
		switch {
		case ok && ref != "":
			cr.ref = ref
			d.ledger.ackUSP(cr, what+" booking (retried)")
			d.ledger.handOver(ref)
		case ok:
			d.ledger.dropRetry(cr.key)
		}
	}
	for i := 0; ctx.Err() == nil; i++ {
		in, _ := d.stay(r.IntN(roundWindows))
		night := in.AddDate(0, 0, r.IntN(2))
		slot := "slot_riverside_double_" + checkin(night).Format("20060102T1504Z")
		h, ok := door.hold(ctx, slot)
		if !ok {
			return
		}
		if h == "" {
			pause(ctx, 50*time.Millisecond)
			continue
		}
		cr := uspCreate{mcp: isMCP, key: uuid(), body: map[string]any{"service_id": "svc_riverside_double", "slot_id": slot, "hold_id": h,
			"buyer": map[string]any{"first_name": "Crash", "last_name": "Platform", "email": fmt.Sprintf("usp%d@example.com", d.next())}}}
		d.ledger.sent(cr)
		ref, ok := door.create(ctx, cr)
		if !ok {
			return
		}
		if ref == "" {
			d.ledger.dropRetry(cr.key)
			continue
		}
		cr.ref = ref
		d.ledger.ackUSP(cr, what+" booking")
		if i%2 != 0 {
			d.ledger.handOver(ref)
			continue
		}
		cancelled, ok := door.cancel(ctx, ref)
		switch {
		case !ok:
			d.ledger.unanswered(ref, reservation.Cancelled)
			return
		case cancelled:
			d.ledger.ack(ref, what+" cancellation", reservation.Cancelled)
		}
	}
}

// checkin is the instant a night's stay begins at Riverside, in UTC: the
// demo's check-in hour in its time zone, as USP names the night's slot.
func checkin(night time.Time) time.Time {
	denver, err := time.LoadLocation("America/Denver")
	if err != nil {
		panic(err) // time/tzdata is linked in
	}
	return time.Date(night.Year(), night.Month(), night.Day(), 15, 0, 0, 0, denver).UTC()
}

// uuid is a random version 4 UUID, as USP wants its idempotency keys.
func uuid() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// The harness's platform: its API key, and the profile pinned for it.
const (
	platformKey     = "crash-platform-key"
	platformProfile = "https://crash-platform.example/usp.json"
)

const profileDocument = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// rest is USP over REST at base.
type rest struct{ base string }

// post sends one privileged call; ok is false when no answer came.
func (u rest) post(ctx context.Context, path, key string, body any) (int, map[string]any, bool) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+platformKey)
	req.Header.Set("USP-Agent", `profile="`+platformProfile+`"`)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, false
	}
	defer resp.Body.Close()
	// A body cut off by a kill is no answer, whatever the status said.
	var out map[string]any
	if json.NewDecoder(resp.Body).Decode(&out) != nil {
		return resp.StatusCode, nil, false
	}
	return resp.StatusCode, out, true
}

func (u rest) hold(ctx context.Context, slot string) (string, bool) {
	status, out, ok := u.post(ctx, "/usp/availability/holds", uuid(), map[string]any{"service_id": "svc_riverside_double", "slot_id": slot})
	if status != http.StatusCreated {
		return "", ok
	}
	return field(out, "hold", "id"), true
}

func (u rest) create(ctx context.Context, cr uspCreate) (string, bool) {
	status, out, ok := u.post(ctx, "/usp/bookings", cr.key, cr.body)
	if status != http.StatusCreated && status != http.StatusOK {
		return "", ok
	}
	return field(out, "booking", "id"), ok
}

func (u rest) cancel(ctx context.Context, ref string) (bool, bool) {
	status, out, ok := u.post(ctx, "/usp/bookings/"+ref+"/cancel", uuid(), map[string]any{"reason": "plans changed"})
	return status == http.StatusOK && field(out, "booking", "status") == "canceled", ok
}

// field reads out[object][name] as a string.
func field(out map[string]any, object, name string) string {
	o, _ := out[object].(map[string]any)
	s, _ := o[name].(string)
	return s
}

// uspMCP is USP over MCP at /usp/mcp, the API key on the HTTP transport.
type uspMCP struct{ cs *mcp.ClientSession }

type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+platformKey)
	return b.next.RoundTrip(r)
}

func connectUSP(ctx context.Context, base string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "crash-platform", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/usp/mcp", HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}}, nil)
}

// call calls a USP tool under key; ok is false when no answer came.
func (u uspMCP) call(ctx context.Context, tool, key string, args map[string]any) (map[string]any, bool) {
	in := map[string]any{"_meta": map[string]any{"usp": map[string]any{"profile": platformProfile, "idempotency_key": key}}}
	for k, v := range args {
		in[k] = v
	}
	res, err := u.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: in})
	if err != nil {
		return nil, false
	}
	out, _ := res.StructuredContent.(map[string]any)
	if res.IsError {
		return nil, true
	}
	return out, true
}

func (u uspMCP) hold(ctx context.Context, slot string) (string, bool) {
	out, ok := u.call(ctx, "usp_availability_hold", uuid(), map[string]any{"service_id": "svc_riverside_double", "slot_id": slot})
	return field(out, "hold", "id"), ok
}

func (u uspMCP) create(ctx context.Context, cr uspCreate) (string, bool) {
	out, ok := u.call(ctx, "usp_bookings_create", cr.key, cr.body)
	return field(out, "booking", "id"), ok
}

func (u uspMCP) cancel(ctx context.Context, ref string) (bool, bool) {
	out, ok := u.call(ctx, "usp_bookings_cancel", uuid(), map[string]any{"booking_id": ref, "reason": "plans changed"})
	return field(out, "booking", "status") == "canceled", ok
}

// clicks follows the tracked link from many browsers; every 302 whose
// Location carries a click id (via) is an acknowledged click.
func (d *doors) clicks(ctx context.Context) {
	if d.link == "" {
		return
	}
	for ctx.Err() == nil {
		resp, err := proxied.Do(browser(ctx, http.MethodGet, d.link, d.next(), nil))
		if err != nil {
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			continue
		}
		if loc, err := url.Parse(resp.Header.Get("Location")); err == nil && loc.Query().Get("via") != "" {
			d.ledger.click(loc.Query().Get("via"))
		}
		pause(ctx, 20*time.Millisecond)
	}
}
