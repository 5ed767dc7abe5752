package uspmcp

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/hub"
	"frontdesk/usp"
)

// entryOf is a waitlist entry whose id encodes key, as usp's do.
func entryOf(key string) usp.WaitlistEntry {
	service, _, _ := strings.Cut(key, "|")
	return usp.WaitlistEntry{ID: "wl_" + base64.RawURLEncoding.EncodeToString([]byte(key)), ServiceID: service}
}

// page is one location's answer to a waitlist list.
func page(slug string, next string, total *int, keys ...string) part {
	l := &usp.WaitlistListResult{Entries: []usp.WaitlistEntry{}, Messages: []usp.Message{}}
	for _, k := range keys {
		l.Entries = append(l.Entries, entryOf(k))
	}
	l.Pagination.NextCursor, l.Pagination.Total = next, total
	return part{loc: business.Location{Slug: slug, Name: slug}, list: l}
}

func services(r *usp.WaitlistListResult) string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.ServiceID)
	}
	return strings.Join(out, " ")
}

// TestMergeWaitlists: the locations' pages are merged in the order of
// their entries' keys, whatever the config's order; the merged page ends
// with the first location that has more, whose cursor it carries (the
// later locations' entries come after it, on later pages); the total is
// given only when every location gave its whole list; a location that
// could not be read is a warning naming it and its phone.
func TestMergeWaitlists(t *testing.T) {
	one, two := 1, 2
	down := part{loc: business.Location{Slug: "airport", Name: "Airport Suites", Phone: "+1 303 555 0133"},
		err: &hub.Unreachable{Location: business.Location{Name: "Airport Suites", Phone: "+1 303 555 0133"}}}
	for _, tt := range []struct {
		name     string
		parts    []part
		services string
		cursor   string
		total    int // -1: none
		warnings string
	}{
		{"whole lists, in key order", []part{page("riverside", "", &one, "svc_riverside_double|a"), page("oldtown", "", &two, "svc_oldtown_single|a", "svc_oldtown_single|b")},
			"svc_oldtown_single svc_oldtown_single svc_riverside_double", "", 3, ""},
		{"a location with more ends the page", []part{page("riverside", "", &one, "svc_riverside_double|a"), page("oldtown", "cursor-oldtown", nil, "svc_oldtown_single|a")},
			"svc_oldtown_single", "cursor-oldtown", -1, ""},
		{"an empty page", []part{page("riverside", "", &one, "svc_riverside_double|a"), page("oldtown", "", new(int))},
			"svc_riverside_double", "", 1, ""},
		{"a location down", []part{page("riverside", "", &one, "svc_riverside_double|a"), down},
			"svc_riverside_double", "", -1, "service_unavailable: Airport Suites cannot be reached just now. Try again in a few minutes or call +1 303 555 0133. Its waitlist entries are not in this answer."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, _, err := mergeWaitlists(tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			if got := services(res); got != tt.services {
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
	_, _, err := mergeWaitlists([]part{down})
	if e, _ := usp.AsError(err); e == nil || e.Code != usp.CodeServiceUnavailable || !errors.As(err, new(*hub.Unreachable)) {
		t.Fatalf("every location down = %v, want service_unavailable", err)
	}
}
