package outbound

import (
	"net/netip"
	"strings"
	"testing"
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
			rule := Rule{Loopback: dev}
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

// TestMetadataAddressRefusedInDevelopment: development admits loopback
// and nothing more; the cloud metadata address stays refused at connect
// time.
func TestMetadataAddressRefusedInDevelopment(t *testing.T) {
	if err := (Rule{Loopback: true}).control("tcp", netip.MustParseAddrPort("169.254.169.254:80").String(), nil); err == nil {
		t.Fatal("the metadata address was dialled in development")
	}
}

func TestSpecialAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "::1": true, "fc00::1": true, "fe80::1": true, "::ffff:10.0.0.1": true,
		"192.0.2.1": true, "2001:db8::1": true, "224.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
	} {
		if got := special(netip.MustParseAddr(addr)); got != want {
			t.Errorf("special(%s) = %v, want %v", addr, got, want)
		}
	}
}
