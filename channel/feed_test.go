package channel

import (
	"testing"

	"frontdesk/reservation"
)

// TestIsImported names the channel of an imported block's source, and
// nothing for any other door's.
func TestIsImported(t *testing.T) {
	tests := []struct {
		source reservation.Source
		name   string
		ok     bool
	}{
		{"ical:airbnb", "airbnb", true},
		{"ical:", "", false},
		{"form", "", false},
		{"chat", "", false},
		{"usp:demo", "", false},
	}
	for _, tt := range tests {
		if name, ok := IsImported(tt.source); name != tt.name || ok != tt.ok {
			t.Errorf("IsImported(%q) = %q, %v, want %q, %v", tt.source, name, ok, tt.name, tt.ok)
		}
	}
}
