package config

import (
	"slices"
	"testing"
)

// TestOutboundAllowPrivate: outbound.allow_private is the one
// development switch of the outbound address rule; its old names,
// usp.allow_private_profiles and orp.fetch_private_addresses, are still
// read, each with a warning naming the new key, and either turns it on.
func TestOutboundAllowPrivate(t *testing.T) {
	cases := []struct {
		name, file string
		on         bool
		warnings   []string
	}{
		{"default", ``, false, nil},
		{"new key", "[outbound]\nallow_private = true\n", true, nil},
		{"usp's old key", "[usp]\nallow_private_profiles = true\n", true,
			[]string{"usp.allow_private_profiles is deprecated: write outbound.allow_private instead"}},
		{"orp's old key", "[orp]\nfetch_private_addresses = true\n", true,
			[]string{"orp.fetch_private_addresses is deprecated: write outbound.allow_private instead"}},
		{"an old key off", "[orp]\nfetch_private_addresses = false\n", false,
			[]string{"orp.fetch_private_addresses is deprecated: write outbound.allow_private instead"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.file))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Outbound.AllowPrivate != c.on || cfg.AllowPrivate() != c.on || cfg.USP.AllowPrivateProfiles != c.on {
				t.Fatalf("allow_private = %v (%v, usp %v), want %v", cfg.Outbound.AllowPrivate, cfg.AllowPrivate(), cfg.USP.AllowPrivateProfiles, c.on)
			}
			if !slices.Equal(cfg.Warnings(), c.warnings) {
				t.Fatalf("warnings = %q, want %q", cfg.Warnings(), c.warnings)
			}
		})
	}
}
