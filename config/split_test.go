package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoSplit: init --split's files are valid configs of their kind,
// the hub's naming every location's origin and each location's its own
// store, port and the one shared secret.
func TestDemoSplit(t *testing.T) {
	dir := t.TempDir()
	names, err := DemoSplit(dir, bytes.NewReader(bytes.Repeat([]byte{5}, 32)), func(name string, data []byte) error {
		return os.WriteFile(name, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hub.toml", "riverside.toml", "oldtown.toml", "airport.toml"}
	if len(names) != len(want) {
		t.Fatalf("files = %v, want %v", names, want)
	}
	stores := map[string]bool{}
	for i, name := range names {
		if filepath.Base(name) != want[i] {
			t.Fatalf("file %d = %s, want %s", i, name, want[i])
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.LoadSecrets(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Split.Secret != "1:"+strings.Repeat("05", 32) {
			t.Fatalf("%s: secret %q", name, c.Split.Secret)
		}
		role, hubOrigin := RoleLocation, "http://127.0.0.1:8090"
		if i == 0 {
			role, hubOrigin = RoleHub, ""
			if len(c.Split.Locations) != 3 || c.Split.Locations[1].Origin != "http://127.0.0.1:8092" {
				t.Fatalf("hub locations = %+v", c.Split.Locations)
			}
		}
		if c.Split.Role != role || c.Split.Addr == "" || stores[c.Store.DataDir] || c.Split.Hub != hubOrigin {
			t.Fatalf("%s: role %q addr %q store %q", name, c.Split.Role, c.Split.Addr, c.Store.DataDir)
		}
		stores[c.Store.DataDir] = true
		// Every door is at the hub's address, and every file names where
		// ORP lives.
		if c.Deployment.PublicURL != "http://127.0.0.1:8090" || c.Split.ORPLocation != "riverside" {
			t.Fatalf("%s: public_url %q, orp_location %q", name, c.Deployment.PublicURL, c.Split.ORPLocation)
		}
	}
}

func TestSplitValidation(t *testing.T) {
	hub := "\n[split]\nrole = \"hub\"\nsecret_env = \"RELAY\"\n" +
		"[[split.locations]]\nslug = \"riverside\"\norigin = \"http://127.0.0.1:8091\"\n" +
		"[[split.locations]]\nslug = \"oldtown\"\norigin = \"http://127.0.0.1:8092\"\n"
	airport := "[[split.locations]]\nslug = \"airport\"\norigin = \"http://127.0.0.1:8093\"\n"
	tests := []struct {
		name, tail, want string // want: "" for valid, else a field the error names
	}{
		{"hub", hub + airport, ""},
		{"location", "\n[split]\nrole = \"location\"\nsecret_file = \"/etc/relay\"\n", ""},
		{"location with its hub", "\n[split]\nrole = \"location\"\nsecret_file = \"/etc/relay\"\nhub = \"http://127.0.0.1:8090\"\n", ""},
		{"hub origin with a path", "\n[split]\nrole = \"location\"\nsecret_file = \"/etc/relay\"\nhub = \"http://127.0.0.1:8090/x\"\n", "split.hub"},
		{"a hub naming a hub", strings.Replace(hub, "[split]\n", "[split]\nhub = \"http://127.0.0.1:8090\"\n", 1) + airport, "split.hub"},
		{"unknown role", "\n[split]\nrole = \"proxy\"\n", "split.role"},
		{"secret without role", "\n[split]\nsecret_env = \"RELAY\"\n", "split.role"},
		{"no secret", "\n[split]\nrole = \"location\"\n", "split.secret_env"},
		{"two secrets", "\n[split]\nrole = \"location\"\nsecret_env = \"A\"\nsecret_file = \"/b\"\n", "split.secret_env"},
		{"location names origins", "\n[split]\nrole = \"location\"\nsecret_env = \"A\"\n" + airport, "split.locations"},
		{"a location unreached", hub, "split.locations"},
		{"unknown slug", hub + airport + "[[split.locations]]\nslug = \"beach\"\norigin = \"http://127.0.0.1:8094\"\n", "split.locations[3].slug"},
		{"twice", hub + airport + airport, "split.locations[3].slug"},
		{"origin with a path", hub + "[[split.locations]]\nslug = \"airport\"\norigin = \"http://127.0.0.1:8093/relay\"\n", "split.locations[2].origin"},
		{"origin not http", hub + "[[split.locations]]\nslug = \"airport\"\norigin = \"ftp://127.0.0.1\"\n", "split.locations[2].origin"},
		{"orp at a location", strings.Replace(hub, "secret_env = \"RELAY\"\n", "secret_env = \"RELAY\"\norp_location = \"oldtown\"\n", 1) + airport, ""},
		{"orp at no location", strings.Replace(hub, "secret_env = \"RELAY\"\n", "secret_env = \"RELAY\"\norp_location = \"beach\"\n", 1) + airport, "split.orp_location"},
		{"a location names orp", "\n[split]\nrole = \"location\"\nsecret_env = \"A\"\norp_location = \"oldtown\"\n", ""},
		{"a location names orp at no location", "\n[split]\nrole = \"location\"\nsecret_env = \"A\"\norp_location = \"beach\"\n", "split.orp_location"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(append(bytes.Clone(DemoTOML), tt.tail...))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load = %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want+":")):
				t.Fatalf("Load = %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

func TestOnly(t *testing.T) {
	c := Demo()
	if err := c.Only("oldtown"); err != nil || len(c.Locations) != 1 || c.Locations[0].Slug != "oldtown" {
		t.Fatalf("Only(oldtown) = %v, %+v", err, c.Locations)
	}
	if strings.Join(c.Split.Others, ",") != "riverside,airport" {
		t.Fatalf("the others of oldtown = %q", c.Split.Others)
	}
	if len(Demo().Locations) != 3 {
		t.Fatal("Only changed the demo's locations")
	}
	if err := c.Only("beach"); err == nil {
		t.Fatal("Only(beach) kept a location")
	}
}
