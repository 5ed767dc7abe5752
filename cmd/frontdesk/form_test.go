package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/signature/signaturetest"
)

func postForm(t *testing.T, target string, form url.Values, headers map[string]string) (int, string) {
	t.Helper()
	return postFormWith(t, http.DefaultClient, target, form, headers)
}

func postFormWith(t *testing.T, client *http.Client, target string, form url.Values, headers map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var formTokenField = regexp.MustCompile(`name="token" value="([A-Z]{2,6}\.[A-Za-z0-9_-]{43})"`)

// formToken opens the booking form at target as a browser would and
// returns its one-time token.
func formToken(t *testing.T, target string) string {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := formTokenField.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no form token in %s", b)
	}
	return string(m[1])
}

var sentRef = regexp.MustCompile(`Request (?:<span class="ref">)?(RIV-[0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4})(?:</span>)? is with our staff`)

// findSent finds the reference on the request-sent page, where it is
// shown in groups of four: [1] is the reference as the system keeps it,
// [2] as the page shows it; nil if the page names none.
func findSent(page string) []string {
	m := sentRef.FindStringSubmatch(page)
	if m == nil {
		return nil
	}
	return []string{m[0], strings.ReplaceAll(m[1], " ", ""), m[1]}
}

// TestBookingFormOverHTTP posts the signed form to the running server:
// the request is saved as a form request that holds nothing, whatever
// chat markers the browser adds; a request without a signature comes back
// with the guest's input kept; a foreign origin is refused.
func TestBookingFormOverHTTP(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	form := url.Values{
		"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"}, "notes": {"Late train."},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
		// Markers a forged request might use to pass as a chat booking.
		"source": {"chat"}, "booking_id": {"RIV_b_00"}, "_meta": {"chat"}, "state": {"reserved"},
	}
	cs := connect(t, m.URL+"/locations/riverside/mcp", "2025-11-25")
	stay := map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-02"}
	before, _ := callTool(t, cs, "find_rooms", stay)
	status, body := postForm(t, m.URL+"/book/riverside", form, nil)
	ref := findSent(body)
	if status != http.StatusOK || ref == nil {
		t.Fatalf("form post = %d: %s", status, body)
	}
	list, _, err := runCmd(t, "staff", "list", "--data", m.Config.Store.DataDir)
	if err != nil || !strings.Contains(list, ref[1]+"  riverside  double  2026-12-30  2027-01-02  3       requested  form") {
		t.Fatalf("staff list = %q, %v", list, err)
	}
	if after, _ := callTool(t, cs, "find_rooms", stay); text(after) != text(before) {
		t.Fatalf("a form request holds a room: find_rooms went from %q to %q", text(before), text(after))
	}
	var subjects []string
	for _, msg := range devMessages(t, m.URL) {
		subjects = append(subjects, msg.Subject)
	}
	if got := strings.Join(subjects, "|"); got != "Booking request "+ref[1]+" at Riverside Inn|Booking request "+ref[1]+" at Riverside Inn (web form)" {
		t.Fatalf("mails = %s", got)
	}

	// The same token again files nothing: it answers with the first.
	status, body = postForm(t, m.URL+"/book/riverside", form, nil)
	if again := findSent(body); status != http.StatusOK || again == nil || again[1] != ref[1] || !strings.Contains(body, "it was not sent a second time") {
		t.Fatalf("the form posted again = %d: %s", status, body)
	}
	if n := len(devMessages(t, m.URL)); n != 2 {
		t.Fatalf("the form posted again sent mail: %d mails", n)
	}

	form.Set("token", formToken(t, m.URL+"/book/riverside"))
	form.Del("signature")
	form.Set("name", "Ada <b>Lovelace</b>")
	status, body = postForm(t, m.URL+"/book/riverside", form, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "Sign in the box to agree to the guest agreement.") ||
		!strings.Contains(body, `value="Ada &lt;b&gt;Lovelace&lt;/b&gt;"`) || !strings.Contains(body, `value="grace@example.com"`) {
		t.Fatalf("unsigned form = %d: %s", status, body)
	}
	status, _ = postForm(t, m.URL+"/book/riverside", form, map[string]string{"Origin": "https://evil.example"})
	if status != http.StatusForbidden {
		t.Fatalf("foreign origin = %d, want 403", status)
	}
}

// TestFormRefusesAnotherLocationsToken: a form token names its location;
// one drawn for another property is refused as expired, nothing is
// filed, and the form comes back with a fresh token of its own property,
// so sending it again works.
func TestFormRefusesAnotherLocationsToken(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	form := url.Values{"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/oldtown")}}
	if !strings.HasPrefix(form.Get("token"), "OTL.") {
		t.Fatalf("Old Town's form token = %q", form.Get("token"))
	}
	status, body := postForm(t, m.URL+"/book/riverside", form, nil)
	fresh := formTokenField.FindStringSubmatch(body)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "This form has expired.") || fresh == nil || !strings.HasPrefix(fresh[1], "RIV.") {
		t.Fatalf("Riverside's form with Old Town's token = %d, token %q\n%s", status, fresh, body)
	}
	if n := len(devMessages(t, m.URL)); n != 0 {
		t.Fatalf("the refused form sent %d mails", n)
	}
	form.Set("token", fresh[1])
	if status, body := postForm(t, m.URL+"/book/riverside", form, nil); status != http.StatusOK || findSent(body) == nil {
		t.Fatalf("the form sent again with its fresh token = %d\n%s", status, body)
	}
}

// TestBannerNamesThePeoplesPages: serve's start banner lists the guest
// search, each property's booking form and the staff screen.
func TestBannerNamesThePeoplesPages(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	m := &Main{Config: config.Demo(), Out: &out}
	m.Config.Deployment.PublicURL = "http://127.0.0.1:8080"
	m.URL = "http://127.0.0.1:8080"
	m.printURLs()
	for _, want := range []string{"/search", "Booking form, riverside:    http://127.0.0.1:8080/book/riverside", "Staff screen:               http://127.0.0.1:8080/staff/"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPolicyShowsTheOfficeHoursInForce: office hours saved on the staff
// screen, a lunch break among them, are the ones the policy page states.
func TestPolicyShowsTheOfficeHoursInForce(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	ctx := context.Background()
	set, err := m.bookings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := set.Group
	g.OfficeHours.Fri = "08:00-12:00, 13:00-17:00"
	if err := m.office.SaveGroupSettings(ctx, "olga", g); err != nil {
		t.Fatal(err)
	}
	status, _, body := get(t, m.URL+"/policy", "", nil)
	if status != http.StatusOK || !strings.Contains(body, "Friday 08:00-12:00, 13:00-17:00") || !strings.Contains(body, "Monday 08:00-18:00") {
		t.Fatalf("policy = %d: %s", status, body)
	}
}
