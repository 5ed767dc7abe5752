package tlsfront

import (
	"crypto/tls"
	"net/http"
	"testing"

	"frontdesk/internal/clientip"
)

// TestPlainCredentials: credentials and the staff screen over plain HTTP
// are refused from other machines, allowed on loopback, over TLS, and
// from a trusted proxy that says the client used HTTPS.
func TestPlainCredentials(t *testing.T) {
	t.Parallel()
	proxies, _ := clientip.Parse([]string{"10.0.0.1"})
	tests := []struct {
		name, remote, path, auth, proto string
		tls, want                       bool
	}{
		{"bearer from afar", "203.0.113.5:4000", "/usp/bookings", "Bearer k", "", false, true},
		{"staff screen from afar", "203.0.113.5:4000", "/staff/signin", "", "", false, true},
		{"page from afar", "203.0.113.5:4000", "/book/riverside", "", "", false, false},
		{"bearer on loopback", "127.0.0.1:4000", "/usp/bookings", "Bearer k", "", false, false},
		{"bearer over TLS", "203.0.113.5:4000", "/usp/bookings", "Bearer k", "", true, false},
		{"proxy saying https", "10.0.0.1:4000", "/staff/", "", "https", false, false},
		{"proxy saying http", "10.0.0.1:4000", "/staff/", "", "http", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "http://shop.example"+tt.path, nil)
			r.RemoteAddr = tt.remote
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if got := PlainCredentials(r, proxies); got != tt.want {
				t.Fatalf("plainCredentials = %v, want %v", got, tt.want)
			}
		})
	}
}

// freePort finds a loopback port no one listens on.
