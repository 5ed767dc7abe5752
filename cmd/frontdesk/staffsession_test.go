package main

import (
	"net/http"
	"net/url"
	"testing"
)

// TestStaffSignOutEverywhere: ticking "everywhere" on the sign-out form
// ends every session of the login, in every browser, and no one else's.
func TestStaffSignOutEverywhere(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	desk, phone := signIn(t, m, "olga"), signIn(t, m, "olga")
	other := signIn(t, m, "carl")
	if status, _, _ := desk.do("POST", "/staff/signout", url.Values{"csrf": {desk.csrf}, "everywhere": {"1"}}); status != http.StatusSeeOther {
		t.Fatalf("sign-out everywhere = %d", status)
	}
	for name, c := range map[string]*staffClient{"this browser": desk, "another browser": phone} {
		if status, _, _ := c.do("GET", "/staff/", nil); status != http.StatusSeeOther {
			t.Fatalf("%s after signing out everywhere = %d, want a redirect to sign in", name, status)
		}
	}
	if status, _, _ := other.do("GET", "/staff/", nil); status != http.StatusOK {
		t.Fatalf("another login's session = %d, want 200", status)
	}
}

// TestStaffSignInEndsTheSessionItReplaces: signing in again from a
// browser that holds a session leaves only the new one.
func TestStaffSignInEndsTheSessionItReplaces(t *testing.T) {
	t.Parallel()
	m := startMain(t, "")
	addStaff(t, m)
	c := signIn(t, m, "olga")
	old := c.cookie
	status, h, _ := c.do("POST", "/staff/signin", url.Values{"username": {"olga"}, "password": {staffPassword}})
	if status != http.StatusSeeOther {
		t.Fatalf("second sign-in = %d", status)
	}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == "frontdesk_staff" {
			c.cookie = ck.Value
		}
	}
	if c.cookie == old {
		t.Fatal("the sign-in kept the old token")
	}
	if status, _, _ := c.do("GET", "/staff/", nil); status != http.StatusOK {
		t.Fatalf("new session = %d", status)
	}
	c.cookie = old
	if status, _, _ := c.do("GET", "/staff/", nil); status != http.StatusSeeOther {
		t.Fatalf("replaced session = %d, want a redirect to sign in", status)
	}
}
