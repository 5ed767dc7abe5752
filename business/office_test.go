package business

import (
	"slices"
	"testing"
)

func TestParseHours(t *testing.T) {
	tests := []struct {
		in   string
		want []Hours
	}{
		{"08:00-18:30", []Hours{{480, 1110}}},
		{"closed", nil},
		{"08:00-12:00, 13:00-17:30", []Hours{{480, 720}, {780, 1050}}},
		{"07:00-09:00,12:00-13:00,17:00-19:00", []Hours{{420, 540}, {720, 780}, {1020, 1140}}},
	}
	for _, tt := range tests {
		got, err := ParseHours(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseHours(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "8-18", "18:00-08:00", "08:00", "24:00-25:00", "08:00-12:00, 11:00-14:00", "13:00-17:00, 08:00-12:00", "08:00-12:00, 12:00-13:00", "08:00-12:00,"} {
		if _, err := ParseHours(bad); err == nil {
			t.Errorf("ParseHours(%q) accepted", bad)
		}
	}
}

func TestPortfolioUnit(t *testing.T) {
	p := Portfolio{Locations: []Location{{Slug: "riverside", Units: []Unit{{Type: "double"}}}, {Slug: "airport", Units: []Unit{{Type: "shuttle"}}}}}
	if l, u, ok := p.Unit("airport", "shuttle"); !ok || l.Slug != "airport" || u.Type != "shuttle" {
		t.Fatalf("Unit(airport, shuttle) = %v %v %v", l.Slug, u.Type, ok)
	}
	for _, miss := range [][2]string{{"airport", "double"}, {"oldtown", "double"}} {
		if _, _, ok := p.Unit(miss[0], miss[1]); ok {
			t.Errorf("Unit(%s, %s) found a unit", miss[0], miss[1])
		}
	}
}
