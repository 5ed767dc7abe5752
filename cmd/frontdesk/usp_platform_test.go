package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUSPPlatformPin: the README's USP example with no profile server of
// its own. `frontdesk usp platform add --file` pins a profile whose host
// does not exist; serve verifies calls naming it against the pin and
// books; list shows it; remove drops it, and the URI is fetched (and
// unreachable) again.
func TestUSPPlatformPin(t *testing.T) {
	t.Parallel()
	m, _ := startUSPDemo(t, "")
	data := m.Config.Store.DataDir
	file := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(file, []byte(e2eProfile), 0o600); err != nil {
		t.Fatal(err)
	}
	const uri = "https://platform.invalid/usp/profile.json"
	out, _, err := runCmd(t, "usp", "platform", "add", "--data", data, "--file", file, uri)
	if err != nil || !strings.Contains(out, "pinned the profile "+uri+" (file)") || !strings.Contains(out, uri+"  file") {
		t.Fatalf("usp platform add = %q, %v", out, err)
	}
	platform := map[string]string{"Authorization": "Bearer " + demoPlatformKey, "USP-Agent": `profile="` + uri + `"`, "Content-Type": "application/json",
		"Idempotency-Key": "2b1c3d4e-0000-4000-8000-000000000001"}
	url := m.URL
	status, _, body := post(t, url+"/usp/availability/query", nil, `{"service_id":"svc_airport_shuttle","start_date":"2026-12-02","end_date":"2026-12-02"}`)
	if status != 200 {
		t.Fatalf("query: %d %s", status, body)
	}
	slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, _, body = post(t, url+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot))
	if status != 201 {
		t.Fatalf("booking on the pinned profile: %d %s", status, body)
	}
	list, _, err := runCmd(t, "usp", "platform", "list", "--data", data)
	if err != nil || !strings.Contains(list, uri) {
		t.Fatalf("usp platform list = %q, %v", list, err)
	}
	if out, _, err := runCmd(t, "usp", "platform", "remove", "--data", data, uri); err != nil || strings.Contains(out, uri+"  file") {
		t.Fatalf("usp platform remove = %q, %v", out, err)
	}
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, bad := range [][]string{
		{"usp", "platform", "--data", data},
		{"usp", "platform", "add", "--data", data},
		{"usp", "platform", "add", "--data", data, "--file", file, "http://platform.example/p.json"},
		{"usp", "platform", "add", "--data", data, "--file", missing, uri},
		{"usp", "platform", "remove", "--data", data, uri}, // removed above
	} {
		if _, _, err := runCmd(t, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
