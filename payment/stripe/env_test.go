package stripe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(file, []byte("whsec_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    bool   // a provider
		problem string // part of the error
	}{
		{"nothing set", nil, false, ""},
		{"key and secret", map[string]string{EnvKey: "sk_test_1", EnvWebhookSecret: "whsec_1"}, true, ""},
		{"secret from a file", map[string]string{EnvKey: "sk_test_1", EnvWebhookSecret + "_FILE": file}, true, ""},
		{"mock without a key", map[string]string{EnvMock: "127.0.0.1:12111", EnvWebhookSecret: "whsec_1"}, true, ""},
		{"key without secret", map[string]string{EnvKey: "sk_test_1"}, false, "FRONTDESK_STRIPE_WEBHOOK_SECRET (or FRONTDESK_STRIPE_WEBHOOK_SECRET_FILE) is required with FRONTDESK_STRIPE_KEY"},
		{"secret without key", map[string]string{EnvWebhookSecret: "whsec_1"}, false, "is set without FRONTDESK_STRIPE_KEY"},
		{"live key to a mock", map[string]string{EnvKey: "sk_live_1", EnvWebhookSecret: "whsec_1", EnvMock: "127.0.0.1:12111"}, false, "FRONTDESK_STRIPE_MOCK is for test keys"},
	} {
		p, err := FromEnv(func(k string) string { return tc.env[k] })
		switch {
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%s: error = %v, want %q", tc.name, err, tc.problem)
		case tc.problem == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case (p != nil) != tc.want:
			t.Errorf("%s: provider = %v, want one: %v", tc.name, p, tc.want)
		case err != nil && strings.Contains(err.Error(), "sk_live_1"):
			t.Errorf("%s: the error shows the key: %v", tc.name, err)
		}
	}
}
