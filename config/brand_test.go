package config

import (
	"strings"
	"testing"
)

// TestBrandSettings: the guest site's logo, accent colour, locale and
// amenities are checked with a sentence that names the setting; a
// colour too light for white text on it is refused with its contrast.
func TestBrandSettings(t *testing.T) {
	cases := []struct {
		name, brand, want string
	}{
		{"good", "logo = \"/photos/logo.svg\"\naccent_color = \"#0b5d4b\"\nlocale = \"en-GB\"", ""},
		{"unset", "", ""},
		{"logo on another scheme", `logo = "http://example.com/logo.png"`, "business.logo: must be an https:// address"},
		{"colour by name", `accent_color = "green"`, "business.accent_color: must be a colour written as #rrggbb"},
		{"colour too light", `accent_color = "#ffd700"`, "business.accent_color: #ffd700 is too light for white text on it (contrast 1.4:1"},
		{"unknown locale", `locale = "fr-FR"`, `business.locale: must be en-US (dates as Mon, Mar 14, 2027) or en-GB (Mon 14 Mar 2027), got "fr-FR"`},
		{"empty amenity", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var plain []string
			for _, line := range strings.Split(string(DemoTOML), "\n") {
				if !strings.HasPrefix(line, "logo =") && !strings.HasPrefix(line, "accent_color =") && !strings.HasPrefix(line, "locale =") && !strings.HasPrefix(line, "amenities =") {
					plain = append(plain, line)
				}
			}
			doc := strings.Replace(strings.Join(plain, "\n"), "[business]\n", "[business]\n"+c.brand+"\n", 1)
			if c.name == "empty amenity" {
				doc = strings.Replace(doc, `capacity = 1`, "capacity = 1\namenities = [\"Desk\", \" \"]", 1)
				c.want = "amenities[1]: must be a short phrase"
			}
			cfg, err := Parse([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
	if got := ContrastWithWhite("#000000"); got != 21 {
		t.Fatalf("contrast of black = %v, want 21", got)
	}
}
