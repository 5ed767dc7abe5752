package config

import (
	"frontdesk/business"
	"strings"
	"testing"
	"time"
)

func TestOfficeOpen(t *testing.T) {
	c := Demo()
	c.Business.OfficeHours.Fri = "08:00-12:00, 13:00-17:00" // a lunch break
	c.Business.Closures = []business.Closure{{From: "2026-12-24", To: "2026-12-26", Reason: "Christmas"}}
	riverside, oldtown := c.Locations[0], c.Locations[1]
	riverside.Closures = []business.Closure{{From: "2026-12-01"}}
	denver := riverside.Zone()
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, denver)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		name string
		now  time.Time
		l    business.Location
		want bool
	}{
		{"weekday in hours", at("2026-11-30 10:00"), riverside, true},
		{"at closing", at("2026-11-30 18:00"), riverside, false},
		{"at opening", at("2026-11-30 08:00"), riverside, true},
		{"Sunday", at("2026-12-06 10:00"), riverside, false},
		{"location closure", at("2026-12-01 10:00"), riverside, false},
		{"another location's closure", at("2026-12-01 10:00"), oldtown, true},
		{"the day after a one-day closure", at("2026-12-02 10:00"), riverside, true},
		{"first day of a business closure", at("2026-12-24 10:00"), oldtown, false},
		{"last day, inclusive", at("2026-12-26 11:00"), oldtown, false},
		{"the day after", at("2026-12-28 10:00"), oldtown, true},
		// The local date decides: 18:30 on the 23rd in Denver is already
		// the 24th in UTC, and the office is closed by its hours anyway;
		// 08:30 on the 24th local is a closure day.
		{"local date, not UTC", at("2026-12-24 08:30"), oldtown, false},
		{"morning of a day with a break", at("2026-12-04 11:59"), riverside, true},
		{"lunch break", at("2026-12-04 12:00"), riverside, false},
		{"end of the break", at("2026-12-04 12:59"), riverside, false},
		{"afternoon", at("2026-12-04 13:00"), riverside, true},
		{"after the afternoon", at("2026-12-04 17:00"), riverside, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.OfficeOpen(tt.now.UTC(), tt.l); got != tt.want {
				t.Fatalf("OfficeOpen(%s) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
}

func TestClosuresAreValidated(t *testing.T) {
	c := Demo()
	c.Business.Closures = []business.Closure{
		{From: "2026-12-24", To: "2026-12-26"},
		{From: "24.12.2026"},
		{From: "2026-12-24", To: "2026-12-23"},
		{From: "2026-01-01", To: "2027-06-01"},
		{From: "2026-02-30"},
		{From: "2026-12-31", Reason: strings.Repeat("x", 201)},
	}
	c.Locations[2].Closures = []business.Closure{{From: "2026-12-01", To: "soon"}}
	err := c.Validate()
	if err == nil {
		t.Fatal("bad closures were accepted")
	}
	want := []string{
		`business.closures[1].from: must be a date as YYYY-MM-DD, got "24.12.2026"`,
		`business.closures[2].to: must not be before from (2026-12-24), got 2026-12-23`,
		`business.closures[3].to: one closure may last at most 366 days`,
		`business.closures[4].from: must be a date as YYYY-MM-DD, got "2026-02-30"`,
		`business.closures[5].reason: must be at most 200 characters`,
		`locations[2].closures[0].to: must be a date as YYYY-MM-DD, got "soon"`,
	}
	got := err.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
	if strings.Contains(got, "closures[0]:") || strings.Contains(got, "business.closures[0]") {
		t.Errorf("a valid closure was refused:\n%s", got)
	}
}
