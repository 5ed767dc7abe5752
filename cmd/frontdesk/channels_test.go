package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"frontdesk/channel"
	"frontdesk/config"
	"frontdesk/direct/directtest"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
)

// feedServer plays a channel's calendar on loopback.
type feedServer struct {
	*httptest.Server
	mu   sync.Mutex
	body string
}

func newFeedServer(t *testing.T) *feedServer {
	f := &feedServer{body: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\nEND:VCALENDAR\r\n"}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Header().Set("Content-Type", "text/calendar")
		_, _ = w.Write([]byte(f.body))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *feedServer) set(body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body = body
}

// studioWeek is a Vrbo-shaped feed blocking Riverside's studio for the
// week from 2026-12-30, its summary naming the guest.
const studioWeek = "BEGIN:VCALENDAR\r\nPRODID:-//HomeAway.com, Inc.//EN\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\n" +
	"UID:5c1e0a52-7d44-4c1b-9a0e-2b6f8e3d1a77\r\nDTSTAMP:20261130T120000Z\r\nDTSTART;VALUE=DATE:20261230\r\nDTEND;VALUE=DATE:20270106\r\n" +
	"SUMMARY:Reserved - Vera Guest\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

// TestEveryDoorRefusesAnImportedNight is the black-box check of the
// channel import: before the channel blocks the studio's week every
// door offers it; once the feed lists the block, chat (start_booking),
// USP (availability and create), the guest site's search (and staff
// accepting a booking-form request), the staff screen's walk-in form and
// `frontdesk staff book` all refuse it in their own words; when the block leaves the feed, the week is for sale
// again. Both engines.
func TestEveryDoorRefusesAnImportedNight(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkEveryDoorRefusesAnImportedNight(t, "") })
	t.Run("postgres", func(t *testing.T) { checkEveryDoorRefusesAnImportedNight(t, pgtest.Schema(t)) })
}

func checkEveryDoorRefusesAnImportedNight(t *testing.T, database string) {
	ctx := context.Background()
	feed := newFeedServer(t)
	m, platform := startUSPDemo(t, database, func(m *Main) {
		m.Config.Channels.Feeds = []config.ChannelFeed{{Name: "vrbo-studio", URL: feed.URL + "/ical/123.ics", Location: "riverside", Unit: "studio", Listing: 1}}
	})
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	week := map[string]any{"property": "Riverside Inn", "roomtype": "studio", "checkin": "2026-12-30", "checkout": "2027-01-06",
		"guest_name": "Bea Chat", "email": "bea@example.com", "phone": "+1 303 555 0123"}
	const slot = "slot_riverside_studio_20261230T2200Z"
	query := `{"service_id":"svc_riverside_studio","start_date":"2026-12-30","end_date":"2026-12-30"}`
	search := m.URL + "/search?" + url.Values{"location": {"riverside"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-06"}, "guests": {"1"}}.Encode()

	// Before: every door offers the week.
	if res, _ := callTool(t, cs, "start_booking", week); res.IsError {
		t.Fatalf("chat refused the free studio: %s", text(res))
	}
	if _, _, body := post(t, m.URL+"/usp/availability/query", nil, query); !strings.Contains(body, slot) {
		t.Fatalf("USP availability lacks the free studio: %s", body)
	}
	if _, _, body := send(t, "GET", search, nil, nil); !strings.Contains(body, "roomtype=studio") {
		t.Fatalf("the guest search lacks the free studio")
	}

	feed.set(studioWeek)
	if err := m.channels.SyncNow(ctx, "vrbo-studio"); err != nil {
		t.Fatal(err)
	}

	week["email"] = "cy@example.com"
	res, _ := callTool(t, cs, "start_booking", week)
	if !res.IsError || !strings.Contains(text(res), "No room is free for those nights.") {
		t.Fatalf("chat start_booking of an imported week: %s", text(res))
	}
	if _, _, body := post(t, m.URL+"/usp/availability/query", nil, query); strings.Contains(body, slot) {
		t.Fatalf("USP availability offers an imported week: %s", body)
	}
	status, _, body := post(t, m.URL+"/usp/bookings", platform, `{"service_id":"svc_riverside_studio","slot_id":"`+slot+`",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	msgs, _ := decodeJSON(t, body)["messages"].([]any)
	if status != 200 || len(msgs) == 0 || msgs[0].(map[string]any)["code"] != "slot_unavailable" {
		t.Fatalf("USP booking of an imported week: %d %s", status, body)
	}
	if _, _, body := send(t, "GET", search, nil, nil); strings.Contains(body, "roomtype=studio") {
		t.Fatalf("the guest search offers an imported week")
	}
	walkIn := url.Values{"csrf": {olga.csrf}, "location": {"riverside"}, "roomtype": {"studio"}, "checkin": {"2026-12-30"},
		"checkout": {"2027-01-06"}, "name": {"Walk In"}, "phone": {"+1 303 555 0100"}}
	if status, _, page := olga.do("POST", "/staff/reservations/new", walkIn); status != http.StatusConflict || !strings.Contains(page, "No room of this type is free") {
		t.Fatalf("staff walk-in of an imported week = %d", status)
	}
	store := []string{"--data", m.Config.Store.DataDir}
	if database != "" {
		store = []string{"--database", database}
	}
	if _, _, err := runCmdAtTestNow(t, append(append([]string{"staff", "book"}, store...), "--location", "riverside", "--unit", "studio",
		"--checkin", "2026-12-30", "--checkout", "2027-01-06", "--name", "Walk In", "--phone", "+1 303 555 0100")...); err == nil || !strings.Contains(err.Error(), "No unit is free") {
		t.Fatalf("staff book of an imported week = %v", err)
	}
	// The booking form files a request, which holds nothing: accepting
	// it on the imported week is refused.
	req, err := m.core.Submit(ctx, reservation.FormRequest{Location: "riverside", RoomType: "studio", Checkin: "2026-12-30", Checkout: "2027-01-06",
		Name: "Dee Form", Email: "dee@example.com", Phone: "(303) 555-0142", Guests: "1", Signature: signaturetest.Drawn(t), Address: "192.0.2.10",
		Token: directtest.FormToken(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.bookings.Core().Decide(ctx, reservation.Decision{Reference: req.Reference, To: reservation.Confirmed, By: "olga"}); !errors.Is(err, reservation.ErrUnitTaken) {
		t.Fatalf("accepting a form request on an imported week = %v", err)
	}
	list, _, err := runCmdAtTestNow(t, append(append([]string{"staff", "list"}, store...), "--state", "hold")...)
	if err != nil || !strings.Contains(list, "ical:vrbo-studio") || strings.Contains(list, "Vera") {
		t.Fatalf("staff list of holds = %q, %v", list, err)
	}

	// The block leaves the feed: the week is for sale again.
	feed.set("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//HomeAway.com, Inc.//EN\r\nBEGIN:VEVENT\r\nUID:other\r\nDTSTAMP:20261130T120000Z\r\n" +
		"DTSTART;VALUE=DATE:20270301\r\nDTEND;VALUE=DATE:20270308\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	if err := m.channels.SyncNow(ctx, "vrbo-studio"); err != nil {
		t.Fatal(err)
	}
	if _, _, body := post(t, m.URL+"/usp/availability/query", nil, query); !strings.Contains(body, slot) {
		t.Fatalf("USP availability lacks the week the channel freed: %s", body)
	}
}

// TestChannelsOnTheStaffScreen: the calendar shows an imported block in
// its own colour under the channel's name; the owners' Channels page
// shows the feed's health, a conflict with both sides named (and staff
// get its mail), the export address that answers with the room's
// calendar, a rotation, an added feed refused with its field named, and
// a feed that emptied held until an owner accepts it. A clerk cannot
// open the page.
func TestChannelsOnTheStaffScreen(t *testing.T) {
	ctx := context.Background()
	feed := newFeedServer(t)
	m := startMain(t, "", func(c *config.Config) {
		c.Channels.Feeds = []config.ChannelFeed{{Name: "vrbo-studio", URL: feed.URL + "/ical/123.ics", Location: "riverside", Unit: "studio", Listing: 1}}
	})
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	walkIn := url.Values{"csrf": {olga.csrf}, "location": {"riverside"}, "roomtype": {"studio"}, "checkin": {"2027-01-04"},
		"checkout": {"2027-01-11"}, "name": {"Walk In"}, "phone": {"+1 303 555 0100"}}
	status, h, _ := olga.do("POST", "/staff/reservations/new", walkIn)
	if status != http.StatusSeeOther {
		t.Fatalf("walk-in = %d", status)
	}
	walkInRef, _, _ := strings.Cut(strings.TrimPrefix(h.Get("Location"), "/staff/reservations/"), "?")
	feed.set(studioWeek) // 2026-12-30 to 2027-01-05: overlaps the walk-in on the 4th and 5th
	if err := m.channels.SyncNow(ctx, "vrbo-studio"); err != nil {
		t.Fatal(err)
	}

	status, _, page := olga.do("GET", "/staff/calendar?location=riverside&from=2026-12-30&days=14", nil)
	if status != 200 || !strings.Contains(page, `class="channel">vrbo-studio (channel)</a>`) || strings.Contains(page, "Vera") {
		t.Fatalf("calendar = %d %s", status, page)
	}
	hold := regexp.MustCompile(`href="/staff/reservations/(RIV-[0-9A-F]{16})" class="channel"`).FindStringSubmatch(page)
	if hold == nil {
		t.Fatal("the calendar's block links to no hold")
	}
	if status, _, detail := olga.do("GET", "/staff/reservations/"+hold[1], nil); status != 200 || !strings.Contains(detail, "ical:vrbo-studio") || strings.Contains(detail, "Vera") {
		t.Fatalf("the imported hold's page = %d %s", status, detail)
	}
	status, _, page = olga.do("GET", "/staff/channels", nil)
	for _, want := range []string{"ical:vrbo-studio", "Last success: 2026-11-30 17:00 UTC", "from the config file",
		"2027-01-04, 2027-01-05", walkInRef, "Walk In", "5c1e0a52-7d44-4c1b-9a0e-2b6f8e3d1a77", m.URL + "/channels/"} {
		if !strings.Contains(page, want) {
			t.Errorf("channels page lacks %q", want)
		}
	}
	if status != 200 || t.Failed() {
		t.Fatalf("channels page = %d %s", status, page)
	}
	if metrics := string(scrape(t, m.URL)); !strings.Contains(metrics, `frontdesk_channel_conflicts_total{feed="vrbo-studio"} 1`) {
		t.Errorf("metrics lack the conflict")
	}
	mail := mailWithSubject(t, m, "Double booking: vrbo-studio blocked 2027-01-04, already held here")
	if !strings.Contains(mail.Text, walkInRef) || !strings.Contains(mail.Text, "5c1e0a52") {
		t.Fatalf("conflict mail = %s", mail.Text)
	}

	// The studio's export: given to vrbo-studio, so its block is left
	// out; the walk-in is listed.
	exportURL := regexp.MustCompile(`id="export-riverside-studio-1">([^<]+)<`).FindStringSubmatch(page)
	if exportURL == nil {
		t.Fatal("no export address for the studio")
	}
	status, eh, ics := send(t, "GET", exportURL[1], nil, nil)
	if status != 200 || !strings.Contains(ics, "DTSTART;VALUE=DATE:20270104") || strings.Contains(ics, "20261230") || eh.Get("ETag") == "" {
		t.Fatalf("export = %d %s", status, ics)
	}
	if status, _, _ := olga.do("POST", "/staff/channels", url.Values{"csrf": {olga.csrf}, "action": {"rotate"}, "location": {"riverside"}, "unit": {"studio"}, "listing": {"1"}}); status != http.StatusSeeOther {
		t.Fatalf("rotate = %d", status)
	}
	if status, _, _ := send(t, "GET", exportURL[1], nil, nil); status != http.StatusNotFound {
		t.Fatalf("the rotated export address = %d, want 404", status)
	}

	// A feed at a private address is refused with its field named, and
	// nothing is added.
	add := url.Values{"csrf": {olga.csrf}, "action": {"add"}, "name": {"airbnb-double"}, "url": {"https://10.0.0.7/cal.ics"},
		"location": {"riverside"}, "unit": {"double"}, "listing": {"1"}}
	status, _, page = olga.do("POST", "/staff/channels", add)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "The feed was not added: url ") || !strings.Contains(page, `id="url" name="url" value="https://10.0.0.7/cal.ics" required aria-invalid="true"`) {
		t.Fatalf("private feed = %d %s", status, page)
	}
	add.Set("url", feed.URL+"/other.ics")
	if status, _, _ := olga.do("POST", "/staff/channels", add); status != http.StatusSeeOther {
		t.Fatalf("adding a feed = %d", status)
	}

	// The feed empties: held until accepted.
	feed.set("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//HomeAway.com, Inc.//EN\r\nEND:VCALENDAR\r\n")
	olga.do("POST", "/staff/channels", url.Values{"csrf": {olga.csrf}, "action": {"fetch"}, "feed": {"vrbo-studio"}})
	_, _, page = olga.do("GET", "/staff/channels", nil)
	if !strings.Contains(page, "every block vanished at once") || !strings.Contains(page, `id="accept-vrbo-studio"`) {
		t.Fatalf("suspect feed not shown: %s", page)
	}
	if _, _, cal := olga.do("GET", "/staff/calendar?location=riverside&from=2026-12-30&days=14", nil); !strings.Contains(cal, "vrbo-studio (channel)") {
		t.Fatal("a suspect empty feed released its block")
	}
	if status, _, _ := olga.do("POST", "/staff/channels", url.Values{"csrf": {olga.csrf}, "action": {"accept"}, "feed": {"vrbo-studio"}}); status != http.StatusSeeOther {
		t.Fatalf("accept = %d", status)
	}
	if _, _, cal := olga.do("GET", "/staff/calendar?location=riverside&from=2026-12-30&days=14", nil); strings.Contains(cal, "vrbo-studio (channel)") {
		t.Fatal("the accepted empty feed still blocks")
	}

	// The added feed leaves the configuration behind the page's back
	// (as one taken out of the file does): its blocks stay held and are
	// listed until an owner releases them.
	src, err := m.store.Get(ctx, channel.KindSource, "airbnb-double")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.store.Delete(ctx, channel.KindSource, "airbnb-double", src.Version); err != nil {
		t.Fatal(err)
	}
	_, _, page = olga.do("GET", "/staff/channels", nil)
	if !strings.Contains(page, "ical:airbnb-double: 1 block") || !strings.Contains(page, `id="release-airbnb-double"`) {
		t.Fatalf("the feed no longer configured is not listed: %s", page)
	}
	if status, _, _ := olga.do("POST", "/staff/channels", url.Values{"csrf": {olga.csrf}, "action": {"release-orphan"}, "feed": {"airbnb-double"}}); status != http.StatusSeeOther {
		t.Fatalf("release = %d", status)
	}
	if _, _, page = olga.do("GET", "/staff/channels", nil); strings.Contains(page, "Feeds no longer configured") {
		t.Fatal("the released feed is still listed")
	}

	carl := signIn(t, m, "carl")
	if status, _, _ := carl.do("GET", "/staff/channels", nil); status != http.StatusForbidden {
		t.Fatalf("a clerk opened the channels page: %d", status)
	}
}

// TestCheckConfigValidatesChannelFeeds: check-config accepts a channel
// feed of the example's shape and names each bad field of others.
func TestCheckConfigValidatesChannelFeeds(t *testing.T) {
	good := string(config.DemoTOML) + `
[channels]
[[channels.feeds]]
name = "airbnb-double-1"
url = "https://www.airbnb.com/calendar/ical/12345678.ics?s=0123456789abcdef"
location = "riverside"
unit = "double"
listing = 1
`
	path := filepath.Join(t.TempDir(), "good.toml")
	os.WriteFile(path, []byte(good), 0o600)
	if out, _, err := runCmd(t, "check-config", path); err != nil || !strings.Contains(out, "valid (") {
		t.Fatalf("check-config of a good feed = %q, %v", out, err)
	}
	bad := good + `
[[channels.feeds]]
name = "airbnb-double-1"
url = "https://169.254.169.254/latest/meta-data/"
location = "riverside"
unit = "penthouse"
listing = 1
`
	path = filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(path, []byte(bad), 0o600)
	_, _, err := runCmd(t, "check-config", path)
	for _, want := range []string{"channels.feeds[1].name: ", "channels.feeds[1].url: is refused", "channels.feeds[1].unit: "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("check-config = %v, want %q", err, want)
		}
	}
}
