package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/internal/golden"
)

func TestDemoIsTheDesignedBusiness(t *testing.T) {
	c := Demo()
	if got, want := c.Business.Name, "Sample Stays"; got != want {
		t.Fatalf("name = %q, want %q", got, want)
	}
	if c.Business.Phone == "" || c.Business.TimeZone != "America/Denver" || c.Business.CheckinHour != "15:00" {
		t.Fatalf("business = %+v", c.Business)
	}
	want := map[string]map[string]int{
		"riverside": {"single": 3, "double": 2, "studio": 1},
		"oldtown":   {"single": 2, "double": 2},
		"airport":   {"double": 1, "studio": 2},
	}
	timed := 0
	for _, l := range c.Locations {
		if l.Phone == c.Business.Phone {
			t.Errorf("%s shares the business phone", l.Slug)
		}
		nights := map[string]int{}
		for _, u := range l.Units {
			if u.Kind == business.KindTimed {
				timed++
				continue
			}
			nights[u.Type] = u.Count
			if u.Type == "studio" && (!u.WeeklyOnly() || u.MinNights != 7) {
				t.Errorf("%s studio is not weekly-only with a 7-night minimum", l.Slug)
			}
			if u.Type != "studio" && u.WeeklyOnly() {
				t.Errorf("%s %s has no nightly rate", l.Slug, u.Type)
			}
		}
		for typ, n := range want[l.Slug] {
			if nights[typ] != n {
				t.Errorf("%s %s = %d units, want %d", l.Slug, typ, nights[typ], n)
			}
		}
		if len(nights) != len(want[l.Slug]) {
			t.Errorf("%s sells %v, want %v", l.Slug, nights, want[l.Slug])
		}
	}
	if timed == 0 {
		t.Error("demo offers no timed service")
	}
	if c.Deployment.Context != "production" || !c.Deployment.Published {
		t.Errorf("deployment = %+v", c.Deployment)
	}
	if got := strings.Join(c.Deployment.Hostnames, ","); got != "localhost,127.0.0.1" {
		t.Errorf("hostnames = %s", got)
	}
	if c.Business.OfficeHours.Sun != "closed" || c.Business.OfficeHours.Sat != "10:00-18:00" || c.Business.OfficeHours.Mon != "08:00-18:00" {
		t.Errorf("office hours = %+v", c.Business.OfficeHours)
	}
}

func TestExampleValidates(t *testing.T) {
	c, err := Parse(ExampleTOML)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("example config: %v", err)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	bad := strings.NewReplacer(
		`time_zone = "America/Denver"`, `time_zone = "Mars/Olympus"`,
		`slug = "oldtown"`, `slug = "riverside"`,
		`nightly_rate = "79.00"`, `nightly_rate = "79.001"`,
		`count = 2`+"\n"+`weekly_rate = "595.00"`, `count = 0`+"\n"+`weekly_rate = "595.00"`,
		`opens = "06:00"`, `opens = "23:00"`,
		`max_guests = 4`, `max_guests = 0`,
		`driver = "dev"`, `driver = "pigeon"`,
		`reference_prefix = "APS"`, `reference_prefix = "rv"`,
	).Replace(string(DemoTOML))
	c, err := Parse([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want errors")
	}
	golden.Check(t, "invalid-demo.txt", []byte(err.Error()+"\n"))
}

func TestParseRefusesUnknownSettings(t *testing.T) {
	_, err := Parse([]byte("[business]\nnmae = \"x\"\n[limits]\nmax_guest = 3\n"))
	if err == nil {
		t.Fatal("Parse accepted unknown keys")
	}
	for _, want := range []string{"business.nmae: unknown setting", "limits.max_guest: unknown setting"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestTLSWithoutModeRefused: a [tls] table with certificate files (or
// ACME settings) but no mode used to load as mode "off" and serve plain
// HTTP; it is refused with the line to add.
func TestTLSWithoutModeRefused(t *testing.T) {
	for _, tc := range []struct{ tls, want string }{
		{"cert_file = \"/etc/c.pem\"\nkey_file = \"/etc/k.pem\"\n", `add mode = "files" to [tls]`},
		{"acme_email = \"o@example.com\"\n", `add mode = "acme" to [tls]`},
		{"hsts_seconds = 60\n", `add mode = "acme" or mode = "files" to [tls]`},
	} {
		file := string(DemoTOML) + "\n[tls]\n" + tc.tls
		line := strings.Count(string(DemoTOML), "\n") + 2
		_, err := Load([]byte(file))
		if err == nil {
			t.Fatalf("Load accepted [tls] %q without a mode", tc.tls)
		}
		if !strings.HasPrefix(err.Error(), "tls.mode: ") || !strings.Contains(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), fmt.Sprintf("(line %d)", line)) {
			t.Errorf("Load = %q, want a tls.mode error saying %q at line %d", err, tc.want, line)
		}
	}
	for _, mode := range []string{"off", "files"} {
		file := string(DemoTOML) + "\n[tls]\nmode = \"" + mode + "\"\ncert_file = \"/etc/c.pem\"\nkey_file = \"/etc/k.pem\"\n"
		if _, err := Load([]byte(file)); err != nil {
			t.Errorf("mode %q with files: %v", mode, err)
		}
	}
}

// TestValidationErrorsCarryLines: a problem found by validation names the
// line of its setting, or of its table when the file leaves it out.
func TestValidationErrorsCarryLines(t *testing.T) {
	file := strings.Replace(string(DemoTOML), "max_guests = 4", "max_guests = 0", 1)
	file += "\n[tls]\nmode = \"files\"\n"
	_, err := Load([]byte(file))
	if err == nil {
		t.Fatal("Load accepted max_guests = 0 and files without cert_file")
	}
	lines := strings.Split(file, "\n")
	at := func(s string) int { return slices.Index(lines, s) + 1 }
	for _, want := range []string{
		fmt.Sprintf("limits.max_guests: must be from 1 to 20, got 0 (line %d)", at("max_guests = 0")),
		fmt.Sprintf(`tls.cert_file: mode = "files" needs cert_file and key_file (in the table at line %d)`, at("[tls]")),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load =\n%s\nwant a line %q", err, want)
		}
	}
}

// TestLoadReportsEveryProblemAtOnce: an unknown key no longer hides the
// other errors, a mistyped value names its own line, unknown keys carry
// their indexes, and validation problems come in the same report.
func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	bad := strings.NewReplacer(
		"[[locations.units]]\ntype = \"single\"\ncount = 3", "[[locations.units]]\ntype = \"single\"\ncount = \"three\"\ncuont = 3",
		`min_age = 18`, `min_age = 18`+"\n"+`nmae = "x"`,
		`nightly_rate = "79.00"`, `nightly_rate = "-79.00"`,
		`nightly_rate = "109.00"`, `nightly_rate = "0.00"`,
	).Replace(string(DemoTOML))
	_, err := Load([]byte(bad))
	if err == nil {
		t.Fatal("Load accepted a bad file")
	}
	lines := strings.Split(bad, "\n")
	lineOf := func(s string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, s) }) + 1
	}
	want := []string{
		fmt.Sprintf("business.nmae: unknown setting (line %d)", lineOf("nmae")),
		fmt.Sprintf(`locations[0].units[0].count: must be a whole number, got the text "three" (line %d)`, lineOf(`count = "three"`)),
		fmt.Sprintf("locations[0].units[0].cuont: unknown setting (line %d)", lineOf("cuont")),
		fmt.Sprintf(`locations[1].units[0].nightly_rate: must not be negative, got "-79.00" (line %d)`, lineOf(`nightly_rate = "-79.00"`)),
		fmt.Sprintf("locations[1].units[1].nightly_rate: must be more than zero; leave it out to not sell by that rate (line %d)", lineOf(`nightly_rate = "0.00"`)),
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Fatalf("Load =\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// TestDeploymentIsNeverAssumed: a file without [deployment] has no
// context and is not published, so booking refuses (direct-booking.md
// §16); the demo states both.
func TestDeploymentIsNeverAssumed(t *testing.T) {
	demo := string(DemoTOML)
	i := strings.Index(demo, "[deployment]")
	j := strings.Index(demo, "[orp]")
	c, err := Load([]byte(demo[:i] + demo[j:]))
	if err != nil {
		t.Fatal(err)
	}
	if c.Deployment.Context != "" || c.Deployment.Published {
		t.Fatalf("deployment without a [deployment] table = %+v, want no context and unpublished", c.Deployment)
	}
	if d := Demo().Deployment; d.Context != "production" || !d.Published {
		t.Fatalf("demo deployment = %+v", d)
	}
}

// TestPhoneCountryCodeAndCurrency reads the business's calling code for guests'
// national numbers, defaults it to 1 and refuses one that is not 1 to 3
// digits, and refuses a currency code that names no currency.
func TestPhoneCountryCodeAndCurrency(t *testing.T) {
	if got := Defaults().Business.PhoneCountryCode; got != "1" {
		t.Errorf("default phone_country_code = %q, want 1", got)
	}
	tests := []struct {
		replace, with, problem string
	}{
		{`currency = "USD"`, `currency = "USD"` + "\nphone_country_code = \"44\"", ""},
		{`currency = "USD"`, `currency = "USD"` + "\nphone_country_code = \"+44\"", "business.phone_country_code"},
		{`currency = "USD"`, `currency = "USD"` + "\nphone_country_code = \"4444\"", "business.phone_country_code"},
		{`currency = "USD"`, `currency = "ZZZ"`, "business.currency"},
		// The demo's prices have cents, which the shilling does not.
		{`currency = "USD"`, `currency = "UGX"`, "locations[0].units[0].nightly_rate: has more than 0 decimals for UGX"},
	}
	for _, tt := range tests {
		t.Run(tt.with, func(t *testing.T) {
			c, err := Parse([]byte(strings.Replace(string(DemoTOML), tt.replace, tt.with, 1)))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate()
			switch {
			case tt.problem == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
				t.Fatalf("Validate() = %v, want a problem with %s", err, tt.problem)
			}
		})
	}
}

// TestPublicURLHostIsServed: links must point at a host the server
// answers, or every one of them would get 403.
func TestPublicURLHostIsServed(t *testing.T) {
	c := Demo()
	c.Deployment.PublicURL = "https://book.example.com"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `deployment.public_url: its host "book.example.com" must also be listed in deployment.hostnames`) {
		t.Fatalf("Validate = %v", err)
	}
	c.Deployment.Hostnames = append(c.Deployment.Hostnames, "book.example.com")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestZoneIsResolvedOnce: a parsed location answers its zone without
// reading the zone database again, and one edited in code after Parse
// still gets the zone it names.
func TestZoneIsResolvedOnce(t *testing.T) {
	c := Demo()
	l := c.Locations[0]
	// A zone loaded afresh is a new value each time: the same pointer
	// twice is the one resolved when the file was read.
	z := l.Zone()
	if z != l.Zone() || z.String() != "America/Denver" {
		t.Fatalf("zone = %v, want the resolved America/Denver", z)
	}
	if c.Locations[1].Zone() != z {
		t.Error("locations in one zone hold different values")
	}
	l.TimeZone = "Europe/Paris"
	if got := l.Zone().String(); got != "Europe/Paris" {
		t.Errorf("edited zone = %s, want Europe/Paris", got)
	}
}
