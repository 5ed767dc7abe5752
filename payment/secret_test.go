package payment_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/payment"
)

func TestSecretNeverPrints(t *testing.T) {
	s := payment.NewSecret("sk_live_do_not_print")
	body, _ := json.Marshal(map[string]any{"key": s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", s, s, s, s), string(body)} {
		if strings.Contains(out, "do_not_print") {
			t.Errorf("printed the value: %s", out)
		}
	}
	if s.Reveal() != "sk_live_do_not_print" {
		t.Fatal("Reveal lost the value")
	}
}

func TestReadSecret(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("sk_test_from_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := payment.ReadSecret(env(map[string]string{"K": "sk_test_env"}), "K")
	if err != nil || s.Reveal() != "sk_test_env" {
		t.Fatalf("from the environment = %v", err)
	}
	s, err = payment.ReadSecret(env(map[string]string{"K_FILE": file}), "K")
	if err != nil || s.Reveal() != "sk_test_from_file" {
		t.Fatalf("from a file = %v", err)
	}
	if s, err = payment.ReadSecret(env(nil), "K"); err != nil || s.Set() {
		t.Fatalf("unset = %v, %v", s.Set(), err)
	}
	_, err = payment.ReadSecret(env(map[string]string{"K": "sk_test_env", "K_FILE": file}), "K")
	if err == nil || strings.Contains(err.Error(), "sk_test") {
		t.Fatalf("both set = %v; want an error naming no value", err)
	}
	if _, err = payment.ReadSecret(env(map[string]string{"K_FILE": file + ".missing"}), "K"); err == nil {
		t.Fatal("a missing file was accepted")
	}
}
