package config

import (
	"strings"
	"testing"
)

// TestORPSettings: the ORP host's sites, blocked domains, report maximum
// and the trusted proxies parse and validate, each problem naming its
// field.
func TestORPSettings(t *testing.T) {
	c, err := Parse([]byte(`
[deployment]
trusted_proxies = ["10.0.0.0/8", "192.0.2.7"]
[orp]
sites = ["shop.example.com"]
blocked_domains = ["evil.example"]
max_report_minor = 5000000
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.ORP.Sites[0] != "shop.example.com" || c.ORP.BlockedDomains[0] != "evil.example" || c.ORP.MaxReportMinor != 5000000 || len(c.Deployment.TrustedProxies) != 2 {
		t.Fatalf("parsed %+v %+v", c.ORP, c.Deployment)
	}
	d := Demo()
	d.ORP.Sites, d.ORP.BlockedDomains, d.ORP.MaxReportMinor = c.ORP.Sites, c.ORP.BlockedDomains, c.ORP.MaxReportMinor
	d.Deployment.TrustedProxies = c.Deployment.TrustedProxies
	c = d
	if err := c.Validate(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
	c.ORP.Sites = []string{"https://shop.example.com"}
	c.ORP.BlockedDomains = []string{"Evil.example"}
	c.ORP.MaxReportMinor = 1 << 60
	c.Deployment.TrustedProxies = []string{"10.0.0.0/33"}
	err = c.Validate()
	for _, field := range []string{"orp.sites[0]", "orp.blocked_domains[0]", "orp.max_report_minor", "deployment.trusted_proxies[0]"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v, want a problem with %s", err, field)
		}
	}
}
