package usp

import (
	"slices"
	"strings"
)

// WaitlistPart is one location's page of a platform's waitlist list
// that spans the locations of a split deployment: its answer, or, when
// it could not be read, Unread, a sentence safe to show that names it
// and its phone.
type WaitlistPart struct {
	List   *WaitlistListResult
	Unread string
}

// MergeWaitlists joins the locations' pages of one waitlist list, the
// same for both bindings. An entry's id encodes its stored key, which
// starts with its service's id and so with its location's slug: each
// location's entries sit together in the one order the pages follow.
// The merged page takes them in that order, up to and including the
// first location that has more, whose cursor resumes after its last
// entry at every location (the later locations' entries come on later
// pages); a page may so hold up to the limit from each location. The
// total is given only when every location gave its whole list. A
// location that could not be read is a warning with the code
// service_unavailable (§3.12: messages[] carry partial results); when
// none could be read the list is service_unavailable.
func MergeWaitlists(parts []WaitlistPart) (*WaitlistListResult, error) {
	var read []*WaitlistListResult
	var warnings []Message
	for _, p := range parts {
		if p.List == nil {
			warnings = append(warnings, Message{Type: "warning", Code: string(CodeServiceUnavailable), Content: p.Unread + " Its waitlist entries are not in this answer."})
			continue
		}
		read = append(read, p.List)
	}
	if len(read) == 0 {
		return nil, &Error{Code: CodeServiceUnavailable, RetryAfter: RetryAfter, Message: "No location could be read just now; try again in a few seconds."}
	}
	res := &WaitlistListResult{USP: read[0].USP, Entries: []WaitlistEntry{}, Messages: []Message{}}
	slices.SortStableFunc(read, func(a, b *WaitlistListResult) int { return strings.Compare(firstKey(a), firstKey(b)) })
	total, whole := 0, len(warnings) == 0
	for _, l := range read {
		res.Entries = append(res.Entries, l.Entries...)
		res.Messages = append(res.Messages, l.Messages...)
		if l.Pagination.NextCursor != "" {
			res.Pagination.NextCursor, whole = l.Pagination.NextCursor, false
			break
		}
		if l.Pagination.Total == nil {
			whole = false
		} else {
			total += *l.Pagination.Total
		}
	}
	if whole {
		res.Pagination.Total = &total
	}
	res.Messages = append(res.Messages, warnings...)
	return res, nil
}

// firstKey is the stored key of a page's first entry, "" for an empty
// page.
func firstKey(l *WaitlistListResult) string {
	if len(l.Entries) == 0 {
		return ""
	}
	key, _ := entryKey(l.Entries[0].ID)
	return key
}
