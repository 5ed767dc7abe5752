package main

import (
	"fmt"
	"strings"
	"testing"

	"frontdesk/config"
)

// withProperties replaces the demo's properties with n copies of
// Riverside Inn under new slugs, names and reference prefixes.
func withProperties(n int) func(*config.Config) {
	return func(c *config.Config) {
		base := c.Locations[0]
		c.Locations = nil
		for i := range n {
			l := base
			l.Slug, l.Name, l.Domain = fmt.Sprintf("p%03d", i+1), fmt.Sprintf("Property %03d", i+1), ""
			l.Prefix = "P" + string(rune('A'+i/26)) + string(rune('A'+i%26))
			c.Locations = append(c.Locations, l)
		}
	}
}

// TestLongListsArePaged: across 25 properties, find_rooms answers ten at
// a time and list_properties 25, each stating the total, the page count
// and the next page, in the structured result and in the summary; a page
// past the last is refused with the range. The demo's three fit on one
// page and keep their summary.
func TestLongListsArePaged(t *testing.T) {
	t.Parallel()
	url := startMain(t, "", withProperties(25)).URL
	cs := connect(t, url+"/mcp", "2025-11-25")
	stay := func(page int) map[string]any {
		args := map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-02"}
		if page > 0 {
			args["page"] = page
		}
		return args
	}
	tests := []struct {
		page                 int
		first, count, next   int
		summaryHas, notFound string
	}{
		{0, 1, 10, 2, "across 10 of 25 properties (page 1 of 3); 20 room types bookable for these dates. Call find_rooms with page 2 for more.", ""},
		{2, 11, 10, 3, "(page 2 of 3)", ""},
		{3, 21, 5, 0, "across 5 of 25 properties (page 3 of 3); 10 room types bookable for these dates.", "Call find_rooms"},
	}
	for _, tt := range tests {
		res, out := callTool(t, cs, "find_rooms", stay(tt.page))
		props, _ := out["properties"].([]any)
		if res.IsError || len(props) != tt.count || out["total_properties"] != 25.0 || out["pages"] != 3.0 {
			t.Fatalf("page %d = %s", tt.page, text(res))
		}
		if got := props[0].(map[string]any)["property"]; got != fmt.Sprintf("p%03d", tt.first) {
			t.Errorf("page %d starts at %v, want p%03d", tt.page, got, tt.first)
		}
		if next, _ := out["next_page"].(float64); int(next) != tt.next {
			t.Errorf("page %d next_page = %v, want %d", tt.page, out["next_page"], tt.next)
		}
		summary, _, _ := strings.Cut(text(res), "\n")
		if !strings.Contains(summary, tt.summaryHas) || (tt.notFound != "" && strings.Contains(summary, tt.notFound)) {
			t.Errorf("page %d summary = %q, want it to hold %q", tt.page, summary, tt.summaryHas)
		}
	}
	res, _ := callTool(t, cs, "find_rooms", stay(4))
	if got := text(res); !res.IsError || got != "page must be from 1 to 3." {
		t.Errorf("page 4 = %v %q", res.IsError, got)
	}
	res, out := callTool(t, cs, "list_properties", nil)
	if props, _ := out["properties"].([]any); res.IsError || len(props) != 25 || out["pages"] != 1.0 || out["next_page"] != nil {
		t.Errorf("list_properties = %s", text(res))
	}
	// One property is one page, as before.
	res, out = callTool(t, cs, "find_rooms", map[string]any{"property": "p007", "checkin": "2026-12-30", "checkout": "2027-01-02"})
	if summary, _, _ := strings.Cut(text(res), "\n"); res.IsError || out["total_properties"] != 1.0 || !strings.Contains(summary, "at Property 007;") {
		t.Errorf("one property = %s", text(res))
	}
}

// TestListPropertiesPages is list_properties across 60 properties, 25 to
// a page, and the property refusal that names the first ten and points to
// list_properties for the rest instead of naming all 60.
func TestListPropertiesPages(t *testing.T) {
	t.Parallel()
	url := startMain(t, "", withProperties(60)).URL
	cs := connect(t, url+"/mcp", "2025-11-25")
	res, out := callTool(t, cs, "list_properties", map[string]any{"page": 3})
	props, _ := out["properties"].([]any)
	if res.IsError || len(props) != 10 || out["page"] != 3.0 || out["pages"] != 3.0 || out["next_page"] != nil {
		t.Fatalf("page 3 = %s", text(res))
	}
	res, _ = callTool(t, cs, "list_properties", map[string]any{"page": 1})
	if summary, _, _ := strings.Cut(text(res), "\n"); !strings.HasPrefix(summary, "60 properties; page 1 of 3: Property 001 (p001), ") || !strings.HasSuffix(summary, "Property 025 (p025). Call list_properties with page 2 for more.") {
		t.Errorf("page 1 summary = %q", summary)
	}
	res, _ = callTool(t, cs, "quote_stay", map[string]any{"property": "nowhere", "roomtype": "single", "checkin": "2026-12-30", "checkout": "2027-01-02"})
	want := "property must identify one property by name, slug or domain. Available properties: Property 001 (p001), Property 002 (p002), Property 003 (p003), Property 004 (p004), Property 005 (p005), Property 006 (p006), Property 007 (p007), Property 008 (p008), Property 009 (p009), Property 010 (p010), and 50 more (list_properties names them all). Call +1 303 555 0100."
	if got := text(res); got != want {
		t.Errorf("refusal = %q, want %q", got, want)
	}
	res, _ = callTool(t, cs, "list_properties", map[string]any{"page": 0})
	if !res.IsError || !strings.Contains(text(res), "page") {
		t.Errorf("page 0 = %s", text(res))
	}
}
