package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/relay"
)

// hubGuests are the guests booked at each location for the hub's staff
// screen to find: a name, an address and a phone of each one's own.
var hubGuests = map[string][3]string{
	"riverside": {"Grace Hopper", "grace.hopper@example.com", "+1 303 555 0101"},
	"oldtown":   {"Alan Turing", "alan.turing@example.com", "+1 303 555 0102"},
	"airport":   {"Edsger Dijkstra", "edsger.dijkstra@example.com", "+1 303 555 0103"},
}

// bookToday books a double arriving today at location slug for its
// hubGuests guest, through the location's own store, and returns the
// reference.
func (d *splitDeployment) bookToday(t *testing.T, slug string) string {
	t.Helper()
	zone, err := time.LoadLocation("America/Denver") // the demo's properties'
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(zone)
	g := hubGuests[slug]
	args := append([]string{"staff", "book", "--config", filepath.Join(d.dir, slug+".toml"), "--location", slug, "--unit", "double",
		"--checkin", today.Format(time.DateOnly), "--checkout", today.AddDate(0, 0, 2).Format(time.DateOnly),
		"--name", g[0], "--email", g[1], "--phone", g[2]}, d.stores[slug]...)
	out, err := exec.Command(d.bin, args...).Output()
	ref := regexp.MustCompile(`^[A-Z]{3}-[0-9A-Z]+`).FindString(string(out))
	if err != nil || ref == "" {
		t.Fatalf("staff book at %s: %v\n%q", slug, err, out)
	}
	return ref
}

// staffRelay sends a staff operation to location slug's relay endpoint
// signed with keys, and returns the status and the answer's body.
func (d *splitDeployment) staffRelay(t *testing.T, slug, op, body string, keys []relay.Key) (int, string) {
	t.Helper()
	return d.staffRelayAt(t, slug, op, body, keys, time.Now(), fmt.Sprintf("%032x", time.Now().UnixNano()))
}

// staffRelayAt is staffRelay signed at the time and nonce given.
func (d *splitDeployment) staffRelayAt(t *testing.T, slug, op, body string, keys []relay.Key, at time.Time, nonce string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.origins[slug]+relay.PathPrefix+op, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	relay.Sign(req, []byte(body), keys, at, nonce)
	return roundTrip(t, req)
}

// TestSplitHubStaff: the hub and three locations as processes, on both
// engines. A login of the hub's own signs in at the hub and sees every
// location it may in one list, each location's day and calendar, and
// finds a guest at any location by name, email, phone or part of the
// reference; a stopped location is named as not read while the others'
// rows still show, and is read again once it is back; it acts on a
// reservation through the hub, recorded under its name; a clerk of one
// location sees that location alone, and a location refuses a call for
// a scope that does not hold it, however well signed.
func TestSplitHubStaff(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitHubStaff(t, engine) })
	}
}

func testSplitHubStaff(t *testing.T, engine string) {
	d := startSplit(t, engine)
	refs := map[string]string{}
	for slug := range hubGuests {
		refs[slug] = d.bookToday(t, slug)
	}
	d.addUser(t, "hub", "gina", "--role", "owner")
	d.addUser(t, "hub", "carl", "--role", "clerk", "--location", "oldtown")
	gina := d.signInAt(t, "hub", "gina")
	if strings.Contains(gina.cookie, ".") {
		t.Fatalf("a hub login's session %q names a location", gina.cookie)
	}
	get := func(c *staffClient, path string) string {
		t.Helper()
		status, _, body := c.do("GET", path, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s at the hub = %d\n%s", path, status, body)
		}
		return body
	}
	signInPage := get(&staffClient{t: t, base: d.hub}, "/staff/signin")
	if !strings.Contains(signInPage, `action="/staff/signin"`) || !strings.Contains(signInPage, `<a href="/staff/signin?location=oldtown">Old Town Lodge</a>`) {
		t.Fatalf("the hub's sign-in page:\n%s", signInPage)
	}
	list := get(gina, "/staff/reservations")
	for slug, ref := range refs {
		if !strings.Contains(list, `href="/staff/reservations/`+ref+`"`) {
			t.Errorf("the hub's list lacks %s of %s", ref, slug)
		}
		for _, page := range []string{"/staff/today", "/staff/calendar"} {
			if body := get(gina, page+"?location="+slug); !strings.Contains(body, ref) {
				t.Errorf("%s?location=%s at the hub lacks %s", page, slug, ref)
			}
		}
	}
	if strings.Contains(list, `id="unread"`) {
		t.Fatalf("the hub's list names a location unread with every one up:\n%s", list)
	}
	arrivals := regexp.MustCompile(`<strong>(\d+)</strong> arrivals? today`)
	dash := get(gina, "/staff/")
	if m := arrivals.FindStringSubmatch(dash); m == nil || m[1] != "3" {
		t.Fatalf("the hub's dashboard counts %v arrivals today, want 3", m)
	}

	// Search by name, email, phone and part of the reference.
	for slug, g := range hubGuests {
		ref := refs[slug]
		for _, q := range []string{strings.Fields(g[0])[1], g[1], g[2], ref[:9]} {
			body := get(gina, "/staff/reservations?q="+url.QueryEscape(q))
			if !strings.Contains(body, ref) {
				t.Errorf("a search at the hub for %q lacks %s of %s", q, ref, slug)
			}
			for other, r := range refs {
				if other != slug && strings.Contains(body, r) {
					t.Errorf("a search at the hub for %q finds %s of %s", q, r, other)
				}
			}
		}
	}

	// A location down: the others still show, and it is named.
	d.stop("oldtown")
	list = get(gina, "/staff/reservations")
	if !strings.Contains(list, refs["riverside"]) || !strings.Contains(list, refs["airport"]) || strings.Contains(list, refs["oldtown"]) {
		t.Fatalf("the hub's list with Old Town Lodge down:\n%s", list)
	}
	if !regexp.MustCompile(`id="unread">\s*<li>Not read: Old Town Lodge — it`).MatchString(list) {
		t.Fatalf("the hub's list does not name Old Town Lodge unread:\n%s", list)
	}
	if body := get(gina, "/staff/today?location=oldtown"); !strings.Contains(body, "Not read: Old Town Lodge") || strings.Contains(body, `id="arrivals-title"`) {
		t.Fatalf("Old Town Lodge's day at the hub with it down:\n%s", body)
	}
	if body := get(gina, "/staff/calendar?location=oldtown"); !strings.Contains(body, "Not read: Old Town Lodge") || strings.Contains(body, "free</td>") {
		t.Fatalf("Old Town Lodge's calendar at the hub with it down claims rooms free:\n%s", body)
	}
	dash = get(gina, "/staff/")
	if m := arrivals.FindStringSubmatch(dash); m == nil || m[1] != "2" || !strings.Contains(dash, "Not read: Old Town Lodge") {
		t.Fatalf("the hub's dashboard with Old Town Lodge down counts %v arrivals today:\n%s", m, dash)
	}
	d.restart(t, "oldtown")
	if list = get(gina, "/staff/reservations"); !strings.Contains(list, refs["oldtown"]) || strings.Contains(list, `id="unread"`) {
		t.Fatalf("the hub's list with Old Town Lodge back:\n%s", list)
	}

	// The detail through the hub, and a decision recorded under the hub
	// login's name at the location.
	ref := refs["riverside"]
	detail := get(gina, "/staff/reservations/"+ref)
	csrf := csrfField.FindStringSubmatch(detail)
	if !strings.Contains(detail, hubGuests["riverside"][0]) || csrf == nil {
		t.Fatalf("the hub's page of %s:\n%s", ref, detail)
	}
	status, h, body := gina.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {csrf[1]}, "to": {"cancelled"}, "note": {"asked by phone"}})
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/staff/reservations/"+ref+"?done=cancelled") {
		t.Fatalf("cancel %s at the hub = %d %s\n%s", ref, status, h.Get("Location"), body)
	}
	if body := get(gina, "/staff/reservations/"+ref); !regexp.MustCompile(`<li>[^<]* gina: [^<]*\(asked by phone\)</li>`).MatchString(body) {
		t.Fatalf("the audit of %s does not name gina as the one who cancelled:\n%s", ref, body)
	}
	// The location's own rules answer, as they would there.
	if status, _, body := gina.do("GET", "/staff/reservations/APS-0000000000000000", nil); status != http.StatusNotFound {
		t.Fatalf("a reference Airport Suites does not hold, at the hub = %d\n%s", status, body)
	}
	status, h, _ = gina.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {csrf[1]}, "to": {"confirmed"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/staff/reservations/"+ref+"?done=illegal" {
		t.Fatalf("confirming the cancelled %s at the hub = %d %s", ref, status, h.Get("Location"))
	}
	// A booking for a guest on the phone, made at the hub, is the
	// location's: the hub's store keeps none.
	in := time.Now().AddDate(0, 0, 40).Format(time.DateOnly)
	out := time.Now().AddDate(0, 0, 41).Format(time.DateOnly)
	status, h, body = gina.do("POST", "/staff/reservations/new", url.Values{"csrf": {csrf[1]}, "location": {"airport"}, "roomtype": {"double"},
		"checkin": {in}, "checkout": {out}, "name": {"Barbara Liskov"}, "email": {"barbara.liskov@example.com"}, "phone": {"+1 303 555 0104"}, "guests": {"1"}})
	booked := regexp.MustCompile(`^/staff/reservations/(APS-[0-9A-Z]+)\?done=booked$`).FindStringSubmatch(h.Get("Location"))
	if status != http.StatusSeeOther || booked == nil {
		t.Fatalf("a booking at Airport Suites through the hub = %d %s\n%s", status, h.Get("Location"), body)
	}
	if !strings.Contains(d.staffList(t, "airport"), booked[1]) || strings.Contains(d.staffList(t, "hub"), booked[1]) {
		t.Fatalf("%s booked through the hub is not Airport Suites' alone", booked[1])
	}

	// A clerk of Old Town Lodge sees it alone.
	carl := d.signInAt(t, "hub", "carl")
	list = get(carl, "/staff/reservations")
	if !strings.Contains(list, refs["oldtown"]) || strings.Contains(list, refs["airport"]) || strings.Contains(list, ref) {
		t.Fatalf("Old Town Lodge's clerk's list at the hub:\n%s", list)
	}
	for _, path := range []string{"/staff/reservations?location=airport", "/staff/reservations/" + refs["airport"]} {
		if status, _, _ := carl.do("GET", path, nil); status != http.StatusNotFound {
			t.Errorf("GET %s as Old Town Lodge's clerk = %d, want 404", path, status)
		}
	}
	if body := get(carl, "/staff/reservations?q="+url.QueryEscape("Dijkstra")); strings.Contains(body, refs["airport"]) {
		t.Fatalf("Old Town Lodge's clerk finds %s of Airport Suites", refs["airport"])
	}
	// The location enforces the scope the call carries, however well
	// signed; a call signed without the secret reads nothing either.
	scoped := `{"slug":"airport","args":{"by":"carl","role":"clerk","locations":["oldtown"]}}`
	if status, body := d.staffRelay(t, "airport", relay.OpStaffList, scoped, d.keys); strings.Contains(body, refs["airport"]) || !strings.Contains(body, "does not work at this property") {
		t.Fatalf("a signed list at Airport Suites for Old Town Lodge's clerk = %d %s", status, body)
	}
	owner := `{"slug":"airport","args":{"by":"gina","role":"owner"}}`
	forged := []relay.Key{{N: 1, Key: bytes.Repeat([]byte{7}, 32)}}
	if status, body := d.staffRelay(t, "airport", relay.OpStaffList, owner, forged); status != http.StatusUnauthorized || strings.Contains(body, refs["airport"]) {
		t.Fatalf("a forged list at Airport Suites = %d %s", status, body)
	}
	now, nonce := time.Now(), fmt.Sprintf("%032x", time.Now().UnixNano())
	if _, body := d.staffRelayAt(t, "airport", relay.OpStaffList, owner, d.keys, now, nonce); !strings.Contains(body, refs["airport"]) {
		t.Fatalf("a signed list at Airport Suites for an owner lacks %s: %s", refs["airport"], body)
	}
	for what, at := range map[string]time.Time{"replayed": now, "stale": now.Add(-time.Minute)} {
		if status, body := d.staffRelayAt(t, "airport", relay.OpStaffList, owner, d.keys, at, nonce); status != http.StatusUnauthorized || strings.Contains(body, refs["airport"]) {
			t.Fatalf("a %s list at Airport Suites = %d %s", what, status, body)
		}
	}
}
