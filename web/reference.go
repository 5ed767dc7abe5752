package web

import "strings"

// A reference as people read it aloud: the location's prefix, then its
// 16 hex characters in groups of four, "RIV-0F3A 91C2 77B0 4E1D". The
// reference itself stays as the specification fixes it; the groups are
// for the eye and the phone only, and a reference typed with or without
// the spaces is read back by compactReference.

// groupReference writes ref's suffix in groups of four. A reference of
// another shape, such as a legacy five-character one, is shown as it is.
func groupReference(ref string) string {
	prefix, suffix, ok := strings.Cut(ref, "-")
	if !ok || len(suffix) != 16 {
		return ref
	}
	return prefix + "-" + suffix[:4] + " " + suffix[4:8] + " " + suffix[8:12] + " " + suffix[12:]
}

// compactReference is a reference as typed, with any spaces between its
// groups removed and its letters in upper case.
func compactReference(typed string) string {
	return strings.ToUpper(strings.Join(strings.Fields(typed), ""))
}
