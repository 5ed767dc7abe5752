package hub

import (
	"errors"
	"testing"

	"frontdesk/config"
	"frontdesk/pricing"
)

func TestResolve(t *testing.T) {
	c := config.Demo()
	h := New(c, pricing.New(c, "http://localhost:8080"), nil, nil)
	tests := []struct {
		property, want string
	}{
		{"riverside", "riverside"},
		{"Riverside Inn", "riverside"},
		{"  old   TOWN lodge ", "oldtown"},
		{"airport.samplestays.example", "airport"},
		{"riv", "riverside"},
		{"lodge", "oldtown"},
		{"suites", "airport"},
		{"old town", "oldtown"},
		{"air", "airport"},
		{"ri", ""}, // shorter than a short name may be
		{"inn", "riverside"},
		{"sa", ""},
		{"samplestays", ""}, // starts no slug, domain or name word
		{"", ""},
		{"nowhere", ""},
	}
	for _, tt := range tests {
		l, err := h.Resolve(tt.property)
		var perr *ErrProperty
		switch {
		case tt.want == "" && !errors.As(err, &perr):
			t.Errorf("Resolve(%q) = %s, %v; want a property refusal", tt.property, l.Slug, err)
		case tt.want != "" && (err != nil || l.Slug != tt.want):
			t.Errorf("Resolve(%q) = %s, %v; want %s", tt.property, l.Slug, err, tt.want)
		}
	}
}

func TestAmbiguousShortNameIsRefused(t *testing.T) {
	c := config.Demo()
	c.Locations[1].Name = "Riverside Lodge" // now "river" names two
	h := New(c, pricing.New(c, "http://localhost:8080"), nil, nil)
	if _, err := h.Resolve("river"); err == nil {
		t.Fatal("an ambiguous short name resolved")
	}
	if l, err := h.Resolve("riverside lodge"); err != nil || l.Slug != "oldtown" {
		t.Fatalf("exact name = %s, %v", l.Slug, err)
	}
}
