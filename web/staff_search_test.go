package web

import (
	"testing"

	"frontdesk/reservation"
)

// TestSearchMatches: a search finds a reservation by its guest's name
// in any order or case, their email, their phone however it is typed,
// or its reference, and nothing else.
func TestSearchMatches(t *testing.T) {
	r := reservation.Reservation{Reference: "RIV-0CD87274D67084CA",
		Contact: reservation.Contact{Name: "Grace Hopper", Email: "grace@example.com", Phone: "+1 303 555 0142"}}
	tests := []struct {
		q    string
		want bool
	}{
		{"hopper", true},
		{"Hopper Grace", true},
		{"GRACE@example.com", true},
		{"(303) 555-0142", true},
		{"5550142", true},
		{"riv-0cd87274d67084ca", true},
		{"0CD872", true},
		{"RIV-0CD8 7274 D670 84CA", true},
		{" riv-0cd8 7274 d670 84ca ", true},
		{"RIV-0CD8 7274 D670 84CB", false},
		{"ada", false},
		{"grace lovelace", false},
		{"555-0199", false},
		{"RIV", false},
	}
	for _, tt := range tests {
		if got := newMatcher(tt.q).matches(r); got != tt.want {
			t.Errorf("search %q matches = %v, want %v", tt.q, got, tt.want)
		}
	}
}

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
