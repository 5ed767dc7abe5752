package main

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/forget"
	"frontdesk/internal/clock"
)

// TestRecordKindsAreRegisteredOnce: every registration is complete and
// names its kind once.
func TestRecordKindsAreRegisteredOnce(t *testing.T) {
	if err := forget.Check(recordKinds()); err != nil {
		t.Fatal(err)
	}
}

// checkKindsRegistered fails the test when the SQLite store of c holds a
// record kind no package registered with forget: every end-to-end run
// checks the kinds its flows wrote, so a new kind cannot escape
// `frontdesk forget` and the retention sweep unnoticed.
func checkKindsRegistered(t testing.TB, c config.Store) {
	t.Helper()
	path := filepath.Join(c.DataDir, "frontdesk.db")
	if c.Database != "" || c.DataDir == "" {
		return
	}
	if _, err := os.Stat(path); err != nil {
		return
	}
	db, err := sql.Open("sqlite", path+"?_query_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT DISTINCT kind FROM records`)
	if err != nil {
		t.Errorf("the kinds stored: %v", err)
		return
	}
	defer rows.Close()
	var stored []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, k)
	}
	if missing := forget.Missing(recordKinds(), stored); len(missing) > 0 {
		t.Errorf("the store holds record kinds no package registers with forget (say what each keeps, how long and how a guest is forgotten from it, in the package that writes it): %v", missing)
	}
}

// guestStay books a stay in chat for a guest and returns its reference;
// with cancel it is cancelled in chat afterwards.
func guestStay(t *testing.T, m *Main, cs *mcp.ClientSession, name, email, phone, checkin, checkout string, cancel bool) string {
	t.Helper()
	res, out := callTool(t, cs, "start_booking", map[string]any{"property": "Riverside Inn", "roomtype": "double", "checkin": checkin, "checkout": checkout,
		"guest_name": name, "email": email, "phone": phone})
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	res, out = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, m.URL, email)})
	if res.IsError {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	ref := out["reservation_number"].(string)
	if !cancel {
		return ref
	}
	m.Clock.(*clock.Fixed).Advance(time.Minute) // the cancellation code is the newest mail
	res, out = callTool(t, cs, "cancel_booking", map[string]any{"reservation_number": ref, "phone_last4": phone[len(phone)-4:]})
	if res.IsError {
		t.Fatalf("cancel_booking: %s", text(res))
	}
	res, _ = callTool(t, cs, "cancel_booking", map[string]any{"cancel_id": out["cancel_id"], "code": latestCode(t, m.URL, email)})
	if res.IsError {
		t.Fatalf("cancel_booking step 2: %s", text(res))
	}
	return ref
}

// flushMail reads the dev mailbox, which writes its messages in the
// background and flushes them on a read, so a snapshot taken next is the
// store at rest.
func flushMail(t *testing.T, m *Main) {
	t.Helper()
	resp, err := http.Get(m.URL + "/dev/mail.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The notices' outcomes are stored after their answers too, and the
	// outbox's consumers take up each transition after its commit.
	m.bookings.Settle(t.Context())
	if err := m.bookings.Desk().Relay(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// storeRows reads every record and reservation of the SQLite store, keyed
// "table kind key", as the bytes stored.
func storeRows(t *testing.T, dir string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "frontdesk.db")+"?_query_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]string{}
	for _, q := range []string{`SELECT 'record ' || kind || ' ' || key, value || version FROM records`,
		`SELECT 'reservation ' || reference, contact_key || value || version FROM reservations`} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, v string
			rows.Scan(&k, &v)
			out[k] = v
		}
		rows.Close()
	}
	return out
}

// TestForgetRemovesOneGuest books and cancels a stay for each of two
// guests, forgets one with --dry-run (nothing changes) and then for real:
// no row names her any more, her reservation keeps its dates without her
// contact, and every row of the other guest is as it was. A guest with a
// stay still to happen is refused, changing nothing.
func TestForgetRemovesOneGuest(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	ada := guestStay(t, m, cs, "Ada Lovelace", "ada@example.com", "+1 303 555 0199", "2026-12-30", "2027-01-02", true)
	grace := guestStay(t, m, cs, "Grace Hopper", "grace@example.com", "+1 303 555 0142", "2027-01-10", "2027-01-12", true)
	dir := m.Config.Store.DataDir
	flushMail(t, m)
	before := storeRows(t, dir)
	if !strings.Contains(before["reservation "+ada], "ada@example.com") {
		t.Fatalf("the reservation does not hold the address to forget: %s", before["reservation "+ada])
	}

	out, _, err := runCmdAtTestNow(t, "forget", "--data", dir, "--email", "ADA@example.com", "--dry-run")
	if err != nil || !strings.Contains(out, "dry run") || !strings.Contains(out, "reservation "+ada) {
		t.Fatalf("forget --dry-run = %q, %v", out, err)
	}
	if after := storeRows(t, dir); !equalRows(before, after) {
		t.Fatal("forget --dry-run changed the store")
	}

	out, _, err = runCmdAtTestNow(t, "forget", "--data", dir, "--email", "ada@example.com")
	t.Logf("forget:\n%s", out)
	if err != nil || !strings.Contains(out, "forgot 1 reservations") {
		t.Fatalf("forget = %q, %v", out, err)
	}
	after := storeRows(t, dir)
	for k, v := range after {
		for _, trace := range []string{"ada@example.com", "Ada Lovelace", "303 555 0199", "3035550199"} {
			if strings.Contains(strings.ToLower(v), strings.ToLower(trace)) {
				t.Errorf("%s still names %q: %.200s", k, trace, v)
			}
		}
	}
	if v, ok := after["reservation "+ada]; !ok || !strings.Contains(v, "(forgotten)") || !strings.Contains(v, "2026-12-30") {
		t.Errorf("the forgotten reservation = %.300s, want its dates kept and its contact gone", v)
	}
	removed := 0
	for k, v := range before {
		w, kept := after[k]
		if kept && w == v {
			continue
		}
		removed++
		if !strings.Contains(strings.ToLower(v), "ada") && !strings.Contains(k, ada) && !strings.HasPrefix(k, "record booking-mailbox") &&
			!strings.HasPrefix(k, "record booking-contact") && !strings.HasPrefix(k, "record booking-notice-due") {
			t.Errorf("forget changed %s, which is not Ada's: %.200s", k, v)
		}
		if strings.Contains(v, "grace@example.com") || strings.Contains(k, grace) {
			t.Errorf("forget changed Grace's %s", k)
		}
	}
	if removed < 4 {
		t.Errorf("forget changed %d rows, want her reservation, intent, mail and markers", removed)
	}
	if !strings.Contains(after["reservation "+grace], "grace@example.com") {
		t.Error("the other guest's reservation lost its contact")
	}

	// A stay still to happen keeps its guest until it is over.
	upcoming := guestStay(t, m, cs, "Grace Hopper", "grace@example.com", "+1 303 555 0142", "2027-02-10", "2027-02-12", false)
	flushMail(t, m)
	before = storeRows(t, dir)
	if _, _, err := runCmdAtTestNow(t, "forget", "--data", dir, "--email", "grace@example.com"); err == nil || !strings.Contains(err.Error(), upcoming) {
		t.Fatalf("forget with a stay to come = %v, want a refusal naming %s", err, upcoming)
	}
	if !equalRows(before, storeRows(t, dir)) {
		t.Fatal("a refused forget changed the store")
	}
}

func equalRows(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
