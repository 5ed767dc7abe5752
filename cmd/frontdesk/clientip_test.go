package main

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/staff"
)

// TestLimitsByAddressBehindAProxy: behind a trusted proxy the booking
// form and staff sign-in count each client named in X-Forwarded-For, as
// ORP does: one client spending its budget leaves the next client's
// untouched. Before one rule served every door, both counted the proxy.
func TestLimitsByAddressBehindAProxy(t *testing.T) {
	m := startMain(t, "", func(c *config.Config) { c.Deployment.TrustedProxies = []string{"127.0.0.1"} })
	addStaff(t, m)
	from := func(client string) map[string]string {
		return map[string]string{"X-Forwarded-For": client, "X-Forwarded-Proto": "https"}
	}

	t.Run("staff sign-in", func(t *testing.T) {
		for i := range staff.AttemptsPerAddr {
			form := url.Values{"username": {fmt.Sprintf("nobody%d", i%4)}, "password": {"wrong password!"}}
			if status, _ := postForm(t, m.URL+"/staff/signin", form, from("198.51.100.1")); status != http.StatusUnauthorized {
				t.Fatalf("attempt %d = %d, want 401", i, status)
			}
		}
		right := url.Values{"username": {"olga"}, "password": {staffPassword}}
		if status, _ := postForm(t, m.URL+"/staff/signin", right, from("198.51.100.1")); status != http.StatusTooManyRequests {
			t.Fatalf("client one past its limit = %d, want 429", status)
		}
		noRedirect := *http.DefaultClient
		noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		if status, _ := postFormWith(t, &noRedirect, m.URL+"/staff/signin", right, from("198.51.100.2")); status != http.StatusSeeOther {
			t.Fatalf("client two = %d, want 303 (signed in)", status)
		}
	})

	t.Run("booking form", func(t *testing.T) {
		post := func(client string, i int) int {
			form := url.Values{
				"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
				"name": {"Grace Hopper"}, "email": {fmt.Sprintf("grace%d@example.com", i)}, "phone": {"(303) 555-0142"},
				"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
			}
			status, _ := postForm(t, m.URL+"/book/riverside", form, from(client))
			return status
		}
		for i := range 5 {
			if status := post("203.0.113.1", i); status != http.StatusOK {
				t.Fatalf("request %d from client one = %d, want 200", i, status)
			}
		}
		if status := post("203.0.113.1", 5); status != http.StatusTooManyRequests {
			t.Fatalf("client one's sixth request = %d, want 429", status)
		}
		if status := post("203.0.113.2", 6); status != http.StatusOK {
			t.Fatalf("client two's first request = %d, want 200", status)
		}
	})
}
