package usp

import (
	"strings"
	"testing"
)

// page is one location's answer to a waitlist list, its entries named
// by their stored keys.
func page(next string, total *int, keys ...string) WaitlistPart {
	l := &WaitlistListResult{Entries: []WaitlistEntry{}, Messages: []Message{}}
	for _, k := range keys {
		service, _, _ := strings.Cut(k, "|")
		l.Entries = append(l.Entries, WaitlistEntry{ID: entryID(k), ServiceID: service})
	}
	l.Pagination.NextCursor, l.Pagination.Total = next, total
	return WaitlistPart{List: l}
}

// TestMergeWaitlists: the locations' pages are merged in the order of
// their entries' keys, whatever the config's order; the merged page ends
// with the first location that has more, whose cursor it carries (the
// later locations' entries come after it, on later pages); the total is
// given only when every location gave its whole list; a location that
// could not be read is a warning naming it, and with none read the list
// is service_unavailable.
func TestMergeWaitlists(t *testing.T) {
	one, two := 1, 2
	down := WaitlistPart{Unread: "Airport Suites cannot be reached just now. Try again in a few minutes or call +1 303 555 0133."}
	for _, tt := range []struct {
		name     string
		parts    []WaitlistPart
		services string
		cursor   string
		total    int // -1: none
		warnings string
	}{
		{"whole lists, in key order", []WaitlistPart{page("", &one, "svc_riverside_double|s|1|a"), page("", &two, "svc_oldtown_single|s|1|a", "svc_oldtown_single|s|2|b")},
			"svc_oldtown_single svc_oldtown_single svc_riverside_double", "", 3, ""},
		{"a location with more ends the page", []WaitlistPart{page("", &one, "svc_riverside_double|s|1|a"), page("cursor-oldtown", nil, "svc_oldtown_single|s|1|a")},
			"svc_oldtown_single", "cursor-oldtown", -1, ""},
		{"an empty page", []WaitlistPart{page("", &one, "svc_riverside_double|s|1|a"), page("", new(int))},
			"svc_riverside_double", "", 1, ""},
		{"a location down", []WaitlistPart{page("", &one, "svc_riverside_double|s|1|a"), down},
			"svc_riverside_double", "", -1, "service_unavailable: Airport Suites cannot be reached just now. Try again in a few minutes or call +1 303 555 0133. Its waitlist entries are not in this answer."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := MergeWaitlists(tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			var services []string
			for _, e := range res.Entries {
				services = append(services, e.ServiceID)
			}
			if got := strings.Join(services, " "); got != tt.services {
				t.Errorf("entries = %q, want %q", got, tt.services)
			}
			if res.Pagination.NextCursor != tt.cursor {
				t.Errorf("next_cursor = %q, want %q", res.Pagination.NextCursor, tt.cursor)
			}
			if total := res.Pagination.Total; (total == nil) != (tt.total < 0) || (total != nil && *total != tt.total) {
				t.Errorf("total = %v, want %d", total, tt.total)
			}
			var warnings []string
			for _, m := range res.Messages {
				warnings = append(warnings, m.Code+": "+m.Content)
			}
			if got := strings.Join(warnings, "\n"); got != tt.warnings {
				t.Errorf("messages = %q, want %q", got, tt.warnings)
			}
		})
	}
	if _, err := MergeWaitlists([]WaitlistPart{down}); !isCode(err, CodeServiceUnavailable) {
		t.Fatalf("every location down = %v, want service_unavailable", err)
	}
}

func isCode(err error, code Code) bool {
	e, _ := AsError(err)
	return e != nil && e.Code == code
}
