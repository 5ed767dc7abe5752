package web

import "testing"

// TestReferenceGroups: a reference is shown in groups of four and read
// back with or without the spaces; other shapes are shown as they are.
func TestReferenceGroups(t *testing.T) {
	for ref, want := range map[string]string{
		"RIV-0CD87274D67084CA": "RIV-0CD8 7274 D670 84CA",
		"RIV-7K2QA":            "RIV-7K2QA",
		"nothing":              "nothing",
	} {
		if got := groupReference(ref); got != want {
			t.Errorf("groupReference(%q) = %q, want %q", ref, got, want)
		}
		if got := compactReference(groupReference(ref)); ref != "nothing" && got != ref {
			t.Errorf("compactReference(%q) = %q, want %q", groupReference(ref), got, ref)
		}
	}
}
