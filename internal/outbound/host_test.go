package outbound

import (
	"errors"
	"testing"
)

// TestCheckHostForms: one normalisation of a URL host for every fetch:
// case and a trailing dot change nothing, localhost and its subdomains
// are loopback (refused like 127.0.0.1 unless in development), and a
// number in another form than dotted decimal is refused in every mode.
func TestCheckHostForms(t *testing.T) {
	cases := []struct {
		host      string
		prod, dev bool // allowed
	}{
		{"127.0.0.1", false, true},
		{"localhost", false, true},
		{"localhost.", false, true},
		{"LOCALHOST", false, true},
		{"app.localhost", false, true},
		{"app.localhost.", false, true},
		{"127.1", false, false},
		{"0x7f000001", false, false},
		{"2130706433", false, false},
		{"0177.0.0.1", false, false},
		{"127.0.0.1.", false, true},
		{"10.0.0.1", false, false},
		{"169.254.169.254", false, false},
		{"", false, false},
		{"notes.example", true, true},
		{"notes.example.", true, true},
		{"8.8.8.8", true, true},
		{"localhost.example", true, true},
	}
	for _, c := range cases {
		for _, dev := range []bool{false, true} {
			err := Rule{Loopback: dev}.CheckHost(c.host)
			want := c.prod
			if dev {
				want = c.dev
			}
			if (err == nil) != want {
				t.Errorf("CheckHost(%q) dev=%v = %v, want allowed %v", c.host, dev, err, want)
			}
			if err != nil && !errors.Is(err, ErrSpecialAddress) {
				t.Errorf("CheckHost(%q) = %v, want ErrSpecialAddress", c.host, err)
			}
		}
	}
}
