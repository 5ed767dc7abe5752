package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/store"
)

const staffPassword = "correct horse battery"

// addStaff creates the owner olga and carl, a clerk of Old Town only,
// with a cheap hash: the hash's cost travels in it.
func addStaff(t testing.TB, m *Main) {
	t.Helper()
	svc, err := staff.New(m.store, m.Config.Portfolio, staff.Options{Clock: m.Clock, Hashing: staff.Hashing{Time: 1, Memory: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.AddUser(ctx, "olga", staffPassword, staff.Owner, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddUser(ctx, "carl", staffPassword, staff.Clerk, []string{"oldtown"}); err != nil {
		t.Fatal(err)
	}
}

// chatBooking books a stay through the hub's MCP tools and returns its
// reference.
func chatBooking(t *testing.T, m *Main, property, roomtype, email, phone string) string {
	t.Helper()
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	res, out := callTool(t, cs, "start_booking", map[string]any{"property": property, "roomtype": roomtype, "checkin": "2026-12-30",
		"checkout": "2027-01-02", "guest_name": "Ada Lovelace", "email": email, "phone": phone})
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	res, out = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, m.URL, email)})
	if res.IsError {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	return out["reservation_number"].(string)
}

// staffClient is a browser without a cookie jar: the test chooses which
// cookie each request carries.
type staffClient struct {
	t      *testing.T
	base   string
	cookie string
	csrf   string
}

func (c *staffClient) do(method, path string, form url.Values) (int, http.Header, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, c.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: "frontdesk_staff", Value: c.cookie})
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs user in and reads the session's CSRF token from a form.
func signIn(t *testing.T, m *Main, user string) *staffClient {
	t.Helper()
	c := &staffClient{t: t, base: m.URL}
	status, h, body := c.do("POST", "/staff/signin", url.Values{"username": {user}, "password": {staffPassword}})
	if status != http.StatusSeeOther {
		t.Fatalf("sign-in of %s = %d %s", user, status, body)
	}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == "frontdesk_staff" {
			c.cookie = ck.Value
		}
	}
	_, _, page := c.do("GET", "/staff/signout", nil)
	match := csrfField.FindStringSubmatch(page)
	if c.cookie == "" || match == nil {
		t.Fatalf("no session after sign-in: %q", page)
	}
	c.csrf = match[1]
	return c
}

func (m *Main) reservationState(t *testing.T, ref string) reservation.State {
	t.Helper()
	r, err := reservation.Get(context.Background(), m.store, ref)
	if err != nil {
		t.Fatal(err)
	}
	return r.State
}

// TestStaffScopeByURL: a clerk of Old Town reaching a Riverside
// reservation by its URL gets the same 404 as for a reference that does
// not exist, for the page and for an action with a valid token; the
// reservation stays as it was. The clerk's own location opens.
func TestStaffScopeByURL(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	riverside := chatBooking(t, m, "riverside", "double", "ada@example.com", "+1 303 555 0199")
	oldtown := chatBooking(t, m, "oldtown", "double", "bob@example.com", "+1 303 555 0123")
	carl := signIn(t, m, "carl")
	if status, _, body := carl.do("GET", "/staff/reservations/"+oldtown, nil); status != 200 || !strings.Contains(body, oldtown) {
		t.Fatalf("clerk's own reservation = %d", status)
	}
	_, _, absent := carl.do("GET", "/staff/reservations/RIV-0000000000000000", nil)
	for _, path := range []string{"/staff/reservations/" + riverside, "/staff/reservations?location=riverside"} {
		status, _, body := carl.do("GET", path, nil)
		if status != http.StatusNotFound || body != absent {
			t.Errorf("clerk GET %s = %d %q, want the 404 of an absent reservation", path, status, body)
		}
	}
	status, _, _ := carl.do("POST", "/staff/reservations/"+riverside, url.Values{"csrf": {carl.csrf}, "to": {"cancelled"}})
	if status != http.StatusNotFound || m.reservationState(t, riverside) != reservation.Reserved {
		t.Fatalf("clerk's cancel of another property = %d, state %s", status, m.reservationState(t, riverside))
	}
	if _, _, list := carl.do("GET", "/staff/reservations", nil); strings.Contains(list, riverside) || !strings.Contains(list, oldtown) {
		t.Fatalf("clerk's list shows %q", list)
	}
	olga := signIn(t, m, "olga")
	status, _, body := olga.do("GET", "/staff/reservations/"+riverside, nil)
	for _, want := range []string{`<dd id="source">chat</dd>`, `<dd id="span">3 nights</dd>`, "the guest signs the guest agreement and shows photo ID at check-in",
		`<button type="submit" name="to" value="confirmed" id="act-confirmed">Confirm</button>`, "<dd>$395.38</dd>"} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("owner's view (%d) lacks %s", status, want)
		}
	}
	for _, c := range []struct {
		query      string
		status     int
		shown, not []string
	}{
		{"", 200, []string{riverside, oldtown}, nil},
		{"location=oldtown", 200, []string{oldtown}, []string{riverside}},
		{"state=reserved&source=chat&from=2026-12-30&to=2026-12-30", 200, []string{riverside, oldtown}, nil},
		{"state=confirmed", 200, nil, []string{riverside, oldtown}},
		{"source=form", 200, nil, []string{riverside, oldtown}},
		{"from=2027-01-02", 200, nil, []string{riverside, oldtown}},
		{"from=30.12.2026", 422, nil, []string{riverside}},
		{"state=lost", 422, nil, []string{riverside}},
	} {
		status, _, body := olga.do("GET", "/staff/reservations?"+c.query, nil)
		if status != c.status {
			t.Errorf("list ?%s = %d, want %d", c.query, status, c.status)
		}
		for _, ref := range c.shown {
			if !strings.Contains(body, ref) {
				t.Errorf("list ?%s lacks %s", c.query, ref)
			}
		}
		for _, ref := range c.not {
			if strings.Contains(body, ref) {
				t.Errorf("list ?%s shows %s", c.query, ref)
			}
		}
	}
}

// TestStaffCSRF: an action posted without the session's token, or with
// another's, is refused and changes nothing; with it the reservation is
// confirmed, the guest mailed, and the result shown after the redirect.
func TestStaffCSRF(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	ref := chatBooking(t, m, "riverside", "double", "ada@example.com", "+1 303 555 0199")
	olga := signIn(t, m, "olga")
	other := signIn(t, m, "olga") // a second session: its token is not this one's
	for name, form := range map[string]url.Values{
		"no token":    {"to": {"confirmed"}},
		"wrong token": {"to": {"confirmed"}, "csrf": {other.csrf}},
	} {
		if status, _, _ := olga.do("POST", "/staff/reservations/"+ref, form); status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, status)
		}
		if got := m.reservationState(t, ref); got != reservation.Reserved {
			t.Fatalf("%s: state %s", name, got)
		}
	}
	if status, _, _ := olga.do("POST", "/staff/settings/group", url.Values{"email_hourly": {"9"}, "email_daily": {"20"}, "cancel_daily": {"5"}, "pending": {"8"}}); status != http.StatusForbidden {
		t.Errorf("settings without a token: %d", status)
	}
	status, h, _ := olga.do("POST", "/staff/reservations/"+ref, url.Values{"to": {"confirmed"}, "csrf": {olga.csrf}})
	if status != http.StatusSeeOther || m.reservationState(t, ref) != reservation.Confirmed {
		t.Fatalf("confirm with the token = %d, state %s", status, m.reservationState(t, ref))
	}
	_, _, page := olga.do("GET", h.Get("Location"), nil)
	if !strings.Contains(page, "Confirmed. The guest was emailed.") || !strings.Contains(page, "olga: reserved→confirmed") {
		t.Fatalf("result page: %q", page)
	}
	if mail := mailWithSubject(t, m, "Reservation "+ref+" is confirmed"); mail.To[0] != "ada@example.com" {
		t.Fatalf("confirmation mailed to %v", mail.To)
	}
}

// TestStaffSessionAfterSignOut: the cookie of a signed-out session opens
// nothing, for pages and posts alike; the cookie is HttpOnly, Lax and
// not Secure over plain HTTP.
func TestStaffSessionAfterSignOut(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	_, h, _ := (&staffClient{t: t, base: m.URL}).do("POST", "/staff/signin", url.Values{"username": {"olga"}, "password": {staffPassword}})
	set := h.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/staff/"} {
		if !strings.Contains(set, want) {
			t.Errorf("cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("cookie %q is Secure over plain HTTP", set)
	}
	if status, _, _ := olga.do("GET", "/staff/", nil); status != 200 {
		t.Fatalf("dashboard = %d", status)
	}
	if status, _, _ := olga.do("POST", "/staff/signout", url.Values{"csrf": {olga.csrf}}); status != http.StatusSeeOther {
		t.Fatalf("sign-out = %d", status)
	}
	status, h, _ := olga.do("GET", "/staff/", nil)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/staff/signin") {
		t.Fatalf("old cookie after sign-out: %d %s", status, h.Get("Location"))
	}
	if status, _, _ := olga.do("POST", "/staff/settings/group", url.Values{"csrf": {olga.csrf}, "email_hourly": {"9"}}); status != http.StatusUnauthorized {
		t.Fatalf("post with the old cookie = %d", status)
	}
}

// TestStaffSignInLimit: past the budget of one login at one address the
// right password from there is refused with its sentence, which names
// the end of the lockout in the property's time zone (Denver); the same
// login signs in from another address.
func TestStaffSignInLimit(t *testing.T) {
	m := startMain(t, "", func(c *config.Config) { c.Deployment.TrustedProxies = []string{"127.0.0.1"} })
	addStaff(t, m)
	from := func(client string) map[string]string {
		return map[string]string{"X-Forwarded-For": client, "X-Forwarded-Proto": "https"}
	}
	for range staff.AttemptsPerClient {
		if status, _ := postForm(t, m.URL+"/staff/signin", url.Values{"username": {"olga"}, "password": {"wrong password!"}}, from("198.51.100.1")); status != http.StatusUnauthorized {
			t.Fatalf("wrong password = %d", status)
		}
	}
	right := url.Values{"username": {"olga"}, "password": {staffPassword}}
	status, body := postForm(t, m.URL+"/staff/signin", right, from("198.51.100.1"))
	if want := "Too many failed sign-ins; try again after 10:15 MST."; status != http.StatusTooManyRequests || !strings.Contains(body, want) {
		t.Fatalf("limited sign-in = %d, want 429 with %q in %q", status, want, body)
	}
	if status, _ := postFormWith(t, noRedirect, m.URL+"/staff/signin", right, from("198.51.100.2")); status != http.StatusSeeOther {
		t.Fatalf("the same login from another address = %d, want 303", status)
	}
}

// TestKnownDeviceSignsInDuringAFlood: while 200 wrong sign-ins at olga's
// login arrive at once from 200 addresses, the browser she signed in
// with before (its device cookie) signs in at once, and successful
// sign-ins never count: thirty in a row from one address all succeed.
func TestKnownDeviceSignsInDuringAFlood(t *testing.T) {
	m := startMain(t, "", func(c *config.Config) { c.Deployment.TrustedProxies = []string{"127.0.0.1"} })
	addStaff(t, m)
	right := url.Values{"username": {"olga"}, "password": {staffPassword}}
	signInWith := func(device, client string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, m.URL+"/staff/signin", strings.NewReader(right.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		req.Header.Set("X-Forwarded-Proto", "https")
		if device != "" {
			req.AddCookie(&http.Cookie{Name: "frontdesk_staff_device", Value: device})
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, c := range resp.Cookies() {
			if c.Name == "frontdesk_staff_device" {
				device = c.Value
			}
		}
		return resp.StatusCode, device
	}
	var device string
	for i := range 30 {
		var status int
		if status, device = signInWith(device, "192.0.2.1"); status != http.StatusSeeOther || device == "" {
			t.Fatalf("sign-in %d from one address = %d, device cookie %q", i, status, device)
		}
	}
	var wg sync.WaitGroup
	var other atomic.Int32
	for i := range 200 {
		wg.Go(func() {
			form := url.Values{"username": {"olga"}, "password": {"wrong password!"}}
			status, _ := postForm(t, m.URL+"/staff/signin", form, map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.%d.%d", i/100, i%100), "X-Forwarded-Proto": "https"})
			if status != http.StatusUnauthorized && status != http.StatusTooManyRequests {
				other.Add(1)
			}
		})
	}
	start := time.Now()
	status, _ := signInWith(device, "203.0.9.9")
	took := time.Since(start)
	wg.Wait()
	if status != http.StatusSeeOther {
		t.Fatalf("the known device during the flood = %d, want 303", status)
	}
	if other.Load() != 0 {
		t.Fatalf("%d flood sign-ins answered neither 401 nor 429", other.Load())
	}
	t.Logf("the known device signed in after %v", took)
}

// TestStaffSettingsOverHTTP: clerks cannot open settings; an owner's
// out-of-range value is named and saves nothing; a valid change is in
// force for the booking core and in the audit with the owner's name.
func TestStaffSettingsOverHTTP(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	carl := signIn(t, m, "carl")
	if status, _, _ := carl.do("GET", "/staff/settings", nil); status != http.StatusForbidden {
		t.Fatalf("clerk's settings = %d", status)
	}
	olga := signIn(t, m, "olga")
	status, _, body := olga.do("POST", "/staff/settings/riverside", url.Values{"csrf": {olga.csrf}, "email_hourly": {"0"}, "pending": {"3"}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "Give a whole number from 1 to 1000.") {
		t.Fatalf("invalid settings = %d", status)
	}
	// The limits stay as the file has them, so the audit names only what changed.
	hourly, pending := strconv.Itoa(m.Config.Limits.LocationEmailHourly), strconv.Itoa(m.Config.Limits.LocationPending)
	status, h, _ := olga.do("POST", "/staff/settings/riverside", url.Values{"csrf": {olga.csrf}, "email_hourly": {hourly}, "pending": {pending}, "closures": {"2026-12-24..2026-12-26 Holidays"}})
	if status != http.StatusSeeOther {
		t.Fatalf("save = %d", status)
	}
	set, err := m.bookings.Settings(context.Background())
	if err != nil || set.Locations["riverside"].BookingEnabled || len(set.Locations["riverside"].Closures) != 1 {
		t.Fatalf("settings in force = %+v, %v", set.Locations["riverside"], err)
	}
	g := m.Config.Limits
	status, _, _ = olga.do("POST", "/staff/settings/group", url.Values{"csrf": {olga.csrf}, "email_hourly": {strconv.Itoa(g.PortfolioEmailHourly + 1)},
		"email_daily": {strconv.Itoa(g.PortfolioEmailDaily)}, "cancel_daily": {strconv.Itoa(g.CancelPortfolioDaily)}, "pending": {strconv.Itoa(g.PortfolioPending)}})
	if status != http.StatusSeeOther {
		t.Fatalf("save group = %d", status)
	}
	// The audit speaks in the settings form's words: the property by its
	// name, each setting by its label, numbers with their unit.
	_, _, page := olga.do("GET", h.Get("Location"), nil)
	audit := page[strings.Index(page, `id="settings-audit"`):]
	for _, want := range []string{
		"olga changed " + m.Config.Locations[0].Name + ": Chat booking on at this property: on → off; Office closures: none → 2026-12-24..2026-12-26 Holidays",
		fmt.Sprintf("olga changed the group: Chat booking codes all properties together may email in one hour: %d → %d codes per hour", g.PortfolioEmailHourly, g.PortfolioEmailHourly+1),
	} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit on the page lacks %q:\n%s", want, audit)
		}
	}
	for _, key := range []string{"bookingEnabled", "chatPortfolioEmailHourly", "changed riverside"} {
		if strings.Contains(audit, key) {
			t.Errorf("audit on the page shows the internal %q", key)
		}
	}
}

// mailWithSubject finds the one mail of the dev mailbox with subject.
func mailWithSubject(t *testing.T, m *Main, subject string) devMessage {
	t.Helper()
	var found []devMessage
	for _, msg := range devMessages(t, m.URL) {
		if msg.Subject == subject {
			found = append(found, msg)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d mails with subject %q", len(found), subject)
	}
	return found[0]
}

// TestStaffAcceptsAndDeclinesFormRequests: a form request accepted on
// the screen holds its room (the free count drops) and the guest is
// mailed; another is declined with the staff-decline mail.
func TestStaffAcceptsAndDeclinesFormRequests(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	request := func(email string) string {
		t.Helper()
		status, body := postForm(t, m.URL+"/book/riverside", url.Values{"roomtype": {"studio"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-06"},
			"guests": {"1"}, "name": {"Grace Hopper"}, "email": {email}, "phone": {"(303) 555-0142"}, "signature": {signaturetest.Drawn(t)},
			"token": {formToken(t, m.URL+"/book/riverside")}}, nil)
		ref := findSent(body)
		if status != 200 || ref == nil {
			t.Fatalf("form request = %d", status)
		}
		return ref[1]
	}
	accepted, declined := request("grace@example.com"), request("hedy@example.com")
	olga := signIn(t, m, "olga")
	if _, _, page := olga.do("GET", "/staff/reservations/"+accepted, nil); !strings.Contains(page, "Accept (holds the room)") || !strings.Contains(page, "web form") {
		t.Fatalf("request page: %q", page)
	}
	status, h, _ := olga.do("POST", "/staff/reservations/"+accepted, url.Values{"csrf": {olga.csrf}, "to": {"confirmed"}})
	if status != http.StatusSeeOther || m.reservationState(t, accepted) != reservation.Confirmed {
		t.Fatalf("accept = %d, state %s", status, m.reservationState(t, accepted))
	}
	if _, _, page := olga.do("GET", h.Get("Location"), nil); !strings.Contains(page, "Confirmed. The guest was emailed.") {
		t.Fatalf("after accept: %q", page)
	}
	r, _ := reservation.Get(context.Background(), m.store, accepted)
	if !r.Held {
		t.Fatal("the accepted request holds no room")
	}
	mailWithSubject(t, m, "Reservation "+accepted+" is confirmed")
	// The one studio is now taken: accepting the second request would
	// find no room, so staff decline it.
	status, h, _ = olga.do("POST", "/staff/reservations/"+declined, url.Values{"csrf": {olga.csrf}, "to": {"confirmed"}})
	if _, _, page := olga.do("GET", h.Get("Location"), nil); status != http.StatusSeeOther || !strings.Contains(page, "No room of this type is free") {
		t.Fatalf("second accept = %d: %q", status, page)
	}
	olga.do("POST", "/staff/reservations/"+declined, url.Values{"csrf": {olga.csrf}, "to": {"declined"}})
	if got := m.reservationState(t, declined); got != reservation.Declined {
		t.Fatalf("declined request is %s", got)
	}
	mailWithSubject(t, m, "Reservation "+declined+" could not be accepted")
}

// TestStaffSessionExpires: a session idle past its limit opens nothing.
func TestStaffSessionExpires(t *testing.T) {
	m := startMain(t, "")
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	m.Clock.(*clock.Fixed).Advance(staff.SessionIdle)
	if status, h, _ := olga.do("GET", "/staff/reservations", nil); status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/staff/signin?next=%2Fstaff%2Freservations") {
		t.Fatalf("expired session: %d %s", status, h.Get("Location"))
	}
}

// TestStaffCookieSecureOverTLS: a sign-in that came over TLS sets a
// Secure cookie.
func TestStaffCookieSecureOverTLS(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	var signInHandler http.Handler
	for _, r := range m.staffScreen().Routes() {
		if r.Pattern == "POST /staff/signin" {
			signInHandler = r.Handler
		}
	}
	req := httptest.NewRequest("POST", "https://localhost/staff/signin", strings.NewReader(url.Values{"username": {"olga"}, "password": {staffPassword}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	signInHandler.ServeHTTP(rec, req)
	if set := rec.Header().Get("Set-Cookie"); rec.Code != http.StatusSeeOther || !strings.Contains(set, "; Secure") || !strings.Contains(set, "HttpOnly") {
		t.Fatalf("sign-in over TLS = %d, cookie %q", rec.Code, set)
	}
}

var nextPage = regexp.MustCompile(`href="/staff/reservations\?([^"]+)" id="next"`)

// TestStaffListPages: 30 requests list as 25 and 5, in order of arrival,
// each once, and the second page keeps the filter.
func TestStaffListPages(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	var writes []store.Write
	for i := range 30 {
		writes = append(writes, reservation.Create(reservation.Reservation{Reference: fmt.Sprintf("OLD-%016X", i), Location: "oldtown", Unit: "double",
			Slots: []string{fmt.Sprintf("2027-02-%02d", 1+i%20)}, Guests: 1, Source: reservation.SourceForm, State: reservation.Requested}, testNow))
	}
	if _, err := m.store.Apply(context.Background(), writes); err != nil {
		t.Fatal(err)
	}
	carl := signIn(t, m, "carl")
	seen := map[string]int{}
	query, pages := "state=requested", 0
	for query != "" {
		_, _, body := carl.do("GET", "/staff/reservations?"+html.UnescapeString(query), nil)
		pages++
		for _, ref := range regexp.MustCompile(`>(OLD-[0-9A-F]{16})<`).FindAllStringSubmatch(body, -1) {
			seen[ref[1]]++
		}
		query = ""
		if next := nextPage.FindStringSubmatch(body); next != nil {
			query = next[1]
			if !strings.Contains(query, "state=requested") || !strings.Contains(query, "location=oldtown") {
				t.Fatalf("next page drops the filter: %s", query)
			}
		}
	}
	if pages != 2 || len(seen) != 30 {
		t.Fatalf("%d pages showed %d requests", pages, len(seen))
	}
	for ref, n := range seen {
		if n != 1 {
			t.Errorf("%s shown %d times", ref, n)
		}
	}
}

// TestStaffCookieLifetimeIsRelative: the session cookie says how long it
// lives (Max-Age), not until when by the server's clock, so a browser
// whose clock disagrees with the server's keeps it. The test server's
// clock is fixed in the past; a cookie jar on the real clock must still
// send the cookie back.
func TestStaffCookieLifetimeIsRelative(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	_, h, _ := (&staffClient{t: t, base: m.URL}).do("POST", "/staff/signin", url.Values{"username": {"olga"}, "password": {staffPassword}})
	set := h.Get("Set-Cookie")
	if want := fmt.Sprintf("Max-Age=%d", int(staff.SessionLifetime.Seconds())); !strings.Contains(set, want) || strings.Contains(set, "Expires=") {
		t.Fatalf("cookie %q: want %s and no Expires", set, want)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(m.URL + "/staff/")
	jar.SetCookies(u, (&http.Response{Header: h}).Cookies())
	if !slices.ContainsFunc(jar.Cookies(u), func(c *http.Cookie) bool { return c.Name == "frontdesk_staff" }) {
		t.Fatalf("a browser on today's clock drops the cookie %q", set)
	}
}

// TestStaffSearchFindsGuestsInHistory: with years of reservations kept,
// staff search finds a stay to come and one long past by each field, the
// nearest first, and the list without filters opens at today.
func TestStaffSearchFindsGuestsInHistory(t *testing.T) {
	m := startMain(t, "")
	addStaff(t, m)
	day := time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)
	var writes []store.Write
	for i := range 3000 {
		r := reservation.Reservation{Reference: fmt.Sprintf("OLD-%016X", i), Location: "oldtown", Unit: "double",
			Slots: []string{day.AddDate(0, 0, i/2).Format(time.DateOnly)}, Guests: 1, Source: reservation.SourceChat, State: reservation.Completed,
			Contact: reservation.Contact{Name: fmt.Sprintf("Guest Number%d", i), Email: fmt.Sprintf("guest%d@example.org", i), Phone: fmt.Sprintf("+44 20 7000 %04d", i)}}
		if i == 7 {
			r.Contact = reservation.Contact{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+44 20 7946 0958"}
		}
		writes = append(writes, reservation.Create(r, testNow))
	}
	for chunk := range slices.Chunk(writes, 500) {
		if _, err := m.store.Apply(context.Background(), chunk); err != nil {
			t.Fatal(err)
		}
	}
	next := chatBooking(t, m, "oldtown", "double", "ada@example.com", "+44 20 7946 0958")
	olga := signIn(t, m, "olga")
	refs := func(query string) []string {
		t.Helper()
		status, _, body := olga.do("GET", "/staff/reservations?"+query, nil)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", query, status)
		}
		var out []string
		for _, m := range regexp.MustCompile(`>([A-Z]{3}-[0-9A-F]{16})<`).FindAllStringSubmatch(body, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		return out
	}
	old := "OLD-0000000000000007"
	for _, q := range []string{"lovelace", "Ada Lovelace", "ada@example.com", "7946 0958", "+44 20 7946 0958"} {
		if got, want := refs("q="+url.QueryEscape(q)), []string{next, old}; !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v (the stay to come first)", q, got, want)
		}
	}
	for _, q := range []string{next[:10], strings.ToLower(next[4:12]), next[4:8] + " " + next[8:12] + " " + next[12:16] + " " + next[16:]} {
		if got := refs("q=" + url.QueryEscape(q)); !slices.Equal(got, []string{next}) {
			t.Errorf("search by the reference %q = %v, want %s", q, got, next)
		}
	}
	if got := refs("q=" + old[4:]); !slices.Equal(got, []string{old}) {
		t.Errorf("search by the code %s = %v", old[4:], got)
	}
	if got := refs("q=guest2999%40example.org"); !slices.Equal(got, []string{"OLD-0000000000000BB7"}) {
		t.Errorf("search of the newest old stay by email = %v", got)
	}
	if got := refs(""); slices.Contains(got, old) || !slices.Contains(got, next) {
		t.Errorf("the list without filters = %v; want it to open at today", got)
	}
	if got := refs("from=&location=oldtown"); !slices.Contains(got, "OLD-0000000000000000") {
		t.Errorf("the list with an empty start = %v; want every date", got[:min(len(got), 5)])
	}
}

// TestStaffDateProblemsNameNoFormat: a date the staff screen cannot read
// is said without a format hint, as its date control shows dates in the
// browser's own way.
func TestStaffDateProblemsNameNoFormat(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	olga := signIn(t, m, "olga")
	for path, want := range map[string]string{
		"/staff/calendar?from=2026-02-30":     "The first day could not be read, so the calendar starts today: choose the day again in its date field.",
		"/staff/reservations?from=2026-02-30": "A date could not be read: choose it again in its date field.",
	} {
		_, _, page := olga.do("GET", path, nil)
		if !strings.Contains(page, want) || strings.Contains(page, "YYYY-MM-DD") {
			t.Errorf("%s lacks %q or names a format", path, want)
		}
	}
}
