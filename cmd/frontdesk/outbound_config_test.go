package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/internal/clock"
)

// TestOldOutboundKeysWarn: a config file still using
// usp.allow_private_profiles or orp.fetch_private_addresses starts, with
// the development switch on, and logs one warning per old key naming
// outbound.allow_private.
func TestOldOutboundKeysWarn(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "config", "demo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	file := strings.Replace(string(demo), "[outbound]\nallow_private = true", "[outbound]", 1)
	file = strings.Replace(file, "[usp]\n", "[usp]\nallow_private_profiles = true\n", 1)
	file = strings.Replace(file, "[orp]\n", "[orp]\nfetch_private_addresses = true\n", 1)
	path := filepath.Join(t.TempDir(), "frontdesk.toml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	m, err := newMain(clock.System{}, "serve", []string{"--config", path}, io.Discard, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Config.Outbound.AllowPrivate || !m.Config.AllowPrivate() {
		t.Fatal("an old key did not turn on outbound.allow_private")
	}
	for _, key := range []string{"usp.allow_private_profiles", "orp.fetch_private_addresses"} {
		if !strings.Contains(stderr.String(), key+" is deprecated: write outbound.allow_private instead") {
			t.Fatalf("no warning for %s in %q", key, stderr.String())
		}
	}
}
