package channel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/internal/outbound"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/mail"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// engines opens a fresh store of each engine: a SQLite file and a
// PostgreSQL schema.
func engines() map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		"postgres": func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), pgtest.Schema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
}

// channelServer plays a channel on loopback: it serves the calendar the
// test sets, with an ETag, answers a matching If-None-Match with 304,
// and can fail or hang instead.
type channelServer struct {
	*httptest.Server
	mu       sync.Mutex
	body     string
	status   int  // answered instead of the calendar when set
	hang     bool // never answer
	redirect bool // send the first request on to ?r=1
	requests int
}

func newChannelServer(t *testing.T) *channelServer {
	c := &channelServer{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.requests++
		body, status, hang, redirect := c.body, c.status, c.hang, c.redirect
		c.mu.Unlock()
		if hang {
			<-r.Context().Done()
			return
		}
		if redirect && r.URL.Query().Get("r") == "" {
			http.Redirect(w, r, r.URL.Path+"?r=1", http.StatusFound)
			return
		}
		if status != 0 {
			http.Error(w, "channel trouble", status)
			return
		}
		sum := sha256.Sum256([]byte(body))
		tag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *channelServer) serve(body string, status int, hang bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.body, c.status, c.hang = body, status, hang
}

func (c *channelServer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// calendar is a feed of all-day blocks, each "UID first-night last-night".
func calendar(blocks ...string) string {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test Channel//EN\r\n")
	for _, bl := range blocks {
		f := strings.Fields(bl)
		last, _ := time.Parse(time.DateOnly, f[2])
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:%s\r\nDTSTAMP:20261201T000000Z\r\nDTSTART;VALUE=DATE:%s\r\nDTEND;VALUE=DATE:%s\r\nSUMMARY:Reserved - Guest Name\r\nEND:VEVENT\r\n",
			f[0], strings.ReplaceAll(f[1], "-", ""), last.AddDate(0, 0, 1).Format("20060102"))
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.String()
}

var start = time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC)

// riverside has two double rooms, in Berlin.
func riverside() business.Location {
	return business.Location{Slug: "riverside", Name: "Riverside", Prefix: "RIV", TimeZone: "Europe/Berlin",
		Units: []business.Unit{{Type: "double", Kind: business.KindNight, Count: 2}, {Type: "sauna", Kind: business.KindTimed, Count: 1}}}
}

type bench struct {
	t         *testing.T
	st        store.Store
	desk      *reservation.Desk
	clk       *clock.Fixed
	srv       *channelServer
	svc       *Service
	mail      *mail.Dev
	conflicts []string
	mu        sync.Mutex
}

func newBench(t *testing.T, st store.Store, feeds ...Feed) *bench {
	b := &bench{t: t, st: st, desk: reservation.NewDesk(st), clk: clock.NewFixed(start), srv: newChannelServer(t)}
	b.mail = mail.NewDev(st, b.clk, nil)
	if len(feeds) == 0 {
		feeds = []Feed{{Name: "airbnb", URL: b.srv.URL + "/cal.ics", Location: "riverside", Unit: "double", Listing: 1}}
	}
	b.svc = b.service(st, feeds)
	return b
}

func (b *bench) service(st store.Store, feeds []Feed) *Service {
	return New(st, reservation.NewDesk(st), []business.Location{riverside()}, feeds, b.clk, random.Seeded([32]byte{7}), Options{
		Fetcher: NewFetcher(outbound.Rule{Loopback: true}, 64<<10, 2*time.Second),
		Mail:    b.mail, From: "desk@riverside.example", Staff: "staff@riverside.example",
		Conflicted: func(feed string) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.conflicts = append(b.conflicts, feed)
		},
	})
}

// pass advances the clock past the feed's interval and runs a pass.
func (b *bench) pass() PassResult {
	b.t.Helper()
	b.clk.Advance(19 * time.Minute)
	res, err := b.svc.Pass(context.Background())
	if err != nil {
		b.t.Fatalf("Pass: %v", err)
	}
	return res
}

// held is how many doubles are held on each night given.
func (b *bench) held(nights ...string) []int {
	b.t.Helper()
	counts, err := b.st.Counts(context.Background(), "riverside", "2027-01-01", "2027-12-31")
	if err != nil {
		b.t.Fatal(err)
	}
	out := make([]int, len(nights))
	for i, n := range nights {
		for _, c := range counts {
			if c.Unit == "double" && c.Slot == n {
				out[i] = c.Held
			}
		}
	}
	return out
}

// imported lists the holds of source ical:name that hold units, as
// "REF first..last".
func (b *bench) imported(name string) []reservation.Reservation {
	b.t.Helper()
	rs, err := reservation.List(context.Background(), b.st, store.ReservationFilter{Source: "ical:" + name, States: []string{string(reservation.OnHold)}, Limit: 100})
	if err != nil {
		b.t.Fatal(err)
	}
	return rs
}

func (b *bench) state(name string) feedState {
	b.t.Helper()
	rec, err := b.st.Get(context.Background(), KindFeed, name)
	if err != nil {
		b.t.Fatal(err)
	}
	var s feedState
	if err := json.Unmarshal(rec.Value, &s); err != nil {
		b.t.Fatal(err)
	}
	return s
}

func (b *bench) book(ref string, nights ...string) reservation.Reservation {
	b.t.Helper()
	r, err := b.desk.Create(context.Background(), reservation.New{Kind: reservation.KindConfirmed, Reference: ref,
		Unit: reservation.Unit{Location: "riverside", Type: "double", Capacity: 2}, Slots: nights, Guests: 2,
		Contact: reservation.Contact{Name: "Ada Guest"}, Source: reservation.SourceChat, At: b.clk.Now()})
	if err != nil {
		b.t.Fatalf("book %s: %v", ref, err)
	}
	return r
}

// TestSyncFollowsTheFeed plays a channel on loopback: a block added is
// held on the desk under source ical:airbnb, moved when it moves (the
// same hold), released when it goes; an unchanged feed answers 304;
// garbage and a failing channel change nothing and back off; a feed that
// suddenly empties frees nothing until staff accept it.
func TestSyncFollowsTheFeed(t *testing.T) {
	for engine, open := range engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			b := newBench(t, open(t))
			b.srv.serve(calendar("a@airbnb.com 2027-01-10 2027-01-11"), 0, false)
			if res := b.pass(); res.Fetched != 1 {
				t.Fatalf("first pass = %+v, want one feed fetched", res)
			}
			if got := b.held("2027-01-09", "2027-01-10", "2027-01-11", "2027-01-12"); !slices.Equal(got, []int{0, 1, 1, 0}) {
				t.Fatalf("held after the block came = %v, want [0 1 1 0]", got)
			}
			holds := b.imported("airbnb")
			if len(holds) != 1 || !slices.Equal(holds[0].Slots, []string{"2027-01-10", "2027-01-11"}) || holds[0].Contact != (reservation.Contact{}) {
				t.Fatalf("imported holds = %+v, want one on the 10th and 11th with no contact", holds)
			}
			ref := holds[0].Reference

			// Not due again yet; then due, and unchanged: 304.
			if res, err := b.svc.Pass(ctx); err != nil || res.Skipped != 1 {
				t.Fatalf("pass before the interval = %+v, %v, want skipped", res, err)
			}
			if res := b.pass(); res.NotModified != 1 {
				t.Fatalf("pass of an unchanged feed = %+v, want 304", res)
			}

			// Moved: the same hold, on the new nights.
			b.srv.serve(calendar("a@airbnb.com 2027-01-12 2027-01-13"), 0, false)
			b.pass()
			if got := b.held("2027-01-10", "2027-01-11", "2027-01-12", "2027-01-13"); !slices.Equal(got, []int{0, 0, 1, 1}) {
				t.Fatalf("held after the move = %v, want [0 0 1 1]", got)
			}
			if holds := b.imported("airbnb"); len(holds) != 1 || holds[0].Reference != ref {
				t.Fatalf("holds after the move = %+v, want %s moved", holds, ref)
			}

			// One removed, one added.
			b.srv.serve(calendar("b@airbnb.com 2027-01-20 2027-01-20"), 0, false)
			b.pass()
			if got := b.held("2027-01-12", "2027-01-20"); !slices.Equal(got, []int{0, 1}) {
				t.Fatalf("held after remove and add = %v, want [0 1]", got)
			}
			old, err := reservation.Get(ctx, b.st, ref)
			if err != nil || old.State != reservation.Cancelled || old.Held {
				t.Fatalf("removed block's hold = %+v, %v, want released", old, err)
			}

			// Garbage, a failing channel, one that hangs and one that
			// answers too much: nothing changes, failures count and the
			// next try backs off.
			for i, c := range []struct {
				body   string
				status int
				hang   bool
			}{{"<html>down for maintenance</html>", 0, false}, {"", http.StatusBadGateway, false}, {"", 0, true},
				{calendar("b@airbnb.com 2027-01-20 2027-01-20") + strings.Repeat("X-PAD:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n", 2000), 0, false}} {
				b.srv.serve(c.body, c.status, c.hang)
				if res := b.pass(); res.Failed != 1 {
					t.Fatalf("pass %d of a broken feed = %+v, want failed", i, res)
				}
				if got := b.held("2027-01-20"); got[0] != 1 {
					t.Fatalf("a broken feed freed the block: held %v", got)
				}
				st := b.state("airbnb")
				if st.Failures != i+1 || st.LastError == "" || st.LastSuccess.IsZero() {
					t.Fatalf("state after failure %d = %+v", i+1, st)
				}
			}
			if wait := b.state("airbnb").NextAt.Sub(b.clk.Now()); wait < 6*time.Minute || wait > 10*time.Minute {
				t.Fatalf("the fourth failure in a row retries in %v, want about 8 minutes", wait)
			}

			// Moved behind a redirect: followed, and the feed is healthy.
			b.srv.mu.Lock()
			b.srv.redirect = true
			b.srv.mu.Unlock()
			b.srv.serve(calendar("b@airbnb.com 2027-01-20 2027-01-20"), 0, false)
			if res := b.pass(); res.Fetched+res.NotModified != 1 || b.srv.count() < 2 {
				t.Fatalf("pass behind a redirect = %+v", res)
			}
			if st := b.state("airbnb"); st.Failures != 0 || st.LastError != "" {
				t.Fatalf("state after the redirect = %+v", st)
			}

			// Suddenly empty: suspect, nothing freed until staff accept.
			b.srv.serve(calendar(), 0, false)
			b.pass()
			if st := b.state("airbnb"); !st.Suspect || st.Failures != 0 {
				t.Fatalf("state after the feed emptied = %+v, want suspect", st)
			}
			b.pass()
			if got := b.held("2027-01-20"); got[0] != 1 {
				t.Fatalf("a suspect empty feed freed its block: held %v", got)
			}
			if err := b.svc.AcceptEmpty(ctx, "airbnb", "owner"); err != nil {
				t.Fatal(err)
			}
			if got := b.held("2027-01-20"); got[0] != 0 {
				t.Fatalf("accepted empty feed still holds: %v", got)
			}
			if st := b.state("airbnb"); st.Suspect || st.AcceptEmpty {
				t.Fatalf("state after acceptance = %+v", st)
			}
		})
	}
}

// TestConflictIsNeverSilent: a block on a night both doubles are already
// booked holds the nights that have room, keeps the full one as a
// conflict that takes no unit, is counted once, and is mailed to staff
// once with both sides named; when a booking cancels, the next pass
// holds the whole block.
func TestConflictIsNeverSilent(t *testing.T) {
	for engine, open := range engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			b := newBench(t, open(t))
			first := b.book("RIV-00000000000000A1", "2027-01-10")
			b.book("RIV-00000000000000A2", "2027-01-10")
			b.srv.serve(calendar("c@airbnb.com 2027-01-09 2027-01-11"), 0, false)
			b.pass()
			if got := b.held("2027-01-09", "2027-01-10", "2027-01-11"); !slices.Equal(got, []int{1, 2, 1}) {
				t.Fatalf("held = %v, want [1 2 1]: the conflict night takes no unit beyond the two", got)
			}
			cs, err := b.svc.Conflicts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 || !slices.Equal(cs[0].Missing, []string{"2027-01-10"}) || len(cs[0].Holders) != 2 {
				t.Fatalf("conflicts = %+v, want the 10th, held by two bookings", cs)
			}
			b.pass()
			msgs, err := b.mail.Messages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 1 || len(b.conflicts) != 1 {
				t.Fatalf("after two passes: %d mails, %d counted, want one of each", len(msgs), len(b.conflicts))
			}
			text := msgs[0].Subject + "\n" + msgs[0].Text
			for _, want := range []string{"airbnb", "c@airbnb.com", "2027-01-10", "RIV-00000000000000A1", "RIV-00000000000000A2"} {
				if !strings.Contains(text, want) {
					t.Errorf("conflict mail lacks %q:\n%s", want, text)
				}
			}
			if msgs[0].To[0] != "staff@riverside.example" {
				t.Errorf("conflict mail to %v", msgs[0].To)
			}
			if _, err := b.desk.Decide(ctx, reservation.Change{Read: first, By: "staff", At: b.clk.Now()}, reservation.Cancelled); err != nil {
				t.Fatal(err)
			}
			b.pass() // the feed answers 304; the conflict is tried again all the same
			if got := b.held("2027-01-09", "2027-01-10", "2027-01-11"); !slices.Equal(got, []int{1, 2, 1}) {
				t.Fatalf("held after the cancel = %v, want [1 2 1] (the block took the freed room)", got)
			}
			if cs, err := b.svc.Conflicts(ctx); err != nil || len(cs) != 0 {
				t.Fatalf("conflicts after the cancel = %+v, %v, want none", cs, err)
			}
			holds := b.imported("airbnb")
			if len(holds) != 1 || len(holds[0].Slots) != 3 {
				t.Fatalf("holds = %+v, want the whole block", holds)
			}
		})
	}
}

// TestOtherDoorsCannotSellAnImportedNight: once both doubles of a night
// are held by channels, the desk refuses a booking of it, whatever the
// door; the refusal is the same CodeUnitTaken every door words.
func TestOtherDoorsCannotSellAnImportedNight(t *testing.T) {
	b := newBench(t, engines()["sqlite"](t))
	b.srv.serve(calendar("d1@airbnb.com 2027-02-01 2027-02-03", "d2@airbnb.com 2027-02-02 2027-02-02"), 0, false)
	b.pass()
	_, err := b.desk.Create(context.Background(), reservation.New{Kind: reservation.KindBooking, Reference: "RIV-00000000000000B1",
		Unit: reservation.Unit{Location: "riverside", Type: "double", Capacity: 2}, Slots: []string{"2027-02-02"}, Source: reservation.SourceChat, At: b.clk.Now()})
	if reservation.ErrorCode(err) != reservation.CodeUnitTaken {
		t.Fatalf("booking an imported night = %v, want unit taken", err)
	}
}

// TestFetcherUnderAHostileChannel: a hanging server is cut off at the
// timeout, a huge feed at the size cap, a redirect to loopback followed
// but one to a private address refused, a redirect loop stopped, an
// error status reported; no error names the feed's address, which
// carries the channel's secret.
func TestFetcherUnderAHostileChannel(t *testing.T) {
	huge := strings.Repeat("X", 100<<10)
	mux := http.NewServeMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("BEGIN:VCALENDAR\r\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(huge)) })
	mux.HandleFunc("/huge-chunked", func(w http.ResponseWriter, r *http.Request) {
		for range 100 {
			_, _ = w.Write([]byte(huge[:1<<10]))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(calendar())) })
	mux.HandleFunc("/to-ok", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://10.1.2.3/cal.ics", http.StatusFound)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusInternalServerError) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := NewFetcher(outbound.Rule{Loopback: true}, 64<<10, 500*time.Millisecond)
	tests := []struct {
		path, want string
	}{
		{"/hang", "timed out"},
		{"/slow-body", "cut off"},
		{"/huge", "larger than 65536 bytes"},
		{"/huge-chunked", "larger than 65536 bytes"},
		{"/to-private", "redirect refused"},
		{"/to-metadata", "redirect refused"},
		{"/loop", "redirects"},
		{"/fail", "500"},
		{"/to-ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			began := time.Now()
			got, err := f.Fetch(context.Background(), srv.URL+tt.path+"?s=secret-token", "", "")
			if took := time.Since(began); took > 3*time.Second {
				t.Errorf("fetch took %v", took)
			}
			if tt.want == "" {
				if err != nil || !strings.Contains(string(got.Body), "BEGIN:VCALENDAR") {
					t.Fatalf("Fetch = %q, %v, want the calendar", got.Body, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Fetch error = %v, want one saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret-token") || strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("error names the feed's address: %v", err)
			}
		})
	}
}

// TestImportAddressRule: the import URLs the outbound rule refuses are
// refused by the config check and by the fetcher before any connection.
func TestImportAddressRule(t *testing.T) {
	srv := newChannelServer(t)
	srv.serve(calendar(), 0, false)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	rule := outbound.Rule{} // production: no loopback
	f := NewFetcher(rule, 0, time.Second)
	locs := []business.Location{riverside()}
	for _, u := range []string{
		srv.URL + "/cal.ics",
		"http://localhost" + port + "/cal.ics",
		"https://127.0.0.1" + port + "/cal.ics",
		"https://[::1]" + port + "/cal.ics",
		"https://10.0.0.5/cal.ics",
		"https://192.168.1.1/cal.ics",
		"https://172.16.0.1/cal.ics",
		"https://169.254.169.254/latest/meta-data/",
		"https://100.64.0.1/cal.ics",
		"https://[fd00::1]/cal.ics",
		"https://[fe80::1%25eth0]/cal.ics",
		"https://0x7f000001/cal.ics",
		"https://2130706433/cal.ics",
		"https://0.0.0.0/cal.ics",
		"http://calendar.example.com/cal.ics",
		"file:///etc/passwd",
		"ftp://calendar.example.com/cal.ics",
		"https://user:pass@calendar.example.com/cal.ics",
		"//calendar.example.com/cal.ics",
		"",
	} {
		t.Run(u, func(t *testing.T) {
			feed := Feed{Name: "airbnb", URL: u, Location: "riverside", Unit: "double", Listing: 1}
			problems := feed.Check(locs, rule)
			if len(problems) != 1 || problems[0].Field != "url" {
				t.Errorf("Check = %v, want one problem with url", problems)
			}
			if _, err := f.Fetch(context.Background(), u, "", ""); err == nil {
				t.Errorf("Fetch of %q succeeded", u)
			}
		})
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("the loopback server got %d requests, want none", n)
	}
	ok := Feed{Name: "airbnb", URL: "https://www.airbnb.com/calendar/ical/1234.ics?s=abc", Location: "riverside", Unit: "double", Listing: 1}
	if problems := ok.Check(locs, rule); len(problems) != 0 {
		t.Fatalf("a channel's https feed is refused: %v", problems)
	}
}

// TestCheckNamesTheField: each wrong field of a feed is named.
func TestCheckNamesTheField(t *testing.T) {
	locs := []business.Location{riverside()}
	good := Feed{Name: "airbnb", URL: "https://www.airbnb.com/calendar/ical/1.ics", Location: "riverside", Unit: "double", Listing: 2}
	tests := []struct {
		name  string
		edit  func(*Feed)
		field string
	}{
		{"name with capitals", func(f *Feed) { f.Name = "Airbnb" }, "name"},
		{"empty name", func(f *Feed) { f.Name = "" }, "name"},
		{"unknown location", func(f *Feed) { f.Location = "lakeside" }, "location"},
		{"unknown unit", func(f *Feed) { f.Unit = "suite" }, "unit"},
		{"timed unit", func(f *Feed) { f.Unit = "sauna" }, "unit"},
		{"listing past the count", func(f *Feed) { f.Listing = 3 }, "listing"},
		{"listing zero", func(f *Feed) { f.Listing = 0 }, "listing"},
		{"plain http", func(f *Feed) { f.URL = "http://www.airbnb.com/x.ics" }, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good
			tt.edit(&f)
			problems := f.Check(locs, outbound.Rule{})
			if len(problems) != 1 || problems[0].Field != tt.field {
				t.Fatalf("Check = %v, want one problem with %s", problems, tt.field)
			}
		})
	}
	err := CheckAll([]Feed{good, good}, locs, outbound.Rule{})
	if err == nil || !strings.Contains(err.Error(), "name: is used by another feed") {
		t.Fatalf("CheckAll of a repeated name = %v", err)
	}
}

// TestTwoInstancesFetchEachFeedOncePerPass: two services on one
// PostgreSQL schema, passing at the same moments, fetch the feed once
// per interval between them.
func TestTwoInstancesFetchEachFeedOncePerPass(t *testing.T) {
	dsn := pgtest.Schema(t)
	open := func() store.Store {
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	one := open()
	b := newBench(t, one)
	other := b.service(open(), b.svc.feeds)
	b.srv.serve(calendar("e@airbnb.com 2027-03-01 2027-03-02"), 0, false)
	const rounds = 5
	for i := range rounds {
		b.clk.Advance(19 * time.Minute)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, s := range []*Service{b.svc, other} {
			wg.Go(func() { _, errs[j] = s.Pass(context.Background()) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	if n := b.srv.count(); n != rounds {
		t.Fatalf("the feed was fetched %d times in %d rounds of two instances, want %d", n, rounds, rounds)
	}
	if got := b.held("2027-03-01"); got[0] != 1 {
		t.Fatalf("held = %v, want the block once", got)
	}
}

// TestNoGuestDataIsStored: a Vrbo feed whose summary and description
// name the guest, their email and phone leaves none of it in any record
// of the channel kinds, nor in the holds; what is kept is the channel's
// name, the UID and the dates.
func TestNoGuestDataIsStored(t *testing.T) {
	ctx := context.Background()
	b := newBench(t, engines()["sqlite"](t))
	body, err := os.ReadFile(filepath.Join("testdata", "vrbo.ics"))
	if err != nil {
		t.Fatal(err)
	}
	b.srv.serve(string(body), 0, false)
	if res := b.pass(); res.Fetched != 1 {
		t.Fatalf("pass = %+v", res)
	}
	var stored []string
	for _, kind := range Kinds() {
		recs, err := listAll(ctx, b.st, kind, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			stored = append(stored, string(r.Value))
		}
	}
	rows, err := b.st.ListReservations(ctx, store.ReservationFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		stored = append(stored, string(r.Value))
	}
	all := strings.Join(stored, "\n")
	if len(rows) != 2 || !strings.Contains(all, "45dd1c7e-91d2-4a3f-b1f4-2f0e6a9c3b11") {
		t.Fatalf("stored %d holds: %s", len(rows), all)
	}
	for _, private := range []string{"Jane", "jane@", "555 0100", "Reserved", "Blocked"} {
		if strings.Contains(all, private) {
			t.Errorf("a record keeps %q:\n%s", private, all)
		}
	}
}

// TestPurgeReleasesPastBlocks: retention deletes the records of blocks
// that ended before its cutoff, releasing their holds, and keeps the
// others.
func TestPurgeReleasesPastBlocks(t *testing.T) {
	ctx := context.Background()
	b := newBench(t, engines()["sqlite"](t))
	b.srv.serve(calendar("old@airbnb.com 2027-01-02 2027-01-03", "new@airbnb.com 2027-03-02 2027-03-03"), 0, false)
	b.pass()
	n, err := b.svc.Purge(ctx, "2027-02-01")
	if err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v, want one block", n, err)
	}
	if got := b.held("2027-01-02", "2027-03-02"); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("held after purge = %v, want [0 1]", got)
	}
	blocks, err := b.svc.blocks(ctx, "airbnb")
	if err != nil || len(blocks) != 1 || blocks[0].UID != "new@airbnb.com" {
		t.Fatalf("blocks after purge = %+v, %v", blocks, err)
	}
}

// TestFeedNoLongerConfiguredKeepsItsBlocksUntilReleased: a feed taken
// out of the config file frees nothing by itself (a rename would
// otherwise free the nights for a moment); it is listed with its blocks
// until staff release them.
func TestFeedNoLongerConfiguredKeepsItsBlocksUntilReleased(t *testing.T) {
	ctx := context.Background()
	b := newBench(t, engines()["sqlite"](t))
	b.srv.serve(calendar("g@airbnb.com 2027-04-01 2027-04-02"), 0, false)
	b.pass()
	b.svc = b.service(b.st, nil)
	b.pass()
	if got := b.held("2027-04-01"); got[0] != 1 {
		t.Fatalf("held after the feed left the config = %v, want the block kept", got)
	}
	orphans, err := b.svc.Orphans(ctx)
	if err != nil || len(orphans) != 1 || orphans[0] != (Orphan{Feed: "airbnb", Blocks: 1}) {
		t.Fatalf("Orphans = %+v, %v", orphans, err)
	}
	if err := b.svc.ReleaseOrphan(ctx, "airbnb", "owner"); err != nil {
		t.Fatal(err)
	}
	if got := b.held("2027-04-01"); got[0] != 0 {
		t.Fatalf("held after release = %v", got)
	}
	if orphans, err := b.svc.Orphans(ctx); err != nil || len(orphans) != 0 {
		t.Fatalf("Orphans after release = %+v, %v", orphans, err)
	}
	configured := newBench(t, engines()["sqlite"](t))
	if err := configured.svc.ReleaseOrphan(ctx, "airbnb", "owner"); !errors.Is(err, ErrFeed) {
		t.Fatalf("ReleaseOrphan of a configured feed = %v", err)
	}
}
