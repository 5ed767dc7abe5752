package config

import "testing"

func TestPublicURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ configured, listen, want string }{
		{"", "127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"", "0.0.0.0:9000", "http://localhost:9000"},
		{"", "[::]:9000", "http://localhost:9000"},
		{"", ":9000", "http://localhost:9000"},
		{"https://book.example.com/", "0.0.0.0:9000", "https://book.example.com"},
	}
	for _, tt := range tests {
		if got := PublicURL(tt.configured, tt.listen); got != tt.want {
			t.Errorf("PublicURL(%q, %q) = %q, want %q", tt.configured, tt.listen, got, tt.want)
		}
	}
}
