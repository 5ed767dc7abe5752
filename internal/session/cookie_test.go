package session

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clientip"
)

func TestCookieFlags(t *testing.T) {
	proxies := clientip.Proxies{netip.MustParsePrefix("10.0.0.1/32")}
	tests := []struct {
		name       string
		request    func() *http.Request
		wantSecure bool
	}{
		{"plain HTTP", func() *http.Request { return httptest.NewRequest("GET", "http://hub.example/", nil) }, false},
		{"HTTPS", func() *http.Request { return httptest.NewRequest("GET", "https://hub.example/", nil) }, true},
		{"HTTPS through a trusted proxy", func() *http.Request {
			r := httptest.NewRequest("GET", "http://hub.example/", nil)
			r.RemoteAddr = "10.0.0.1:4000"
			r.Header.Set("X-Forwarded-Proto", "https")
			return proxies.WithClient(r)
		}, true},
		{"a client claiming HTTPS itself", func() *http.Request {
			r := httptest.NewRequest("GET", "http://hub.example/", nil)
			r.RemoteAddr = "192.0.2.7:4000"
			r.Header.Set("X-Forwarded-Proto", "https")
			return proxies.WithClient(r)
		}, false},
		{"plain HTTP through a trusted proxy", func() *http.Request {
			r := httptest.NewRequest("GET", "http://hub.example/", nil)
			r.RemoteAddr = "10.0.0.1:4000"
			r.Header.Set("X-Forwarded-Proto", "http")
			return proxies.WithClient(r)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Cookie{Name: "frontdesk_test", Path: "/staff/"}
			w := httptest.NewRecorder()
			c.Set(w, tt.request(), "tok", 12*time.Hour)
			set := w.Header().Get("Set-Cookie")
			for _, want := range []string{"frontdesk_test=tok", "Path=/staff/", "Max-Age=43200", "HttpOnly", "SameSite=Lax"} {
				if !strings.Contains(set, want) {
					t.Fatalf("Set-Cookie %q lacks %q", set, want)
				}
			}
			if got := strings.Contains(set, "Secure"); got != tt.wantSecure {
				t.Fatalf("Set-Cookie %q: Secure = %v, want %v", set, got, tt.wantSecure)
			}
		})
	}
}

func TestCookieClearAndRead(t *testing.T) {
	c := Cookie{Name: "frontdesk_test", SameSite: http.SameSiteStrictMode}
	w := httptest.NewRecorder()
	c.Clear(w, httptest.NewRequest("GET", "https://hub.example/", nil))
	set := w.Header().Get("Set-Cookie")
	for _, want := range []string{"frontdesk_test=", "Path=/", "Max-Age=0", "HttpOnly", "SameSite=Strict", "Secure"} {
		if !strings.Contains(set, want) {
			t.Fatalf("Set-Cookie %q lacks %q", set, want)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	if got := c.Value(r); got != "" {
		t.Fatalf("Value without a cookie = %q", got)
	}
	r.AddCookie(&http.Cookie{Name: "frontdesk_test", Value: "tok"})
	if got := c.Value(r); got != "tok" {
		t.Fatalf("Value = %q, want tok", got)
	}
}
