package clientip

import (
	"net/http/httptest"
	"testing"
)

func TestOf(t *testing.T) {
	p, err := Parse([]string{"10.0.0.0/8", "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer, xff, want string
	}{
		{"direct client", "203.0.113.5:4000", "", "203.0.113.5"},
		{"untrusted peer's header is ignored", "203.0.113.5:4000", "198.51.100.1", "203.0.113.5"},
		{"one trusted proxy", "10.1.2.3:4000", "198.51.100.1", "198.51.100.1"},
		{"client-written entries on the left are not believed", "10.1.2.3:4000", "1.2.3.4, 198.51.100.1", "198.51.100.1"},
		{"a chain of trusted proxies", "192.0.2.7:4000", "198.51.100.1, 10.9.9.9", "198.51.100.1"},
		{"garbage stops the walk", "10.1.2.3:4000", "198.51.100.1, nonsense", "10.1.2.3"},
		{"proxy without a header", "10.1.2.3:4000", "", "10.1.2.3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			if c.xff != "" {
				r.Header.Set("X-Forwarded-For", c.xff)
			}
			if got := p.Of(r); got != c.want {
				t.Fatalf("Of = %s, want %s", got, c.want)
			}
		})
	}
	if _, err := Parse([]string{"10.0.0.0/33"}); err == nil {
		t.Fatal("Parse accepted 10.0.0.0/33")
	}
}
