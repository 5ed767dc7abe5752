package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/golden"
	"frontdesk/message"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// start is the instant the dev tests' clock shows first.
func start() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

// openStore opens a SQLite file store; each call is a separate handle,
// as a second process would have.
func openStore(t *testing.T, path string) store.Store {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("sqlite.Open = %v, want nil", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newDev(t *testing.T) (*Dev, *clock.Fixed) {
	t.Helper()
	clk := clock.NewFixed(start())
	return NewDev(openStore(t, filepath.Join(t.TempDir(), "frontdesk.db")), clk, nil), clk
}

func devEmail(id, subject string) message.Email {
	return message.Email{
		ID: id, From: "stay@samplestays.example", To: []string{"guest@example.com"},
		Subject: subject, Text: "Your code is 123456.\n<b>not bold</b> & so on\n",
		Date: start().Add(-time.Minute),
	}
}

func sameEmail(a, b message.Email) bool {
	return a.ID == b.ID && a.From == b.From && slices.Equal(a.To, b.To) && a.ReplyTo == b.ReplyTo &&
		a.Subject == b.Subject && a.Text == b.Text && a.Date.Equal(b.Date)
}

func TestDevRoundTrip(t *testing.T) {
	d, _ := newDev(t)
	e := devEmail("code-RIV-1", "Your code")
	e.ReplyTo = "riverside@samplestays.example"
	e.To = []string{"guest@example.com", "second@example.com"}
	if err := d.Send(t.Context(), e); err != nil {
		t.Fatalf("Send = %v, want nil", err)
	}
	got, err := d.Messages(t.Context())
	if err != nil {
		t.Fatalf("Messages = %v, want nil", err)
	}
	if len(got) != 1 {
		t.Fatalf("Messages returned %d, want 1", len(got))
	}
	if !sameEmail(got[0].Email, e) {
		t.Errorf("Messages()[0] = %+v, want %+v", got[0].Email, e)
	}
	if !got[0].ReceivedAt.Equal(start()) {
		t.Errorf("ReceivedAt = %v, want %v", got[0].ReceivedAt, start())
	}
}

func TestDevRetryAtTheSameInstantKeepsOneCopy(t *testing.T) {
	d, _ := newDev(t)
	e := devEmail("code-RIV-1", "Your code")
	for range 2 {
		if err := d.Send(t.Context(), e); err != nil {
			t.Fatalf("Send = %v, want nil", err)
		}
	}
	got, err := d.Messages(t.Context())
	if err != nil || len(got) != 1 {
		t.Fatalf("Messages = %d messages (%v), want 1", len(got), err)
	}
}

// get serves one request from h and returns the response and its body.
func get(t *testing.T, h http.Handler, path string) (*http.Response, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func TestDevJSONIsOldestFirst(t *testing.T) {
	d, clk := newDev(t)
	// IDs in reverse alphabetical order, so that only the capture time
	// can put them in this order.
	for _, id := range []string{"c-first", "b-second", "a-third"} {
		if err := d.Send(t.Context(), devEmail(id, "Subject "+id)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(1500 * time.Millisecond)
	}
	res, body := get(t, mount(d), "/dev/mail.json")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", res.StatusCode)
	}
	if got := res.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}
	golden.Check(t, "devmail.json", body)

	var v struct {
		Messages []struct {
			ID         string   `json:"id"`
			To         []string `json:"to"`
			ReceivedAt string   `json:"received_at"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range v.Messages {
		ids = append(ids, m.ID)
		if _, err := time.Parse(time.RFC3339, m.ReceivedAt); err != nil || !strings.HasSuffix(m.ReceivedAt, "Z") {
			t.Errorf("received_at = %q, want RFC 3339 in UTC", m.ReceivedAt)
		}
	}
	if want := []string{"c-first", "b-second", "a-third"}; !slices.Equal(ids, want) {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
}

func TestDevJSONEmpty(t *testing.T) {
	d, _ := newDev(t)
	_, body := get(t, mount(d), "/dev/mail.json")
	if got, want := string(body), "{\"messages\":[]}\n"; got != want {
		t.Fatalf("body = %q, want %q", got, want)
	}
}

func TestDevHTMLIsNewestFirst(t *testing.T) {
	d, clk := newDev(t)
	for _, subject := range []string{"Older & wiser", "Newer <news>"} {
		if err := d.Send(t.Context(), devEmail(strings.Fields(subject)[0], subject)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	res, body := get(t, mount(d), "/dev/mail")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", res.StatusCode)
	}
	if got := res.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q, want text/html; charset=utf-8", got)
	}
	page := string(body)
	older, newer := strings.Index(page, "Older &amp; wiser"), strings.Index(page, "Newer &lt;news&gt;")
	if older < 0 || newer < 0 {
		t.Fatalf("page lacks an escaped subject:\n%s", page)
	}
	if newer > older {
		t.Errorf("newer message at %d comes after older at %d, want newest first", newer, older)
	}
	if !strings.Contains(page, "<pre>Your code is 123456.\n&lt;b&gt;not bold&lt;/b&gt; &amp; so on\n</pre>") {
		t.Errorf("page lacks the escaped text in <pre>:\n%s", page)
	}
}

func TestDevHandlerRefusesOtherMethods(t *testing.T) {
	d, _ := newDev(t)
	rec := httptest.NewRecorder()
	mount(d).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/dev/mail.json", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST status = %d, want 405", rec.Code)
	}
}

// TestDevSharedStore stands for `frontdesk serve` and `frontdesk mcp`:
// two processes, each with its own handle on the same SQLite file.
func TestDevSharedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	clk := clock.NewFixed(start())
	serve := NewDev(openStore(t, path), clk, nil)
	mcp := NewDev(openStore(t, path), clk, nil)

	if err := mcp.Send(t.Context(), devEmail("from-mcp", "Sent by the mcp process")); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if err := serve.Send(t.Context(), devEmail("from-serve", "Sent by the serve process")); err != nil {
		t.Fatal(err)
	}
	// Each process's messages are in the store once its send returned.
	for name, d := range map[string]*Dev{"serve": serve, "mcp": mcp} {
		got, err := d.Messages(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range got {
			ids = append(ids, m.ID)
		}
		if want := []string{"from-mcp", "from-serve"}; !slices.Equal(ids, want) {
			t.Errorf("%s sees %q, want %q", name, ids, want)
		}
	}
}

func TestDevShowsTheNewest500(t *testing.T) {
	d, clk := newDev(t)
	const sent = devShown + 12 // more than a page past the limit
	for i := range sent {
		if err := d.Send(t.Context(), devEmail(fmt.Sprintf("m%04d", i), "Subject")); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Millisecond)
	}
	got, err := d.Messages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != devShown {
		t.Fatalf("Messages returned %d, want %d", len(got), devShown)
	}
	if first, last := got[0].ID, got[len(got)-1].ID; first != "m0012" || last != fmt.Sprintf("m%04d", sent-1) {
		t.Fatalf("Messages span %s..%s, want m0012..m%04d", first, last, sent-1)
	}
}

// mount serves the mailbox as cmd/frontdesk mounts it.
func mount(d *Dev) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /dev/mail.json", d.ServeJSON)
	mux.HandleFunc("GET /dev/mail", d.ServeHTML)
	return mux
}

// TestDevPageExplainsPauses: the mailbox says which limit pauses chat
// booking and when it lifts.
func TestDevPageExplainsPauses(t *testing.T) {
	d, _ := newDev(t)
	limits := config.Demo().Limits
	d.Limits = &limits
	_, body := get(t, mount(d), "/dev/mail")
	business := fmt.Sprintf("%d codes an hour and %d a day", limits.PortfolioEmailHourly, limits.PortfolioEmailDaily)
	for _, want := range []string{"3 codes an hour and 6 a day", business, "lifts one hour after the oldest code"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("mailbox page lacks %q", want)
		}
	}
}

// TestDevPageSaysWhatIsPausedNow: the mailbox names each full ceiling,
// its setting and when it lifts, says so when none is full, and fails
// cleanly when the ceilings cannot be read.
func TestDevPageSaysWhatIsPausedNow(t *testing.T) {
	lifts := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		paused []Pause
		err    error
		status int
		want   []string
	}{
		{"two full", []Pause{
			{Setting: "location_email_hourly", Location: "riverside", Used: 15, Limit: 15, Lifts: lifts},
			{Setting: "portfolio_pending", Used: 30, Limit: 30},
		}, nil, http.StatusOK, []string{
			"riverside: 15 of 15 booking codes in the last hour (limits.location_email_hourly). Lifts at <time datetime=\"2026-11-30T18:00:00Z\">2026-11-30 18:00:00 UTC</time>.",
			"The whole business: 30 of 30 reservations awaiting staff (limits.portfolio_pending). Lifts when staff confirm or decline one of them, or its stay ends.",
		}},
		{"none full", nil, nil, http.StatusOK, []string{"no business-wide or property limit is full"}},
		{"unreadable", nil, errors.New("store down"), http.StatusInternalServerError, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := newDev(t)
			d.Paused = func(context.Context) ([]Pause, error) { return c.paused, c.err }
			res, body := get(t, mount(d), "/dev/mail")
			if res.StatusCode != c.status {
				t.Fatalf("status = %d, want %d", res.StatusCode, c.status)
			}
			for _, want := range c.want {
				if !strings.Contains(string(body), want) {
					t.Errorf("mailbox page lacks %q", want)
				}
			}
		})
	}
}

// failingApply refuses every write, as a full or broken disk does.
type failingApply struct{ store.Store }

func (failingApply) Apply(context.Context, []store.Write) ([]store.Record, error) {
	return nil, errors.New("disk full")
}

// TestDevSendReportsAFailedStore: a send whose message cannot be stored
// fails, as not sent, instead of reporting success and dropping the
// message; the same send on a working store is in the mailbox when it
// returns, with no Close in between.
func TestDevSendReportsAFailedStore(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	broken := NewDev(failingApply{st}, clock.NewFixed(start()), nil)
	if err := broken.Send(t.Context(), devEmail("lost", "Subject")); !message.NotSent(err) {
		t.Fatalf("send on a failing store = %v, want not sent", err)
	}
	d := NewDev(st, clock.NewFixed(start()), nil)
	if err := d.Send(t.Context(), devEmail("kept", "Subject")); err != nil {
		t.Fatal(err)
	}
	other := NewDev(st, clock.NewFixed(start()), nil)
	got, err := other.Messages(t.Context())
	if err != nil || len(got) != 1 || got[0].ID != "kept" {
		t.Fatalf("messages after the send returned = %+v, %v", got, err)
	}
}
