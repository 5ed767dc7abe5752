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
business_party = "orp:riverside.example/p_0123456789ab"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.ORP.Sites[0] != "shop.example.com" || c.ORP.BlockedDomains[0] != "evil.example" || c.ORP.MaxReportMinor != 5000000 || c.ORP.BusinessParty != "orp:riverside.example/p_0123456789ab" || len(c.Deployment.TrustedProxies) != 2 {
		t.Fatalf("parsed %+v %+v", c.ORP, c.Deployment)
	}
	d := Demo()
	d.ORP.Sites, d.ORP.BlockedDomains, d.ORP.MaxReportMinor = c.ORP.Sites, c.ORP.BlockedDomains, c.ORP.MaxReportMinor
	d.Deployment.TrustedProxies, d.ORP.BusinessParty = c.Deployment.TrustedProxies, c.ORP.BusinessParty
	c = d
	if err := c.Validate(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
	c.ORP.Sites = []string{"https://shop.example.com"}
	c.ORP.BlockedDomains = []string{"Evil.example"}
	c.ORP.MaxReportMinor = 1 << 60
	c.ORP.BusinessParty = "p_0123456789ab"
	c.Deployment.TrustedProxies = []string{"10.0.0.0/33"}
	err = c.Validate()
	for _, field := range []string{"orp.sites[0]", "orp.blocked_domains[0]", "orp.max_report_minor", "orp.business_party", "deployment.trusted_proxies[0]"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v, want a problem with %s", err, field)
		}
	}
}

// TestORPSecrets: the provider webhook secret and the resolver token are
// named by an environment variable or a file, never kept in the file,
// and never both.
func TestORPSecrets(t *testing.T) {
	c, err := Parse([]byte(`
[orp]
stripe_webhook_secret_env = "FRONTDESK_STRIPE_WHSEC"
resolver_token_file = "/run/secrets/resolver"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.ORP.StripeWebhookSecretEnv != "FRONTDESK_STRIPE_WHSEC" || c.ORP.ResolverTokenFile != "/run/secrets/resolver" {
		t.Fatalf("parsed %+v", c.ORP)
	}
	d := Demo()
	d.ORP.StripeWebhookSecretEnv, d.ORP.StripeWebhookSecretFile = "A", "/b"
	d.ORP.ResolverTokenEnv, d.ORP.ResolverTokenFile = "C", "/d"
	err = d.Validate()
	for _, field := range []string{"orp.stripe_webhook_secret_env", "orp.resolver_token_env"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v, want a problem with %s", err, field)
		}
	}
}
