package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"frontdesk/mcpfront"
)

// TestRegistryJSON writes server.json for the demo's hub: its remote is
// the public https endpoint, its tools are what the hub lists, and a
// plain-HTTP public URL or a binary without a release version is refused.
func TestRegistryJSON(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out, _, err := runCmd(t, "registry-json", "--data", data, "--public-url", "https://localhost", "--version", "v1.4.0")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema                     string `json:"$schema"`
		Name, Description, Version string
		Remotes                    []struct{ Type, URL string }
		Meta                       map[string]struct {
			Tools []struct{ Name, Description string }
		} `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("server.json is not JSON: %v\n%s", err, out)
	}
	if doc.Name != "localhost/frontdesk" || doc.Version != "1.4.0" || len(doc.Description) > 100 || !strings.Contains(doc.Schema, "server.schema.json") {
		t.Errorf("server.json head = %+v", doc)
	}
	if len(doc.Remotes) != 1 || doc.Remotes[0].Type != "streamable-http" || doc.Remotes[0].URL != "https://localhost/mcp" {
		t.Errorf("remotes = %+v", doc.Remotes)
	}
	var names []string
	for _, tool := range doc.Meta[mcpfront.RegistryMeta].Tools {
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{"cancel_booking", "confirm_booking", "find_rooms", "get_booking", "list_properties", "property_info", "quote_stay", "start_booking"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want the hub's %v", names, want)
	}
	if _, _, err := runCmd(t, "registry-json", "--data", data, "--public-url", "http://localhost:8080", "--version", "1.4.0"); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("plain-HTTP public URL = %v, want a refusal", err)
	}
	if _, _, err := runCmd(t, "registry-json", "--data", data, "--public-url", "https://localhost"); err == nil || !strings.Contains(err.Error(), "release version") {
		t.Errorf("no release version = %v, want a refusal", err)
	}
}
