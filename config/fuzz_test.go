package config

import (
	"testing"
)

// FuzzLoad: no file panics the config loader; a file it accepts passes
// validation on its own, and loads again to the same result; a file it
// refuses is refused with a message.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"", "[business]\nname = 1\n", "[[locations]]\nslug = \"x\"\n[[locations.units]]\ncount = -1\n",
		"[deployment]\ntrusted_proxies = [\"10.0.0.0/33\"]\n", "[limits]\nportfolio_email_hourly = 1e400\n", "= = =", "[a]\n[a]\n",
		"[business]\ncurrency = \"XXX\"\ntime_zone = \"Mars/Olympus\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Add(DemoTOML)
	f.Add(ExampleTOML)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Load(%q) refused it without a message", data)
			}
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("Load(%q) accepted a config that does not validate: %v", data, verr)
		}
		if _, err := Load(data); err != nil {
			t.Fatalf("Load(%q) accepted it once, then refused it: %v", data, err)
		}
	})
}
