package hostguard

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	g := New([]string{"localhost", "127.0.0.1", "[::1]", "Book.Example.com"})
	tests := []struct {
		host, origin string
		refused      string // part of the refusal; "" when served
	}{
		{"localhost:8080", "", ""},
		{"[::1]:8080", "", ""},
		{"book.example.com", "https://BOOK.example.com", ""},
		{"127.0.0.1:8080", "http://localhost:8080", ""},
		{"attacker.example", "", `host "attacker.example"`},
		{"localhost", "http://attacker.example", `origin "http://attacker.example"`},
		{"localhost", "null", `origin "null"`},
		{strings.Repeat("a", 300), "", "…"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		got := g.Check(r)
		if tt.refused == "" && got != "" || tt.refused != "" && (!strings.Contains(got, tt.refused) || !strings.Contains(got, "deployment.hostnames")) {
			t.Errorf("Check(Host %.20q, Origin %q) = %q, want refusal containing %q", tt.host, tt.origin, got, tt.refused)
		}
		if len(got) > 300 {
			t.Errorf("refusal is %d bytes: the echoed host is not capped", len(got))
		}
	}
}
