package config

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"frontdesk/business"
)

// Split is [split]: this process as the hub or one location of a split
// deployment (direct-booking.md §4), each with its own store. The hub
// relays the chat tools to the location that owns a call, over the
// relay endpoint, authenticated with the shared secret named here.
type Split struct {
	// Role is "hub" or "location"; empty runs everything in one process.
	Role string `toml:"role"`
	// Addr is the listen address when --addr is not given.
	Addr string `toml:"addr"`
	// SecretEnv and SecretFile name where the shared secret's versions
	// are kept, as FRONTDESK_BOOKING_SECRETS holds them: "N:HEX" entries.
	SecretEnv  string `toml:"secret_env"`
	SecretFile string `toml:"secret_file"`
	Secret     string `toml:"-"` // read from the env or file above
	// Locations are the hub's: where each location's process serves.
	// Only the config says where a call goes; no argument of a call can.
	Locations []SplitLocation `toml:"locations"`
	// ORPLocation is the location whose process hosts the business's
	// ORP host. The hub forwards every ORP door there (the discovery
	// document, /orp…, /go/…, /terms, the approval, claim and owner
	// pages), so partners meet one host, and the conversions that the
	// other locations report through the hub. A location that is not
	// it reports its attributed bookings there. Empty: the hub's own
	// host, and each location attributes at its own.
	ORPLocation string `toml:"orp_location"`
	// Hub is a location's: the hub's origin, where the group's control
	// data is kept (pending counts, code admissions, contact markers).
	// Without it the location keeps to its own limits alone.
	Hub string `toml:"hub"`
	// Others are the group's other locations, as Only leaves them out.
	Others []string `toml:"-"`
}

// SplitLocation is where one location's process serves.
type SplitLocation struct {
	Slug   string `toml:"slug"`
	Origin string `toml:"origin"` // such as "http://127.0.0.1:8091", no path
}

// Split roles.
const (
	RoleHub      = "hub"
	RoleLocation = "location"
)

func (c Config) validateSplit(v *validator) {
	s := c.Split
	switch s.Role {
	case "":
		if s.SecretEnv != "" || s.SecretFile != "" || len(s.Locations) > 0 {
			v.add("split.role", `must be "hub" or "location" when [split] names a secret or locations`)
		}
		return
	case RoleHub, RoleLocation:
	default:
		v.add("split.role", `must be "hub" or "location", got %q`, s.Role)
		return
	}
	if (s.SecretEnv == "") == (s.SecretFile == "") {
		v.add("split.secret_env", "name the shared secret's source: exactly one of split.secret_env and split.secret_file")
	}
	if s.Role == RoleLocation {
		if len(s.Locations) > 0 {
			v.add("split.locations", "are the hub's; a location's file names none")
		}
		if s.ORPLocation != "" && !slices.ContainsFunc(c.Locations, func(l business.Location) bool { return l.Slug == s.ORPLocation }) {
			v.add("split.orp_location", "%q is not the slug of a location in [[locations]]", s.ORPLocation)
		}
		if s.Hub != "" && !isOrigin(s.Hub) {
			v.add("split.hub", "must be an http or https origin such as http://127.0.0.1:8090, got %q", s.Hub)
		}
		return
	}
	if s.ORPLocation != "" && !slices.ContainsFunc(s.Locations, func(l SplitLocation) bool { return l.Slug == s.ORPLocation }) {
		v.add("split.orp_location", "%q is not the slug of a location in [[split.locations]]", s.ORPLocation)
	}
	if s.Hub != "" {
		v.add("split.hub", "is a location's; the hub's file names none")
	}
	var seen []string
	for i, l := range s.Locations {
		field := fmt.Sprintf("split.locations[%d]", i)
		if !slices.ContainsFunc(c.Locations, func(loc business.Location) bool { return loc.Slug == l.Slug }) {
			v.add(field+".slug", "%q is not the slug of a location in [[locations]]", l.Slug)
		}
		if slices.Contains(seen, l.Slug) {
			v.add(field+".slug", "%q is given twice", l.Slug)
		}
		seen = append(seen, l.Slug)
		if !isOrigin(l.Origin) {
			v.add(field+".origin", "must be an http or https origin such as http://127.0.0.1:8091, got %q", l.Origin)
		}
	}
	for _, loc := range c.Locations {
		if !slices.Contains(seen, loc.Slug) {
			v.add("split.locations", "name no origin for location %q; the hub could not reach it", loc.Slug)
		}
	}
}

// isOrigin says whether text is an http or https origin, with no path,
// query or user.
func isOrigin(text string) bool {
	u, err := url.Parse(text)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.User == nil
}

// loadSplitSecret reads the shared secret for a split role.
func (c *Config) loadSplitSecret() error {
	s := &c.Split
	var err error
	if s.Secret, err = secret("split.secret", s.SecretEnv, s.SecretFile); err != nil {
		return err
	}
	if s.Role != "" && strings.TrimSpace(s.Secret) == "" {
		return fmt.Errorf("split: the shared secret is empty; split.secret_env or split.secret_file must hold \"N:HEX\" versions")
	}
	return nil
}

// Only keeps the location slug alone: `frontdesk location --slug S`
// runs that location and no other.
func (c *Config) Only(slug string) error {
	for _, l := range c.Locations {
		if l.Slug == slug {
			for _, o := range c.Locations {
				if o.Slug != slug {
					c.Split.Others = append(c.Split.Others, o.Slug)
				}
			}
			c.Locations = append(c.Locations[:0:0], l)
			return nil
		}
	}
	return fmt.Errorf("--slug: %q is not the slug of a location in the config", slug)
}

// WriteDemoSplit writes DemoSplit's files into dir, creating it, each
// readable by its owner alone.
func WriteDemoSplit(dir string, rand io.Reader) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return DemoSplit(dir, rand, func(name string, data []byte) error { return os.WriteFile(name, data, 0o600) })
}

// SplitPorts are the loopback ports `frontdesk init --split` gives the
// hub and the demo's locations, in config order.
var SplitPorts = []int{8090, 8091, 8092, 8093}

// DemoSplit writes the demo business as a split deployment into dir: a
// shared secret (one version, 32 bytes from rand), hub.toml and one file
// per location, each with its own SQLite directory, on loopback ports.
// Every file's public_url is the hub's: guests and platforms reach every
// door there, and a location's links and USP checks name that address.
// It returns the files' names, hub first.
func DemoSplit(dir string, rand io.Reader, write func(name string, data []byte) error) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := io.ReadFull(rand, key); err != nil {
		return nil, err
	}
	secretPath := filepath.Join(abs, "relay.secret")
	if err := write(secretPath, []byte("1:"+hex.EncodeToString(key)+"\n")); err != nil {
		return nil, err
	}
	demo := Demo()
	origin := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
	file := func(role string, port int, data string, extra string) []byte {
		body := strings.Replace(string(DemoTOML), "hostnames = [\"localhost\", \"127.0.0.1\"]\n",
			fmt.Sprintf("hostnames = [\"localhost\", \"127.0.0.1\"]\npublic_url = %q\n", origin(SplitPorts[0])), 1)
		return fmt.Appendf(nil, "%s\n[store]\ndata_dir = %q\n\n[split]\nrole = %q\naddr = \"127.0.0.1:%d\"\nsecret_file = %q\n%s",
			body, filepath.Join(abs, data), role, port, secretPath, extra)
	}
	var hubLocations strings.Builder
	fmt.Fprintf(&hubLocations, "orp_location = %q\n", demo.Locations[0].Slug)
	for i, l := range demo.Locations {
		fmt.Fprintf(&hubLocations, "\n[[split.locations]]\nslug = %q\norigin = %q\n", l.Slug, origin(SplitPorts[i+1]))
	}
	names := []string{filepath.Join(abs, "hub.toml")}
	if err := write(names[0], file(RoleHub, SplitPorts[0], "hub-data", hubLocations.String())); err != nil {
		return nil, err
	}
	for i, l := range demo.Locations {
		name := filepath.Join(abs, l.Slug+".toml")
		extra := fmt.Sprintf("hub = %q\norp_location = %q\n", origin(SplitPorts[0]), demo.Locations[0].Slug)
		if err := write(name, file(RoleLocation, SplitPorts[i+1], l.Slug+"-data", extra)); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// Origins are the hub's locations' origins by slug.
func (s Split) Origins() map[string]string {
	out := make(map[string]string, len(s.Locations))
	for _, l := range s.Locations {
		out[l.Slug] = strings.TrimSuffix(l.Origin, "/")
	}
	return out
}
