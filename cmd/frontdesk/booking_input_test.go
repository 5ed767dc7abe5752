package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBookingSchemasAsPrinted: each booking tool exports the input schema
// direct-booking.md §6 prints, including the empty "required" list of the
// two mode-switching tools. testdata/booking-schemas.json holds the four
// schemas as the specification gives them.
func TestBookingSchemasAsPrinted(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/booking-schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, startServer(t, "")+"/mcp", "2025-11-25")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tool := range tools.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		seen++
		body, _ := json.Marshal(tool.InputSchema)
		var got any
		json.Unmarshal(body, &got)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s input schema =\n%s\nwant the one §6 prints", tool.Name, body)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d booking tools", seen, len(want))
	}
}

// TestMalformedNumbersAreRefused: a number the tool cannot read exactly
// is a malformed optional field, refused with its sentence, never read as
// a default.
func TestMalformedNumbersAreRefused(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	cs := connect(t, url+"/mcp", "2025-11-25")
	stay := `"property":"riverside","roomtype":"double","checkin":"2026-12-30","checkout":"2027-01-02","guest_name":"Ada Lovelace","email":"ada@example.com","phone":"+1 303 555 0199"`
	for _, guests := range []string{"1e400", "-1e400", "1.5", "1e10", `"2"`, "true"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
			Name: "start_booking", Arguments: json.RawMessage(`{` + stay + `,"guests":` + guests + `}`),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.HasPrefix(text(res), "guests must be a whole-number count from 1 to 4.") {
			t.Errorf("guests %s answered %s", guests, text(res))
		}
	}
	if n := len(devMessages(t, url)); n != 0 {
		t.Fatalf("%d mails sent for malformed starts", n)
	}
}

// TestInvisibleCharactersInEmailAreRefused: an address holding a control
// or formatting character gets the email refusal and no code.
func TestInvisibleCharactersInEmailAreRefused(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	cs := connect(t, url+"/mcp", "2025-11-25")
	for _, r := range []string{"\x00", "\a", "\x7f", "\u202e", "\u200b", "\u2060"} {
		start := map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
			"guest_name": "Ada Lovelace", "email": "ad" + r + "a@example.com", "phone": "+1 303 555 0199"}
		res, _ := callTool(t, cs, "start_booking", start)
		if !res.IsError || !strings.HasPrefix(text(res), "email must be a valid address") {
			t.Errorf("email with %q answered %s", r, text(res))
		}
	}
	if n := len(devMessages(t, url)); n != 0 {
		t.Fatalf("%d codes mailed to invisible addresses", n)
	}
}

// TestLinksNeverReachStaffMail: a link in a guest name reaches owner mail
// neutralized, and every link form in notes is removed.
func TestLinksNeverReachStaffMail(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	cs := connect(t, url+"/mcp", "2025-11-25")
	start := map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
		"guest_name": "Visit https://evil.example/login now", "email": "ada@example.com", "phone": "+1 303 555 0199",
		"notes": "see evil.shop/login or bit.ly/x, ftp://files.example/a and mailto:x@evil.example"}
	res, out := callTool(t, cs, "start_booking", start)
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	res, _ = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": out["booking_id"], "code": latestCode(t, url, "ada@example.com")})
	if res.IsError {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	var owner string
	for _, m := range devMessages(t, url) {
		if strings.HasPrefix(m.Subject, "New chat reservation") {
			owner = m.Text
		}
	}
	if !strings.Contains(owner, "Guest name: Visit https[:]//evil[.]example/login now\n") {
		t.Fatalf("owner mail does not neutralize the name:\n%s", owner)
	}
	if !strings.Contains(owner, "see [link removed] or [link removed] [link removed] and [link removed]") {
		t.Fatalf("owner mail keeps a link from the notes:\n%s", owner)
	}
	// The one link owner mail may carry is the business's own: the
	// reservation on the staff screen.
	guestText, ownLinks := owner, strings.Count(owner, url+"/staff/reservations/RIV-")
	guestText = strings.Replace(guestText, url+"/staff/reservations/", "", ownLinks)
	if ownLinks != 1 {
		t.Errorf("owner mail has %d staff-screen links, want 1", ownLinks)
	}
	for _, bad := range []string{"://", "evil.example", "evil.shop", "bit.ly", "mailto:"} {
		if strings.Contains(guestText, bad) {
			t.Errorf("owner mail carries %q", bad)
		}
	}
}

// devMessages reads the dev mailbox, oldest first.
func devMessages(t *testing.T, url string) []devMessage {
	t.Helper()
	resp, err := http.Get(url + "/dev/mail.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var box devMail
	if err := json.NewDecoder(resp.Body).Decode(&box); err != nil {
		t.Fatal(err)
	}
	return box.Messages
}
