package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"frontdesk/internal/pgtest"
)

// TestPropertyInfoFollowsEverySettingsSave: property_info keeps its
// answers, but each one asked after an owner saves new office hours
// shows them, on the hub's server and on a location's, whether the
// server had answered before the save or not, and a save back to the
// file's hours brings those back. On both engines.
func TestPropertyInfoFollowsEverySettingsSave(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { propertyInfoFollowsSaves(t, "") })
	t.Run("postgres", func(t *testing.T) { propertyInfoFollowsSaves(t, pgtest.Schema(t)) })
}

func propertyInfoFollowsSaves(t *testing.T, database string) {
	m := startMain(t, database)
	ctx := context.Background()
	set, err := m.bookings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file := set.Group
	servers := map[string]map[string]any{"/mcp": {"property": "riverside"}, "/locations/riverside/mcp": nil}
	hours := func(server string) string {
		cs := connect(t, m.URL+server, "2025-06-18")
		res, out := callTool(t, cs, "property_info", servers[server])
		if res.IsError {
			t.Fatalf("%s property_info = %s", server, text(res))
		}
		return fmt.Sprint(out["office_hours"])
	}
	before := map[string]string{}
	for server := range servers {
		before[server] = hours(server)
		if again := hours(server); again != before[server] {
			t.Fatalf("%s property_info hours changed without a save: %s, then %s", server, before[server], again)
		}
	}
	for _, fri := range []string{"08:00-12:00, 13:00-17:00", "09:00-11:00"} {
		g := file
		g.OfficeHours.Fri = fri
		if err := m.office.SaveGroupSettings(ctx, "olga", g); err != nil {
			t.Fatal(err)
		}
		for server := range servers {
			if got := hours(server); !strings.Contains(got, "Fri "+fri) {
				t.Errorf("%s property_info hours after saving Fri %s = %s", server, fri, got)
			}
		}
	}
	if err := m.office.SaveGroupSettings(ctx, "olga", file); err != nil {
		t.Fatal(err)
	}
	for server := range servers {
		if got := hours(server); got != before[server] {
			t.Errorf("%s property_info hours after saving the file's back = %s, want %s", server, got, before[server])
		}
	}
}
