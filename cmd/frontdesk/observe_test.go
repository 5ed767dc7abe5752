package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/clock"
	"frontdesk/internal/metrics"
)

// jsonLines decodes every line of a JSON log.
func jsonLines(t *testing.T, log string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q is not JSON", l)
		}
		out = append(out, v)
	}
	return out
}

// TestBookingLogLinesAndMetrics books over USP REST through a trusted
// proxy and checks what an operator traces a complaint with: the answer
// echoes the request id, the booking's log lines carry it and the
// reference and no guest data, the start line names version, addresses,
// engine and config, and /metrics counts the booking, the refusal and
// the queues.
func TestBookingLogLinesAndMetrics(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m, platform := startUSPDemo(t, "", func(m *Main) {
		m.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		m.Config.Deployment.TrustedProxies = []string{"127.0.0.1"}
	})
	day := testNow.AddDate(0, 0, 3).Format("2006-01-02")
	_, _, body := post(t, m.URL+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	headers := map[string]string{"X-Request-Id": "proxy-req-42", "X-Forwarded-Proto": "https"}
	for k, v := range platform {
		headers[k] = v
	}
	status, h, body := post(t, m.URL+"/usp/bookings", headers, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone_number":"+13035550147"}}`, slot))
	if status != 201 {
		t.Fatalf("book: %d %s", status, body)
	}
	ref := decodeJSON(t, body)["booking"].(map[string]any)["id"].(string)
	if got := h.Get("X-Request-Id"); got != "proxy-req-42" {
		t.Fatalf("X-Request-Id = %q, want the trusted proxy's id echoed", got)
	}
	// A malformed id is replaced, and the refusal of a missing slot is counted.
	headers["X-Request-Id"] = "bad id level=ERROR"
	status, h, _ = post(t, m.URL+"/usp/bookings", headers, `{"service_id":"svc_airport_shuttle"}`)
	if status < 400 || !regexpHex16(h.Get("X-Request-Id")) {
		t.Fatalf("refused booking: %d, X-Request-Id %q; want a refusal with a fresh 16-hex id", status, h.Get("X-Request-Id"))
	}

	// A chat booking's tool-call line names its request and reference.
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	chatRef := guestStay(t, m, cs, "Ada Lovelace", "ada@example.com", "+1 303 555 0147", "2026-12-30", "2027-01-02", false)

	var booked, request, start, chat map[string]any
	for _, l := range jsonLines(t, logs.String()) {
		switch {
		case l["msg"] == "request" && l["tool"] == "confirm_booking":
			chat = l
		case l["msg"] == "usp booking created":
			booked = l
		case l["msg"] == "request" && l["route"] == "POST /usp/bookings" && l["request_id"] == "proxy-req-42":
			request = l
		case l["msg"] == "frontdesk started":
			start = l
		}
	}
	for name, l := range map[string]map[string]any{"booking line": booked, "request line": request} {
		if l == nil || l["request_id"] != "proxy-req-42" || l["reference"] != ref {
			t.Errorf("%s = %v, want request_id proxy-req-42 and reference %s", name, l, ref)
		}
	}
	if chat == nil || chat["reference"] != chatRef || !regexpHex16(fmt.Sprint(chat["request_id"])) {
		t.Errorf("confirm_booking line = %v, want request_id and reference %s", chat, chatRef)
	}
	if start == nil || start["engine"] != "sqlite" || start["config"] != "(built-in demo)" || start["version"] == nil || start["revision"] == nil ||
		!strings.Contains(fmt.Sprint(start["listen"]), strings.TrimPrefix(m.URL, "http://")) {
		t.Errorf("start line = %v, want version, revision, listen address, engine and config", start)
	}
	all := logs.String()
	for _, guest := range []string{"Ada", "Lovelace", "ada@example.com", "3035550147"} {
		if strings.Contains(all, guest) {
			t.Errorf("the log holds guest data %q", guest)
		}
	}

	b := scrape(t, m.URL)
	for _, want := range []string{
		`frontdesk_bookings_total{door="usp"} 1`,
		`frontdesk_bookings_total{door="chat"} 1`,
		`frontdesk_booking_refusals_total{code="invalid_request",door="usp"} 1`,
		`frontdesk_queue_depth{queue="mail"}`,
		`frontdesk_queue_oldest_seconds{queue="webhook"}`,
		`frontdesk_queue_dead{queue="webhook"} 0`,
		`frontdesk_build_info{goversion="go`,
		`frontdesk_click_writer_backlog 0`,
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Without the token, /metrics is refused, from this machine too.
	if status, _, _ := send(t, http.MethodGet, m.URL+"/metrics", nil, nil); status != http.StatusUnauthorized {
		t.Errorf("/metrics without its token = %d, want 401", status)
	}
}

func regexpHex16(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// TestJobsRecordTheirPasses: each pass of a scheduled job sets its
// duration and, when it succeeds, its last success; a failure is counted.
func TestJobsRecordTheirPasses(t *testing.T) {
	t.Parallel()
	m := &Main{Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), metrics: metrics.New()}
	passes := make(chan struct{}, 4)
	fail := false
	stop := m.startJobs(context.Background(), job{name: "test job", every: time.Millisecond, run: func(context.Context) error {
		defer func() { passes <- struct{}{} }()
		fail = !fail
		if fail {
			return fmt.Errorf("failed pass")
		}
		return nil
	}})
	<-passes
	<-passes
	stop()
	var out bytes.Buffer
	mfs, _ := m.metrics.Registry.Gather()
	for _, mf := range mfs {
		fmt.Fprintln(&out, mf.String())
	}
	for _, want := range []string{
		`name:"frontdesk_job_last_success_timestamp_seconds"`, fmt.Sprintf("value:%g", float64(testNow.Unix())),
		`name:"frontdesk_job_failures_total"`, `name:"frontdesk_job_duration_seconds"`, `value:"test job"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, out.String())
		}
	}
}

// namedRequests gives every MCP POST the X-Request-Id a trusted proxy
// would send: "req-" and the tool it calls, else "req-other".
type namedRequests struct{}

func (namedRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	id := "req-other"
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &msg) == nil && msg.Method == "tools/call" {
			id = "req-" + msg.Params.Name
		}
	}
	r.Header.Set("X-Request-Id", id)
	return http.DefaultTransport.RoundTrip(r)
}

// TestToolCallLinesNameTheirOwnRequest: in an MCP session, each tool
// call is said on the line of the HTTP request that carried it, with
// that request's id, not the id of the session's first request, and the
// reference a booking found stays with the request that found it: the
// request's line carries it, and a later call in the same session does
// not.
func TestToolCallLinesNameTheirOwnRequest(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m, _ := startUSPDemo(t, "", func(m *Main) {
		m.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		m.Config.Deployment.TrustedProxies = []string{"127.0.0.1"}
	})
	for _, revision := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			logs.Reset()
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: m.URL + "/mcp", HTTPClient: &http.Client{Transport: namedRequests{}}},
				&mcp.ClientSessionOptions{ProtocolVersion: revision})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			stay := map[string][2]string{"2025-03-26": {"2027-01-10", "2027-01-12"}, "2025-11-25": {"2027-01-20", "2027-01-22"}, "2026-07-28": {"2027-01-30", "2027-02-01"}}[revision]
			ref := guestStay(t, m, cs, "Ada Lovelace", "ada."+revision+"@example.com", "+1 303 555 0147", stay[0], stay[1], false)
			callTool(t, cs, "find_rooms", map[string]any{"checkin": "2027-02-01", "checkout": "2027-02-02"})
			// A request's own line is written after its answer went out.
			var lines map[string]map[string]any
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				lines = map[string]map[string]any{}
				for _, l := range jsonLines(t, logs.String()) {
					if l["msg"] == "request" && l["tool"] != nil {
						lines["tool "+fmt.Sprint(l["tool"])] = l
					}
				}
				if lines["tool confirm_booking"] != nil && lines["tool find_rooms"] != nil {
					break
				}
			}
			for _, c := range []struct{ line, id, ref string }{
				{"tool start_booking", "req-start_booking", ""},
				{"tool confirm_booking", "req-confirm_booking", ref},
				{"tool find_rooms", "req-find_rooms", ""},
			} {
				l := lines[c.line]
				if l == nil || l["request_id"] != c.id || fmt.Sprint(l["reference"]) != cmp.Or(c.ref, "<nil>") {
					t.Errorf("%s line = %v, want request_id %s and reference %q", c.line, l, c.id, c.ref)
				}
			}
		})
	}
}

// TestUSPHoldLinesCarryTheReference: a platform's hold, the booking it
// becomes and the booking's cancellation are each traced by their
// reference: every request's own line names it, and so does the line
// that says the hold was converted.
func TestUSPHoldLinesCarryTheReference(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m, platform := startUSPDemo(t, "", func(m *Main) {
		m.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	day := testNow.AddDate(0, 0, 3).Format("2006-01-02")
	_, _, body := post(t, m.URL+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, hh, body := post(t, m.URL+"/usp/availability/holds", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, slot))
	if status != 201 {
		t.Fatalf("hold: %d %s", status, body)
	}
	hold := decodeJSON(t, body)["hold"].(map[string]any)["id"].(string)
	headers := map[string]string{"Idempotency-Key": "3b7c8a52-6f53-4bc4-a1f2-0d6f0d3a9c11"}
	for k, v := range platform {
		headers[k] = v
	}
	status, bh, body := post(t, m.URL+"/usp/bookings", headers, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"hold_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot, hold))
	if status != 201 {
		t.Fatalf("book: %d %s", status, body)
	}
	ref := decodeJSON(t, body)["booking"].(map[string]any)["id"].(string)
	status, ch, body := post(t, m.URL+"/usp/bookings/"+ref+"/cancel", platform, `{}`)
	if status != 200 {
		t.Fatalf("cancel: %d %s", status, body)
	}
	ids := map[string]string{"hold": hh.Get("X-Request-Id"), "book": bh.Get("X-Request-Id"), "cancel": ch.Get("X-Request-Id")}
	var lines map[string]map[string]any
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		lines = map[string]map[string]any{}
		for _, l := range jsonLines(t, logs.String()) {
			for name, id := range ids {
				if l["request_id"] == id && (l["msg"] == "request" || l["msg"] == "usp hold converted") {
					lines[name+" "+fmt.Sprint(l["msg"])] = l
				}
			}
		}
		if len(lines) == 4 {
			break
		}
	}
	for _, name := range []string{"hold request", "book request", "book usp hold converted", "cancel request"} {
		if l := lines[name]; l == nil || l["reference"] != ref {
			t.Errorf("%s line = %v, want reference %s", name, l, ref)
		}
	}
}

// TestStaffDecisionLinesCarryTheReference: a decision on the staff
// screen is traced by the reservation's reference, on the request's line
// and on the line that records the decision.
func TestStaffDecisionLinesCarryTheReference(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m, _ := startUSPDemo(t, "", func(m *Main) {
		m.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	addStaff(t, m)
	ref := chatBooking(t, m, "Riverside Inn", "double", "ada@example.com", "+1 303 555 0147")
	c := signIn(t, m, "olga")
	status, h, body := c.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {c.csrf}, "to": {"confirmed"}})
	if status != http.StatusSeeOther {
		t.Fatalf("confirm = %d %s", status, body)
	}
	id := h.Get("X-Request-Id")
	var lines map[string]map[string]any
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		lines = map[string]map[string]any{}
		for _, l := range jsonLines(t, logs.String()) {
			if l["request_id"] == id {
				lines[fmt.Sprint(l["msg"])] = l
			}
		}
		if lines["request"] != nil {
			break
		}
	}
	for _, name := range []string{"request", "staff decision"} {
		if l := lines[name]; l == nil || l["reference"] != ref {
			t.Errorf("%s line = %v, want reference %s", name, l, ref)
		}
	}
}
