package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"frontdesk/internal/pgtest"
)

// TestStaffBookTakesTheRoomForEveryDoor is the desk's black-box check:
// `frontdesk staff book` takes Riverside's one studio for a week, and
// then the chat booking tools and a USP platform both find it taken; a
// bad request names its flags and stores nothing.
func TestStaffBookTakesTheRoomForEveryDoor(t *testing.T) {
	t.Parallel()
	m, platform := startUSPDemo(t, "")
	data := m.Config.Store.DataDir
	out, _, err := runCmdAtTestNow(t, "staff", "book", "--data", data, "--location", "riverside", "--unit", "studio",
		"--checkin", "2026-12-30", "--checkout", "2027-01-06", "--name", "Walk In", "--phone", "+1 303 555 0100", "--by", "ann")
	if err != nil || !strings.Contains(out, " is confirmed: riverside studio, 2026-12-30 to 2027-01-05") {
		t.Fatalf("staff book = %q, %v", out, err)
	}
	ref := strings.Fields(out)[0]
	list, _, err := runCmdAtTestNow(t, "staff", "list", "--data", data, "--state", "confirmed")
	if err != nil || !strings.Contains(list, ref) || !strings.Contains(list, "staff") {
		t.Fatalf("staff list = %q, %v", list, err)
	}

	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, _ := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "studio",
		"checkin": "2026-12-31", "checkout": "2027-01-02", "guest_name": "Bea Chat", "email": "bea@example.com", "phone": "+1 303 555 0123"})
	if !res.IsError {
		t.Fatalf("chat started a booking of the studio staff booked: %s", text(res))
	}
	status, _, body := post(t, m.URL+"/usp/bookings", platform, `{"service_id":"svc_riverside_studio","slot_id":"slot_riverside_studio_20261230T2200Z",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	msgs, _ := decodeJSON(t, body)["messages"].([]any)
	if status != 200 || len(msgs) == 0 || msgs[0].(map[string]any)["code"] != "slot_unavailable" {
		t.Fatalf("USP booking of the room staff booked: %d %s", status, body)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--location", "nowhere"}, "--location: No such location."},
		{[]string{"--location", "riverside", "--unit", "yurt", "--name", "X", "--phone", "+1 303 555 0100"}, "--unit: No such room type"},
		{[]string{"--location", "riverside", "--unit", "double", "--checkin", "2027-01-06", "--checkout", "2027-01-02", "--name", "X", "--email", "x@example.com"}, "--checkin/--checkout:"},
		{[]string{"--location", "riverside", "--unit", "double", "--checkin", "2026-12-30", "--checkout", "2027-01-02"}, "--name: Give the guest's name."},
		{[]string{"--location", "riverside", "--unit", "studio", "--checkin", "2027-01-02", "--checkout", "2027-01-09", "--name", "X", "--email", "x@example.com"}, "staff book: No unit is free"},
	} {
		_, _, err := runCmdAtTestNow(t, append([]string{"staff", "book", "--data", data}, bad.args...)...)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("staff book %v = %v, want %q", bad.args, err, bad.want)
		}
	}
	if list, _, _ := runCmdAtTestNow(t, "staff", "list", "--data", data); strings.Count(list, "staff") != 1 {
		t.Fatalf("refused bookings were stored: %q", list)
	}
	if out, _, err := runCmdAtTestNow(t, "staff", "move", ref, "--data", data, "--by", "ann"); err != nil || out != ref+" is moved\n" {
		t.Fatalf("staff move = %q, %v", out, err)
	}
}

// TestStaffConfirmOfAUSPHoldIsRefused: a platform's hold is not awaiting
// staff; `frontdesk staff confirm` on its reference is refused with the
// desk's reason and the hold stays a hold, which the platform can still
// convert (into a confirmed booking, the shuttle being auto).
func TestStaffConfirmOfAUSPHoldIsRefused(t *testing.T) {
	t.Parallel()
	m, platform := startUSPDemo(t, "", unpaidDemo)
	_, _, body := post(t, m.URL+"/usp/availability/query", nil, `{"service_id":"svc_airport_shuttle","start_date":"2026-12-02","end_date":"2026-12-02"}`)
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, _, body := post(t, m.URL+"/usp/availability/holds", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, slot))
	if status != 201 {
		t.Fatalf("hold: %d %s", status, body)
	}
	holdID := decodeJSON(t, body)["hold"].(map[string]any)["id"].(string)
	ref := strings.TrimPrefix(holdID, "hold_")
	data := m.Config.Store.DataDir
	for _, action := range []string{"confirm", "decline", "cancel"} {
		_, _, err := runCmdAtTestNow(t, "staff", action, ref, "--data", data)
		if err == nil || !strings.Contains(err.Error(), "A hold is not a booking yet") {
			t.Fatalf("staff %s of a hold = %v", action, err)
		}
	}
	if list, _, _ := runCmdAtTestNow(t, "staff", "list", "--data", data, "--state", "reserved"); strings.Contains(list, ref) {
		t.Fatalf("the hold is listed as awaiting staff: %q", list)
	}
	if list, _, _ := runCmdAtTestNow(t, "staff", "list", "--data", data, "--state", "hold"); !strings.Contains(list, ref) {
		t.Fatalf("the hold is not listed as a hold: %q", list)
	}
	status, _, body = post(t, m.URL+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"hold_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot, holdID))
	// The shuttle is confirmation_mode auto: the conversion confirms it.
	if status != 201 || decodeJSON(t, body)["booking"].(map[string]any)["status"] != "confirmed" {
		t.Fatalf("converting the hold after staff tried: %d %s", status, body)
	}
}

// TestStaffBookOnTheStaffScreen: an owner books a walk-in from the staff
// screen's form; the reservation opens confirmed from source staff with
// its room held; a bad field shows the form again and books nothing; a
// clerk cannot book at another's property.
func TestStaffBookOnTheStaffScreen(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	if status, _, page := olga.do("GET", "/staff/reservations/new", nil); status != http.StatusOK || !strings.Contains(page, `id="staff-book"`) {
		t.Fatalf("booking form = %d %q", status, page)
	}
	walkIn := url.Values{"csrf": {olga.csrf}, "location": {"riverside"}, "roomtype": {"studio"}, "checkin": {"2026-12-30"},
		"checkout": {"2027-01-06"}, "name": {"Walk In"}, "phone": {"+1 303 555 0100"}}
	status, h, body := olga.do("POST", "/staff/reservations/new", walkIn)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/staff/reservations/RIV-") {
		t.Fatalf("staff booking = %d %s", status, body)
	}
	status, _, page := olga.do("GET", h.Get("Location"), nil)
	if status != http.StatusOK || !strings.Contains(page, "Booked and confirmed") || !strings.Contains(page, `<dd id="source">staff</dd>`) {
		t.Fatalf("booked reservation page = %d %q", status, page)
	}
	status, _, page = olga.do("POST", "/staff/reservations/new", walkIn)
	if status != http.StatusConflict || !strings.Contains(page, "No room of this type is free") {
		t.Fatalf("booking the studio twice = %d %q", status, page)
	}
	bad := url.Values{"csrf": {olga.csrf}, "location": {"riverside"}, "roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "phone": {"+1 303 555 0100"}}
	if status, _, page := olga.do("POST", "/staff/reservations/new", bad); status != http.StatusUnprocessableEntity || !strings.Contains(page, "Give the guest&#39;s name.") {
		t.Fatalf("booking without a name = %d %q", status, page)
	}
	carl := signIn(t, m, "carl")
	walkIn.Set("csrf", carl.csrf)
	if status, _, _ := carl.do("POST", "/staff/reservations/new", walkIn); status != http.StatusNotFound {
		t.Fatalf("a clerk booked at another property: %d", status)
	}
	list, _, _ := runCmdAtTestNow(t, "staff", "list", "--data", m.Config.Store.DataDir, "--state", "confirmed")
	if strings.Count(list, "RIV-") != 1 || !strings.Contains(list, "confirmed  staff") {
		t.Fatalf("staff bookings stored = %q", list)
	}
}

// TestStaffBookTakesAShuttleStart: `frontdesk staff book` takes the demo
// shuttle's 06:00 start, on either engine, and a USP platform then finds
// it taken, over REST and over MCP, while the other starts of the day
// stay free. A start off the shuttle's grid, outside its hours, already
// past, beyond the booking window or taken is refused with a sentence
// naming --start, and stores nothing.
func TestStaffBookTakesAShuttleStart(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { checkStaffBookOfAStart(t, "") })
	t.Run("postgres", func(t *testing.T) { checkStaffBookOfAStart(t, pgtest.Schema(t)) })
}

func checkStaffBookOfAStart(t *testing.T, database string) {
	m, platform := startUSPDemo(t, database)
	store := []string{"--data", m.Config.Store.DataDir}
	if database != "" {
		store = []string{"--database", database}
	}
	book := func(args ...string) (string, error) {
		out, _, err := runCmdAtTestNow(t, append(append([]string{"staff", "book"}, store...), args...)...)
		return out, err
	}
	walkIn := []string{"--location", "airport", "--unit", "shuttle", "--name", "Walk In", "--phone", "+1 303 555 0100", "--by", "ann"}
	const day, start = "2026-12-28", "2026-12-28T06:00:00-07:00"
	query := `{"service_id":"svc_airport_shuttle","start_date":"` + day + `","end_date":"` + day + `"}`
	// starts lists the day's free shuttle starts over REST and over MCP,
	// which must agree.
	cs := connect(t, m.URL+"/usp/mcp", "2025-11-25")
	starts := func() []string {
		t.Helper()
		_, _, body := post(t, m.URL+"/usp/availability/query", nil, query)
		var rest []string
		for _, s := range decodeJSON(t, body)["slots"].([]any) {
			rest = append(rest, s.(map[string]any)["start"].(string))
		}
		res, _ := callTool(t, cs, "usp_availability_query", map[string]any{"service_id": "svc_airport_shuttle", "start_date": day, "end_date": day})
		raw, _ := json.Marshal(res.StructuredContent)
		var viaMCP struct {
			Slots []struct {
				Start string `json:"start"`
			} `json:"slots"`
		}
		json.Unmarshal(raw, &viaMCP)
		var mcpStarts []string
		for _, s := range viaMCP.Slots {
			mcpStarts = append(mcpStarts, s.Start)
		}
		if !slices.Equal(rest, mcpStarts) {
			t.Fatalf("REST starts %v, MCP starts %v", rest, mcpStarts)
		}
		return rest
	}
	before := starts()
	if len(before) != 16 || before[0] != start {
		t.Fatalf("free starts before = %v, want 16 from 06:00", before)
	}

	out, err := book(append(walkIn, "--start", "2026-12-28 06:00")...)
	if err != nil || !strings.Contains(out, " is confirmed: airport shuttle at 2026-12-28 06:00") {
		t.Fatalf("staff book of the shuttle = %q, %v", out, err)
	}
	ref := strings.Fields(out)[0]
	if got := starts(); !slices.Equal(got, before[1:]) {
		t.Fatalf("free starts after = %v, want all but 06:00", got)
	}
	status, _, body := post(t, m.URL+"/usp/bookings", platform, `{"service_id":"svc_airport_shuttle","slot_id":"slot_airport_shuttle_20261228T1300Z",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	msgs, _ := decodeJSON(t, body)["messages"].([]any)
	if status != 200 || len(msgs) == 0 || msgs[0].(map[string]any)["code"] != "slot_unavailable" {
		t.Fatalf("USP booking of the start staff booked: %d %s", status, body)
	}

	grid := "--start: The shuttle starts every 60 minutes from 06:00, the last run ending by 22:00, local time"
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--start", "2026-12-28 06:30"}, grid},
		{[]string{"--start", "2026-12-28 23:00"}, grid},
		{[]string{"--start", "2026-12-28 21:30"}, grid},
		{[]string{"--start", "28/12/2026 07:00"}, grid},
		{[]string{"--start", "2026-11-02 07:00"}, "--start: This start has already passed"},
		{[]string{"--start", "2029-12-28 07:00"}, "--start: Starts can be booked at most 550 days ahead."},
		{nil, "--start: Give the start, YYYY-MM-DD HH:MM local time."},
		{[]string{"--start", "2026-12-28 07:00", "--checkin", "2026-12-28"}, "give --start for a timed unit or --checkin and --checkout for a stay, not both"},
		{[]string{"--start", "2026-12-28 06:00"}, "staff book: No unit is free for every slot."},
	} {
		if _, err := book(append(slices.Clone(walkIn), bad.args...)...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("staff book %v = %v, want %q", bad.args, err, bad.want)
		}
	}
	if got := starts(); !slices.Equal(got, before[1:]) {
		t.Fatalf("free starts after the refusals = %v, want all but 06:00", got)
	}
	list, _, err := runCmdAtTestNow(t, append([]string{"staff", "list"}, store...)...)
	if err != nil || strings.Count(list, "staff") != 1 || !strings.Contains(list, ref) || !strings.Contains(list, "2026-12-28T06:00") {
		t.Fatalf("staff list after the refusals = %q, %v", list, err)
	}
}
