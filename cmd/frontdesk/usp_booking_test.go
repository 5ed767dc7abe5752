package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/inventory"
	"frontdesk/reservation"
	"frontdesk/usp/usptest"
)

// demoPlatformKey is the demo platform's API key, as the README gives it.
const demoPlatformKey = "demo-platform-key"

const e2eProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// e2eWaitlistProfile is e2eProfile with the waitlist as well.
var e2eWaitlistProfile = strings.TrimSuffix(e2eProfile, "}}}") + `,
 "dev.usp-protocol.services.waitlist":[{"version":"2026-08-20","extends":"dev.usp-protocol.services.bookings"}]}}}`

// startUSPDemo runs the demo on loopback with a platform profile served
// over TLS by a local server whose certificate the profile fetcher
// trusts. It returns the running Main and the headers the demo platform
// sends on privileged calls.
func startUSPDemo(t testing.TB, database string, edit ...func(*Main)) (*Main, map[string]string) {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/demo-platform.json": e2eProfile, "/demo-waitlist.json": e2eWaitlistProfile})
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.Store.Database = database
	withMetricsToken(&c)
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow), Out: io.Discard,
		ready: make(chan struct{}), USPRootCAs: plat.Roots()}
	for _, e := range edit {
		e(m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-m.ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v", err)
		}
	})
	return m, map[string]string{"Authorization": "Bearer " + demoPlatformKey, "USP-Agent": `profile="` + plat.URL + `/demo-platform.json"`, "Content-Type": "application/json"}
}

// unpaidDemo takes the demo's payment terms out, for tests of what a USP
// booking does apart from its payment (the demo's shuttle is paid when
// booking).
func unpaidDemo(m *Main) { m.Config = usptest.Unpaid(m.Config) }

func decodeJSON(t testing.TB, body string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("not JSON: %s", body)
	}
	return out
}

// TestUSPBlackBox is the check of issue 11 against the running demo: a
// platform reads the profile, lists services, queries 14 days of shuttle
// slots, holds one and books it with its API key; the shuttle being paid
// when booking and confirmation_mode auto, the booking is confirmed once
// the platform confirms its payment, while a
// room's stays pending until `frontdesk staff confirm`; the shuttle
// booking is rescheduled and cancelled; and a
// room the chat booking tools just took cannot be booked over USP.
func TestUSPBlackBox(t *testing.T) {
	t.Parallel()
	m, platform := startUSPDemo(t, "")
	url := m.URL
	status, _, body := send(t, "GET", url+"/.well-known/usp", nil, nil)
	profile := decodeJSON(t, body)
	caps := profile["usp"].(map[string]any)["capabilities"].(map[string]any)
	if status != 200 || caps["dev.usp-protocol.services.bookings"] == nil || caps["dev.usp-protocol.services.availability"].([]any)[0].(map[string]any)["holds"] != true ||
		!strings.Contains(body, `"api_key"`) {
		t.Fatalf("profile: %d %s", status, body)
	}
	if status, _, body = post(t, url+"/usp/services/list", nil, `{}`); status != 200 || !strings.Contains(body, "svc_airport_shuttle") {
		t.Fatalf("list: %d %s", status, body)
	}
	q, _ := json.Marshal(shuttleQuery14Days(500))
	status, _, body = post(t, url+"/usp/availability/query", nil, string(q))
	slots := decodeJSON(t, body)["slots"].([]any)
	if status != 200 || len(slots) != 224 {
		t.Fatalf("query: %d, %d slots", status, len(slots))
	}
	first, second := slots[0].(map[string]any)["id"].(string), slots[1].(map[string]any)["id"].(string)

	status, _, body = post(t, url+"/usp/availability/holds", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, first))
	if status != 201 {
		t.Fatalf("hold: %d %s", status, body)
	}
	hold := decodeJSON(t, body)["hold"].(map[string]any)
	status, _, body = post(t, url+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"hold_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone_number":"+13035550199"}}`, first, hold["id"]))
	if status != 201 {
		t.Fatalf("book: %d %s", status, body)
	}
	ref := decodeJSON(t, body)["booking"].(map[string]any)["id"].(string)
	get := func() map[string]any {
		t.Helper()
		status, _, body := send(t, "GET", url+"/usp/bookings/"+ref, platform, nil)
		if status != 200 {
			t.Fatalf("get: %d %s", status, body)
		}
		return decodeJSON(t, body)["booking"].(map[string]any)
	}
	// The demo's shuttle is paid when booking: the booking waits for its
	// payment with one payment action. The platform's own checkout takes
	// it and says so; the shuttle being confirmation_mode auto, that
	// confirms it, and staff see it confirmed, labelled with the platform.
	b := get()
	actions, _ := b["actions"].([]any)
	if b["status"] != "requires_action" || len(actions) != 1 {
		t.Fatalf("booked: %v", b)
	}
	due := actions[0].(map[string]any)["payment_context"].(map[string]any)["amount_due"]
	status, _, body = post(t, url+"/usp/bookings/"+ref+"/confirm-payment", platform,
		fmt.Sprintf(`{"payment_result":{"status":"paid","provider":"acp","transaction_id":"txn_e2e","amount_paid":%v,"currency":"USD"}}`, due))
	if status != 200 {
		t.Fatalf("confirm-payment: %d %s", status, body)
	}
	if b := get(); b["status"] != "confirmed" || b["confirmation_mode"] != "auto" || b["payment"].(map[string]any)["status"] != "paid" {
		t.Fatalf("paid: %v", b)
	}
	data := m.Config.Store.DataDir
	list, _, err := runCmdAtTestNow(t, "staff", "list", "--data", data, "--state", "confirmed")
	if err != nil || !strings.Contains(list, ref) || !strings.Contains(list, "usp:demo-platform") {
		t.Fatalf("staff list = %q, %v", list, err)
	}
	// A room is manual: pending until `frontdesk staff confirm`.
	status, _, body = post(t, url+"/usp/bookings", platform, `{"service_id":"svc_riverside_double","slot_id":"slot_riverside_double_20261210T2200Z",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	if status != 201 {
		t.Fatalf("room booking: %d %s", status, body)
	}
	room := decodeJSON(t, body)["booking"].(map[string]any)
	if room["status"] != "pending" || room["confirmation_mode"] != "manual" {
		t.Fatalf("room booked: %v", room)
	}
	if out, _, err := runCmdAtTestNow(t, "staff", "confirm", room["id"].(string), "--data", data, "--by", "ann"); err != nil || !strings.HasPrefix(out, room["id"].(string)+" is confirmed") {
		t.Fatalf("staff confirm = %q, %v", out, err)
	}
	status, _, body = post(t, url+"/usp/bookings/"+ref+"/reschedule", platform, fmt.Sprintf(`{"slot_id":%q}`, second))
	if status != 200 || decodeJSON(t, body)["booking"].(map[string]any)["slot"].(map[string]any)["id"] != second {
		t.Fatalf("reschedule: %d %s", status, body)
	}
	status, _, body = post(t, url+"/usp/bookings/"+ref+"/cancel", platform, `{"reason":"plans changed"}`)
	if status != 200 || get()["status"] != "canceled" {
		t.Fatalf("cancel: %d %s", status, body)
	}

	// The chat booking tools take Riverside's one studio for a week.
	cs := connect(t, url+"/mcp", "2025-11-25")
	res, out := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "studio",
		"checkin": "2026-12-30", "checkout": "2027-01-06", "guest_name": "Bea Chat", "email": "bea@example.com", "phone": "+1 303 555 0123"})
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	if res, _ = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, url, "bea@example.com")}); res.IsError {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	status, _, body = post(t, url+"/usp/bookings", platform, `{"service_id":"svc_riverside_studio","slot_id":"slot_riverside_studio_20261230T2200Z",
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
	msgs, _ := decodeJSON(t, body)["messages"].([]any)
	if status != 200 || len(msgs) == 0 || msgs[0].(map[string]any)["code"] != "slot_unavailable" {
		t.Fatalf("USP booking of the room chat took: %d %s", status, body)
	}
}

// TestLastRoomRaceAcrossDoors: a USP platform's booking, a chat guest's
// confirmation and staff accepting a booking-form request all want
// Riverside's one studio for the same week at once. Exactly one gets it,
// on both engines: every door takes units through the same conditional
// write.
func TestLastRoomRaceAcrossDoors(t *testing.T) {
	engines := map[string]func(t *testing.T) string{"sqlite": func(*testing.T) string { return "" }}
	if os.Getenv("FRONTDESK_TEST_POSTGRES") != "" || os.Getenv("CI") == "true" {
		engines["postgres"] = func(t *testing.T) string { return pgtest.Schema(t) }
	}
	for name, database := range engines {
		t.Run(name, func(t *testing.T) {
			for round := range 3 {
				raceOnce(t, database(t), round)
			}
		})
	}
}

func raceOnce(t *testing.T, database string, round int) {
	m, platform := startUSPDemo(t, database)
	url := m.URL
	ctx := context.Background()
	checkin, checkout := "2026-12-30", "2027-01-06"
	// The chat guest has proved their address; only the confirmation
	// remains.
	cs := connect(t, url+"/mcp", "2025-11-25")
	res, out := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "studio",
		"checkin": checkin, "checkout": checkout, "guest_name": "Bea Chat", "email": "bea@example.com", "phone": "+1 303 555 0123"})
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	chatArgs := map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, url, "bea@example.com")}
	day, err := civil.Parse(checkin)
	if err != nil {
		t.Fatal(err)
	}
	// The form request holds nothing until staff accept it.
	form, err := m.bookings.Core().Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "studio", Slots: inventory.Nights(day, 7),
		Guests: 1, Source: reservation.SourceForm, Contact: reservation.Contact{Name: "Cy Form", Email: "cy@example.com"}, By: "guest"})
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg                       sync.WaitGroup
		uspWon, chatWon, formWon bool
	)
	start := make(chan struct{})
	wg.Go(func() {
		<-start
		status, _, body := post(t, url+"/usp/bookings", platform, `{"service_id":"svc_riverside_studio","slot_id":"slot_riverside_studio_20261230T2200Z",
			"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`)
		uspWon = status == 201
		if status != 201 && (status != 200 || !strings.Contains(body, "slot_unavailable")) {
			t.Errorf("USP loser answered %d %s", status, body)
		}
	})
	wg.Go(func() {
		<-start
		res, err := cs.CallTool(ctx, toolParams("confirm_booking", chatArgs))
		if err != nil {
			t.Errorf("confirm_booking: %v", err)
			return
		}
		chatWon = !res.IsError
	})
	wg.Go(func() {
		<-start
		_, _, err := m.bookings.Core().Decide(ctx, reservation.Decision{Reference: form.Reference, To: reservation.Confirmed, By: "ann"})
		formWon = err == nil
		if err != nil && !errors.Is(err, reservation.ErrUnitTaken) {
			t.Errorf("staff accept: %v", err)
		}
	})
	close(start)
	wg.Wait()
	won := 0
	for _, w := range []bool{uspWon, chatWon, formWon} {
		if w {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("round %d: %d doors got the last studio (usp %v, chat %v, form %v)", round, won, uspWon, chatWon, formWon)
	}
	counts, err := m.store.Counts(ctx, "riverside", checkin, checkout)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Unit == "studio" && c.Held != 1 {
			t.Fatalf("round %d: studio held %d times on %s", round, c.Held, c.Slot)
		}
	}
}

// uspBooking books the first shuttle slot on day over REST as the demo
// platform and returns the booking id.
func uspBooking(t *testing.T, url string, platform map[string]string, day string) string {
	t.Helper()
	_, _, body := post(t, url+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, _, body := post(t, url+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot))
	if status != 201 {
		t.Fatalf("book: %d %s", status, body)
	}
	return decodeJSON(t, body)["booking"].(map[string]any)["id"].(string)
}

// TestUSPBookingOnTheStaffScreen: a USP booking is listed on the staff
// screen labelled with its platform; confirming it there is the booking's
// confirmation over USP. An owner's staff session also confirms over
// USP; a clerk's does not.
func TestUSPBookingOnTheStaffScreen(t *testing.T) {
	t.Parallel()
	m, platform := startUSPDemo(t, "", unpaidDemo)
	addStaff(t, m)
	ref := uspBooking(t, m.URL, platform, "2026-12-02")
	olga := signIn(t, m, "olga")
	if _, _, list := olga.do("GET", "/staff/reservations?source=usp:demo-platform", nil); !strings.Contains(list, ref) || !strings.Contains(list, "USP: demo-platform") {
		t.Fatalf("staff list lacks the USP booking: %q", list)
	}
	if status, _, page := olga.do("GET", "/staff/reservations/"+ref, nil); status != 200 || !strings.Contains(page, `<dd id="source">USP: demo-platform</dd>`) {
		t.Fatalf("staff view = %d %q", status, page)
	}
	if status, _, body := olga.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {olga.csrf}, "to": {"confirmed"}}); status != http.StatusSeeOther {
		t.Fatalf("staff confirm = %d %s", status, body)
	}
	_, _, body := send(t, "GET", m.URL+"/usp/bookings/"+ref, platform, nil)
	if got := decodeJSON(t, body)["booking"].(map[string]any)["status"]; got != "confirmed" {
		t.Fatalf("after the staff screen's confirm: %v", got)
	}

	second := uspBooking(t, m.URL, platform, "2026-12-03")
	carl := signIn(t, m, "carl")
	if status, _, body := post(t, m.URL+"/usp/bookings/"+second+"/confirm", map[string]string{"Authorization": "StaffSession " + carl.cookie}, `{}`); status != 401 {
		t.Fatalf("clerk's session confirms over USP: %d %s", status, body)
	}
	status, _, body := post(t, m.URL+"/usp/bookings/"+second+"/confirm", map[string]string{"Authorization": "StaffSession " + olga.cookie}, `{}`)
	if status != 200 || decodeJSON(t, body)["booking"].(map[string]any)["status"] != "confirmed" {
		t.Fatalf("owner's session over USP: %d %s", status, body)
	}
}

// TestUSPLogsHoldNoGuestData: a whole USP booking's life, refusals
// included, logs no buyer name, email or phone and no API key.
func TestUSPLogsHoldNoGuestData(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m, platform := startUSPDemo(t, "", func(m *Main) {
		m.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ref := uspBooking(t, m.URL, platform, "2026-12-02")
	post(t, m.URL+"/usp/bookings/"+ref+"/cancel", platform, `{"reason":"Ada's plans changed"}`)
	post(t, m.URL+"/usp/bookings/"+ref+"/cancel", platform, `{}`)
	post(t, m.URL+"/usp/bookings", map[string]string{"Authorization": "Bearer wrong-key"}, `{"buyer":{"email":"ada@example.com"}}`)
	out := logs.String()
	if !strings.Contains(out, "usp booking created") {
		t.Fatalf("the booking was not logged at all:\n%s", out)
	}
	for _, secret := range []string{"Ada", "Lovelace", "ada@example.com", demoPlatformKey, "wrong-key"} {
		if strings.Contains(out, secret) {
			t.Errorf("the logs carry %q", secret)
		}
	}
}
