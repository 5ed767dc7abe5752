package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

type devMail struct {
	Messages []devMessage `json:"messages"`
}

type devMessage struct {
	ID      string   `json:"id"`
	To      []string `json:"to"`
	Subject string   `json:"subject"`
	Text    string   `json:"text"`
}

var codeIn = regexp.MustCompile(`code is (\d{6})\.`)

// latestCode reads the newest code mailed to addr from /dev/mail.json, as
// a person testing the demo would.
func latestCode(t *testing.T, url, addr string) string {
	t.Helper()
	messages := devMessages(t, url)
	for i := len(messages) - 1; i >= 0; i-- {
		m := messages[i]
		if len(m.To) == 1 && m.To[0] == addr {
			if c := codeIn.FindStringSubmatch(m.Text); c != nil {
				return c[1]
			}
		}
	}
	t.Fatalf("no code for %s in %d messages", addr, len(messages))
	return ""
}

// TestBookingOverStreamableHTTP is the whole guest journey against the
// running server: quote, start, read the code from the dev mailbox,
// confirm, look up, cancel in two steps.
func TestBookingOverStreamableHTTP(t *testing.T) {
	m := startMain(t, "")
	url := m.URL
	cs := connect(t, url+"/mcp", "2025-11-25")
	stay := map[string]any{"property": "Riverside Inn", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02"}
	if res, out := callTool(t, cs, "quote_stay", stay); res.IsError || out["total"] != 395.38 {
		t.Fatalf("quote: %s", text(res))
	}
	start := map[string]any{"guest_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 303 555 0199"}
	for k, v := range stay {
		start[k] = v
	}
	res, out := callTool(t, cs, "start_booking", start)
	if res.IsError {
		t.Fatalf("start_booking: %s", text(res))
	}
	id := out["booking_id"].(string)
	res, out = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": id, "code": latestCode(t, url, "ada@example.com")})
	if res.IsError || out["status"] != "reserved" {
		t.Fatalf("confirm_booking: %s", text(res))
	}
	ref := out["reservation_number"].(string)
	res, out = callTool(t, cs, "get_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
	if res.IsError || out["status"] != "reserved" || out["total"] != 395.38 {
		t.Fatalf("get_booking: %s %v", text(res), out)
	}
	m.Clock.(*clock.Fixed).Advance(time.Minute) // the cancellation code is the newest mail
	res, out = callTool(t, cs, "cancel_booking", map[string]any{"reservation_number": ref, "phone_last4": "0199"})
	if res.IsError {
		t.Fatalf("cancel_booking step 1: %s", text(res))
	}
	cancelID := out["cancel_id"].(string)
	res, out = callTool(t, cs, "cancel_booking", map[string]any{"cancel_id": cancelID, "code": latestCode(t, url, "ada@example.com")})
	if res.IsError || out["status"] != "cancelled" {
		t.Fatalf("cancel_booking step 2: %s", text(res))
	}
	if strings.Contains(text(res), "/book/") {
		t.Fatal("a cancellation answer carries a booking-form link")
	}
}

// TestBookingToolsCheckTheRealHost: the booking tools run only on a custom
// hostname, judged from the Host the request arrived with; neither a
// forwarded header nor the internal header a client may try to forge
// changes that.
func TestBookingToolsCheckTheRealHost(t *testing.T) {
	t.Parallel()
	m := startMain(t, "", func(c *config.Config) { c.Deployment.CustomHostnames = []string{"localhost"} })
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"get_booking","arguments":{"reservation_number":"RIV-0123456789ABCDEF","phone_last4":"0199"}}}`
	headers := map[string]string{
		"X-Forwarded-Host": "localhost", "X-Frontdesk-Request-Host": "localhost", "Forwarded": "host=localhost",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_booking",
	}
	_, _, body := post(t, m.URL+"/mcp", headers, call) // arrives as Host 127.0.0.1:port
	if !strings.Contains(body, "Booking tools are disabled on this non-custom hostname (context: production). Call +1 303 555 0111.") {
		t.Fatalf("non-custom host answered %s", body)
	}
	headers["Host"] = strings.Replace(strings.TrimPrefix(m.URL, "http://"), "127.0.0.1", "localhost", 1)
	_, _, body = post(t, m.URL+"/mcp", headers, call)
	if !strings.Contains(body, "no reservation found. Call +1 303 555 0111.") {
		t.Fatalf("custom host answered %s", body)
	}
}

// TestForeignHostIsRefusedBeforeTools: a Host the config does not list at
// all never reaches a tool.
func TestForeignHostIsRefusedBeforeTools(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	status, _, body := post(t, url+"/mcp", map[string]string{
		"Host": "evil.example", "X-Forwarded-Host": "localhost", "X-Frontdesk-Request-Host": "localhost",
		"Mcp-Protocol-Version": "2026-07-28",
	}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_booking","arguments":{}}}`)
	if status != http.StatusForbidden {
		t.Fatalf("foreign host = %d %s", status, body)
	}
}
