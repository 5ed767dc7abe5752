package usp

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
)

// TestSSRFTable: the outbound rule over URL hosts and over the addresses
// actually dialled, in production and in development. Loopback, in any
// spelling, is reached only in development; link-local (the metadata
// address among them), private, unspecified and numbers in hex or
// decimal never, mapped into IPv6 or not.
func TestSSRFTable(t *testing.T) {
	const (
		never = iota
		devOnly
		always
	)
	cases := []struct {
		url  string
		dial string // the address a resolver might hand the dialler; "" when the URL is refused before any
		want int
	}{
		{"https://127.0.0.1/p.json", "127.0.0.1:443", devOnly},
		{"https://127.9.8.7/p.json", "127.9.8.7:443", devOnly},
		{"https://[::1]/p.json", "[::1]:443", devOnly},
		{"https://[::ffff:127.0.0.1]/p.json", "[::ffff:127.0.0.1]:443", devOnly},
		{"https://localhost/p.json", "127.0.0.1:443", devOnly},
		{"http://127.0.0.1:8080/hook", "127.0.0.1:8080", devOnly},
		{"http://localhost:8080/hook", "[::1]:8080", devOnly},
		{"https://169.254.169.254/latest/meta-data", "169.254.169.254:443", never},
		{"https://[::ffff:169.254.169.254]/latest", "[::ffff:169.254.169.254]:443", never},
		{"https://[::ffff:a9fe:a9fe]/latest", "[::ffff:a9fe:a9fe]:443", never},
		{"https://[fe80::1]/p.json", "[fe80::1]:443", never},
		{"https://[fe80::1%25eth0]/p.json", "", never},
		{"https://0.0.0.0/p.json", "0.0.0.0:443", never},
		{"https://[::]/p.json", "[::]:443", never},
		{"https://0x7f000001/p.json", "", never},
		{"https://2130706433/p.json", "", never},
		{"https://0xa9fea9fe/p.json", "", never},
		{"https://2852039166/p.json", "", never},
		{"https://127.1/p.json", "", never},
		{"https://0177.0.0.1/p.json", "", never},
		{"https://10.0.0.8/p.json", "10.0.0.8:443", never},
		{"https://192.168.1.1/p.json", "192.168.1.1:443", never},
		{"https://[fd00::1]/p.json", "[fd00::1]:443", never},
		{"https://100.64.0.1/p.json", "100.64.0.1:443", never},
		{"https://[::ffff:10.0.0.1]/p.json", "[::ffff:10.0.0.1]:443", never},
		{"https://224.0.0.1/p.json", "224.0.0.1:443", never},
		{"http://platform.example/hook", "", never},
		{"http://93.184.216.34/hook", "", never},
		{"ftp://platform.example/p.json", "", never},
		{"https://platform.example/p.json", "93.184.216.34:443", always},
		{"https://[2606:4700::1111]/p.json", "[2606:4700::1111]:443", always},
		{"https://8.8.8.8/p.json", "8.8.8.8:443", always},
	}
	for _, c := range cases {
		for _, dev := range []bool{false, true} {
			rule := DialRule{Loopback: dev}
			want := c.want == always || (c.want == devOnly && dev)
			name := "production"
			if dev {
				name = "development"
			}
			t.Run(name+" "+c.url, func(t *testing.T) {
				urlErr := rule.CheckURL(c.url)
				dialErr := error(nil)
				if c.dial != "" {
					if strings.HasPrefix(c.url, "http:") {
						dialErr = rule.loopbackOnly("tcp", c.dial, nil)
					} else {
						dialErr = rule.control("tcp", c.dial, nil)
					}
				}
				allowed := urlErr == nil && dialErr == nil
				if c.dial == "" && urlErr == nil {
					t.Fatalf("%s passed the URL check with nothing left to stop it at connect time", c.url)
				}
				if allowed != want {
					t.Fatalf("%s: URL check %v, dial check of %s %v; want allowed = %v", c.url, urlErr, c.dial, dialErr, want)
				}
			})
		}
	}
}

// TestDialRuleAppliesToTheAddressDialled: a name that resolves to
// loopback passes the URL check (it is a name) and is refused when its
// address is dialled, in production; the metadata address is refused at
// connect time even in development.
func TestDialRuleAppliesToTheAddressDialled(t *testing.T) {
	srv := newPlatformServer(t)
	clk := clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	prod := NewProfiles(ProfileOptions{RootCAs: srv.roots(), Clock: clk})
	if _, err := prod.Get(context.Background(), "https://localhost"+port+"/full.json"); protocolCode(t, err) != CodeInvalidProfileURL {
		t.Fatalf("localhost in production: %v, want invalid_profile_url", err)
	}
	if got := srv.hits["/full.json"].Load(); got != 0 {
		t.Fatalf("a loopback address was fetched %d times in production", got)
	}
	if err := (DialRule{Loopback: true}).control("tcp", netip.MustParseAddrPort("169.254.169.254:80").String(), nil); err == nil {
		t.Fatal("the metadata address was dialled in development")
	}
	dev := NewProfiles(ProfileOptions{AllowPrivate: true, RootCAs: srv.roots(), Clock: clk})
	for _, uri := range []string{"https://169.254.169.254/latest", "https://[::ffff:169.254.169.254]/latest", "https://0x7f000001" + port + "/full.json", "https://10.0.0.8/p.json"} {
		if _, err := dev.Get(context.Background(), uri); protocolCode(t, err) != CodeInvalidProfileURL {
			t.Errorf("%s in development: %v, want invalid_profile_url", uri, err)
		}
	}
	if _, err := dev.Get(context.Background(), srv.URL+"/full.json"); err != nil {
		t.Fatalf("loopback in development: %v", err)
	}
}
