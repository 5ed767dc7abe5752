package channel

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/citest"
	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
)

// exportBench has a chat booking on the 5th, the airbnb listing (unit 1)
// blocking the 10th and 11th, the booking-com listing (unit 2) blocking
// the 10th: the 10th is full.
func exportBench(t *testing.T) (*bench, []Listing) {
	t.Helper()
	b := newBench(t, engines()["sqlite"](t))
	other := newChannelServer(t)
	b.svc = b.service(b.st, []Feed{
		{Name: "airbnb", URL: b.srv.URL + "/a.ics", Location: "riverside", Unit: "double", Listing: 1},
		{Name: "booking-com", URL: other.URL + "/b.ics", Location: "riverside", Unit: "double", Listing: 2},
	})
	b.book("RIV-00000000000000C1", "2027-01-05")
	b.srv.serve(calendar("x@airbnb.com 2027-01-10 2027-01-11"), 0, false)
	other.serve(calendar("y@booking.com 2027-01-10 2027-01-10"), 0, false)
	b.pass()
	listings, err := b.svc.Listings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(listings) != 2 || !slices.Equal(listings[0].Feeds, []string{"airbnb"}) || !slices.Equal(listings[1].Feeds, []string{"booking-com"}) {
		t.Fatalf("listings = %+v, want the two doubles, one per channel", listings)
	}
	return b, listings
}

// TestExportListsHeldNightsButTheChannelsOwn: unit k's feed lists a night
// when at least k doubles are held on it, leaving out the blocks of the
// channel it is given to; the body is the golden file's.
func TestExportListsHeldNightsButTheChannelsOwn(t *testing.T) {
	b, listings := exportBench(t)
	ctx := context.Background()
	one, err := b.svc.Export(ctx, listings[0].Token)
	if err != nil {
		t.Fatal(err)
	}
	// Airbnb's own block on the 11th is not echoed back; the 10th is
	// listed for Booking.com's block and the 5th for the chat booking.
	if want := []string{"2027-01-05", "2027-01-10"}; !slices.Equal(one.Nights, want) {
		t.Fatalf("unit 1 lists %v, want %v", one.Nights, want)
	}
	two, err := b.svc.Export(ctx, listings[1].Token)
	if err != nil {
		t.Fatal(err)
	}
	// Two held on the 10th less Booking.com's own: one, short of two.
	if len(two.Nights) != 0 {
		t.Fatalf("unit 2 lists %v, want none", two.Nights)
	}
	golden.Check(t, "export-unit1.ics", one.Body)
	golden.Check(t, "export-unit2.ics", two.Body)
	if strings.Contains(string(one.Body), "Guest") || strings.Contains(string(one.Body), "RIV-") {
		t.Fatalf("the export carries guest data or references:\n%s", one.Body)
	}
	if _, err := b.svc.Export(ctx, "not-a-token"); err != ErrUnknownToken {
		t.Fatalf("Export of an unknown token = %v", err)
	}
}

// TestExportOverHTTP serves the export with ETag and Last-Modified,
// answers both conditional GETs with 304, changes both when a night is
// booked, 404s an unknown or rotated token.
func TestExportOverHTTP(t *testing.T) {
	b, listings := exportBench(t)
	mux := http.NewServeMux()
	mux.Handle("GET /channels/{file}", b.svc.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string, h http.Header) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	path := listings[0].Path()
	resp, body := get(path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/calendar; charset=utf-8" || !strings.HasPrefix(body, "BEGIN:VCALENDAR") {
		t.Fatalf("GET = %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	tag, modified := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if tag == "" || modified == "" {
		t.Fatalf("no validators: %v", resp.Header)
	}
	b.clk.Advance(time.Hour)
	if r, _ := get(path, http.Header{"If-None-Match": {tag}}); r.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match = %d, want 304", r.StatusCode)
	}
	if r, _ := get(path, http.Header{"If-Modified-Since": {modified}}); r.StatusCode != http.StatusNotModified {
		t.Fatalf("If-Modified-Since = %d, want 304", r.StatusCode)
	}
	b.book("RIV-00000000000000C2", "2027-01-20")
	r, _ := get(path, http.Header{"If-None-Match": {tag}})
	if r.StatusCode != 200 || r.Header.Get("ETag") == tag || r.Header.Get("Last-Modified") == modified {
		t.Fatalf("after a booking: %d, ETag %s, Last-Modified %s; want a new feed", r.StatusCode, r.Header.Get("ETag"), r.Header.Get("Last-Modified"))
	}
	if r, _ := get("/channels/nope.ics", nil); r.StatusCode != 404 {
		t.Fatalf("unknown token = %d", r.StatusCode)
	}
	if err := b.svc.Rotate(context.Background(), "riverside", "double", 1); err != nil {
		t.Fatal(err)
	}
	if r, _ := get(path, nil); r.StatusCode != 404 {
		t.Fatalf("rotated token = %d, want 404", r.StatusCode)
	}
	fresh, err := b.svc.Listings(context.Background())
	if err != nil || fresh[0].Token == listings[0].Token {
		t.Fatalf("listings after rotation = %+v, %v", fresh, err)
	}
	if r, _ := get(fresh[0].Path(), nil); r.StatusCode != 200 {
		t.Fatalf("new token = %d", r.StatusCode)
	}
}

// icalJS parses files with ical.js under node, from test/node_modules;
// missing node or the package skips, and under CI fails.
func icalJS(t *testing.T, files ...string) []struct {
	Version string
	Events  []struct {
		UID, Summary, Start, End, Dtstamp string
		AllDay                            bool
		Description                       *string
	}
} {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		citest.Missing(t, "node is not on PATH; install Node 20 or later to round-trip the exports through ical.js")
	}
	root, _ := filepath.Abs("..")
	if _, err := os.Stat(filepath.Join(root, "test", "node_modules", "ical.js", "package.json")); err != nil {
		citest.Missing(t, "test/node_modules/ical.js is missing; run (cd test && npm ci) first")
	}
	cmd := exec.Command(node, append([]string{filepath.Join(root, "test", "ical-check.mjs")}, files...)...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("ical.js: %v\n%s", err, msg)
	}
	var got []struct {
		Version string
		Events  []struct {
			UID, Summary, Start, End, Dtstamp string
			AllDay                            bool
			Description                       *string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ical.js output %q: %v", out, err)
	}
	return got
}

// TestExportsRoundTripThroughICalJS: every export, read by ical.js,
// lists exactly the nights held as all-day events with UIDs, DTSTAMP,
// summary "Reserved" and no description.
func TestExportsRoundTripThroughICalJS(t *testing.T) {
	b, listings := exportBench(t)
	b.book("RIV-00000000000000C3", "2027-02-01", "2027-02-02", "2027-02-03")
	b.book("RIV-00000000000000C4", "2027-02-02")
	dir := t.TempDir()
	var files []string
	var want [][]string
	for _, li := range listings {
		e, err := b.svc.Export(context.Background(), li.Token)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, li.Unit+"-"+li.Token+".ics")
		if err := os.WriteFile(path, e.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		want = append(want, e.Nights)
	}
	got := icalJS(t, files...)
	if len(got) != len(files) {
		t.Fatalf("ical.js read %d calendars, want %d", len(got), len(files))
	}
	for i, cal := range got {
		var nights []string
		uids := map[string]bool{}
		for _, e := range cal.Events {
			if !e.AllDay || e.Summary != "Reserved" || e.Description != nil || e.Dtstamp == "" || e.UID == "" || uids[e.UID] {
				t.Errorf("calendar %d event %+v", i, e)
			}
			uids[e.UID] = true
			first, err1 := civil.Parse(e.Start)
			end, err2 := civil.Parse(e.End)
			if err1 != nil || err2 != nil {
				t.Fatalf("event dates %q %q", e.Start, e.End)
			}
			for d := first; d.Before(end); d = d.AddDays(1) {
				nights = append(nights, d.String())
			}
		}
		if cal.Version != "2.0" || !slices.Equal(nights, want[i]) {
			t.Errorf("ical.js reads calendar %d (version %q) as nights %v, want %v", i, cal.Version, nights, want[i])
		}
	}
	if len(want[0]) < 4 || len(want[1]) != 1 {
		t.Fatalf("the exports list %v: the test should cover a run of nights on unit 1 and a night on unit 2", want)
	}
}
