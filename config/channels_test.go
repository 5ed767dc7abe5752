package config

import (
	"strings"
	"testing"
)

// exampleWithFeed is the example file with its commented channel feed
// switched on.
func exampleWithFeed(t *testing.T) string {
	t.Helper()
	var out []string
	on := false
	for line := range strings.SplitSeq(string(ExampleTOML), "\n") {
		if strings.HasPrefix(line, "# [[channels.feeds]]") {
			on = true
		}
		if on && strings.HasPrefix(line, "# ") {
			line = strings.TrimPrefix(line, "# ")
		}
		out = append(out, line)
	}
	if !on {
		t.Fatal("the example file has no commented [[channels.feeds]]")
	}
	return strings.Join(out, "\n")
}

// TestExampleChannelFeedIsValid: the example feed `frontdesk init`
// prints, uncommented, passes check-config.
func TestExampleChannelFeedIsValid(t *testing.T) {
	c, err := Parse([]byte(exampleWithFeed(t)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if len(c.Channels.Feeds) != 1 || c.Channels.Feeds[0].Listing != 1 || c.Channels.Feeds[0].Unit != "single" {
		t.Fatalf("feeds = %+v", c.Channels.Feeds)
	}
}

// TestChannelFeedsNameTheField: each wrong field of a feed is reported
// under its path in the file.
func TestChannelFeedsNameTheField(t *testing.T) {
	tests := []struct {
		name, from, to, field string
	}{
		{"name", `name = "airbnb-single-1"`, `name = "Airbnb Single"`, "channels.feeds[0].name"},
		{"url private", `url = "https://www.airbnb.com/calendar/ical/12345678.ics?s=0123456789abcdef"`, `url = "https://10.0.0.8/cal.ics"`, "channels.feeds[0].url"},
		{"url metadata", `url = "https://www.airbnb.com/calendar/ical/12345678.ics?s=0123456789abcdef"`, `url = "http://169.254.169.254/latest/meta-data"`, "channels.feeds[0].url"},
		{"url plain http", `url = "https://www.airbnb.com/calendar/ical/12345678.ics?s=0123456789abcdef"`, `url = "http://www.airbnb.com/cal.ics"`, "channels.feeds[0].url"},
		{"location", `location = "main"                 # a location's slug`, `location = "lakeside"`, "channels.feeds[0].location"},
		{"unit", `unit = "single"`, `unit = "penthouse"`, "channels.feeds[0].unit"},
		{"timed unit", `unit = "single"`, `unit = "sauna"`, "channels.feeds[0].unit"},
		{"listing", `listing = 1 `, `listing = 5 `, "channels.feeds[0].listing"},
		{"interval", `# every_minutes = 15`, `every_minutes = -1`, "channels.every_minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := exampleWithFeed(t)
			if !strings.Contains(text, tt.from) {
				t.Fatalf("the example lacks %q", tt.from)
			}
			c, err := Parse([]byte(strings.Replace(text, tt.from, tt.to, 1)))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.field+": ") {
				t.Fatalf("Validate = %v, want a problem with %s", err, tt.field)
			}
			if n := strings.Count(err.Error(), "channels."); n != 1 {
				t.Fatalf("Validate names %d channel problems, want one: %v", n, err)
			}
		})
	}
	text := exampleWithFeed(t)
	i := strings.Index(text, "[[channels.feeds]]")
	twice := text + "\n" + text[i:]
	c, err := Parse([]byte(twice))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "channels.feeds[1].name: ") {
		t.Fatalf("Validate of a repeated name = %v", err)
	}
}
