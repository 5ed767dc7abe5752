package hub

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

// TestStaffRoutes: a location's session or ?location= goes to that
// location; the hub's own session and its sign-in stay at the hub; a
// page with neither gets the chooser, and a form with neither a 403.
func TestStaffRoutes(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "riverside")
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	own := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hub") })
	h := px.Staff(own)
	for _, tt := range []struct {
		name, method, path, cookie string
		wantStatus                 int
		want                       string
	}{
		{"a location's session", "GET", "/staff/reservations", "RIV.abc", 200, "riverside"},
		{"a location's sign-in", "POST", "/staff/signin?location=riverside", "", 200, "riverside"},
		{"a location's sign-in with a hub session", "GET", "/staff/signin?location=riverside", "abc", 200, "riverside"},
		{"the hub's session", "GET", "/staff/reservations", "abc", 200, "hub"},
		{"the hub's session naming a property", "GET", "/staff/today?location=riverside", "abc", 200, "hub"},
		{"the hub's session posting", "POST", "/staff/reservations/RIV-1", "abc", 200, "hub"},
		{"the hub's sign-in", "GET", "/staff/signin", "", 200, "hub"},
		{"the hub's passkey sign-in", "POST", "/staff/signin/passkey", "", 200, "hub"},
		{"a page with no session", "GET", "/staff/today", "", 200, `href="/staff/signin" id="group"`},
		{"a form with no session", "POST", "/staff/signout", "", 403, "Sign in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.cookie != "" {
				r.AddCookie(&http.Cookie{Name: staffCookie, Value: tt.cookie})
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantStatus || !strings.Contains(w.Body.String(), tt.want) {
				t.Fatalf("%s %s = %d %q, want %d with %q", tt.method, tt.path, w.Code, w.Body.String(), tt.wantStatus, tt.want)
			}
		})
	}
}
