package main

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

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

var sentRef = regexp.MustCompile(`Request (RIV-[0-9A-F]{16}) is with our staff`)

// TestBookingFormOverHTTP posts the signed form to the running server:
// the request is saved as a form request that holds nothing, whatever
// chat markers the browser adds; a request without a signature comes back
// with the guest's input kept; a foreign origin is refused.
func TestBookingFormOverHTTP(t *testing.T) {
	m := startMain(t, "")
	form := url.Values{
		"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"}, "notes": {"Late train."},
		"signature": {signaturetest.Drawn(t)},
		// Markers a forged request might use to pass as a chat booking.
		"source": {"chat"}, "booking_id": {"RIV_b_00"}, "_meta": {"chat"}, "state": {"reserved"},
	}
	cs := connect(t, m.URL+"/locations/riverside/mcp", "2025-11-25")
	stay := map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-02"}
	before, _ := callTool(t, cs, "find_rooms", stay)
	status, body := postForm(t, m.URL+"/book/riverside", form, nil)
	ref := sentRef.FindStringSubmatch(body)
	if status != http.StatusOK || ref == nil {
		t.Fatalf("form post = %d: %s", status, body)
	}
	list, _, err := runCmd(t, "staff", "list", "--data", m.Config.Store.DataDir)
	if err != nil || !strings.Contains(list, ref[1]+"  riverside  double  2026-12-30  2027-01-01  requested  form") {
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
