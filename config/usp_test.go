package config

import (
	"strings"
	"testing"
)

func TestUSPSettingsAreChecked(t *testing.T) {
	key := "sha256:" + strings.Repeat("ab", 32)
	c := Demo()
	c.USP.ProfileCacheEntries = -1
	c.USP.ProfileCacheMaxSeconds = 30
	c.USP.ProfileMaxBytes = 1000
	c.USP.ProfileStaleMaxSeconds = -2
	c.USP.KeyLeadMinutes = -1
	c.USP.AllowPrivateProfiles = false // plain http webhooks are for development only
	c.USP.KeyGraceDays = 3
	c.USP.Mode = "native"
	c.USP.Platforms = []USPPlatform{
		{Name: "Acme Platform", APIKeyHashes: []string{key}},
		{Name: "acme", APIKeyHashes: []string{"sha256:xyz", key}},
		{Name: "acme", WebhookURL: "http://platform.example/hooks"},
		{Name: "beta", APIKeyHashes: []string{"sha256:" + strings.Repeat("ef", 32)}, WebhookURL: "ftp://platform.example/hooks"},
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("bad [usp] settings were accepted")
	}
	for _, want := range []string{
		"usp.profile_cache_entries:", "usp.profile_cache_max_seconds:", "usp.profile_max_bytes:", "usp.profile_stale_max_seconds:",
		"usp.platforms[0].name:", "usp.platforms[1].api_key_hashes[0]:", "usp.platforms[1].api_key_hashes[1]: is also a key of usp.platforms[0].api_key_hashes[0]",
		`usp.platforms[2].name: "acme" is registered twice`, "usp.platforms[2].api_key_hashes: needs at least one key hash",
		"usp.key_lead_minutes:", "usp.key_grace_days:", `usp.mode: must be "standalone" (the default) or "ucp_native", got "native"`, "usp.platforms[2].webhook_url: must be https", "usp.platforms[3].webhook_url: must be an absolute",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}

	good := Demo()
	good.USP.ProfileCacheMaxSeconds = 600
	good.USP.ProfileMaxBytes = 128 << 10
	good.USP.KeyLeadMinutes, good.USP.KeyGraceDays = 10, 30
	good.USP.Mode = USPUCPNative
	good.USP.Platforms = []USPPlatform{{Name: "acme", APIKeyHashes: []string{key, "sha256:" + strings.Repeat("cd", 32)}, WebhookURL: "https://platform.example/hooks/usp"}}
	if err := good.Validate(); err != nil {
		t.Fatalf("good [usp] settings refused: %v", err)
	}
}

func TestUSPSectionParses(t *testing.T) {
	c, err := Parse([]byte(`[usp]
enabled = true
allow_private_profiles = true
profile_cache_entries = 10
mode = "ucp_native"
[[usp.platforms]]
name = "acme"
api_key_hashes = ["sha256:` + strings.Repeat("0f", 32) + `"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.USP.Enabled || !c.USP.AllowPrivateProfiles || c.USP.ProfileCacheEntries != 10 || c.USP.Mode != USPUCPNative || len(c.USP.Platforms) != 1 || c.USP.Platforms[0].Name != "acme" {
		t.Fatalf("usp = %+v", c.USP)
	}
	if !Demo().USP.Enabled {
		t.Fatal("the demo does not enable USP")
	}
}
