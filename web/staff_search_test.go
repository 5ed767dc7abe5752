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
