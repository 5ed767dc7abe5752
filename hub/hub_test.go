package hub

import (
	"errors"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/pricing"
)

func TestResolve(t *testing.T) {
	c := config.Demo()
	h := New(c.Portfolio, "http://localhost:8080", pricing.New(c.Portfolio, "http://localhost:8080"), nil, nil)
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
	h := New(c.Portfolio, "http://localhost:8080", pricing.New(c.Portfolio, "http://localhost:8080"), nil, nil)
	if _, err := h.Resolve("river"); err == nil {
		t.Fatal("an ambiguous short name resolved")
	}
	if l, err := h.Resolve("riverside lodge"); err != nil || l.Slug != "oldtown" {
		t.Fatalf("exact name = %s, %v", l.Slug, err)
	}
}

func TestPaginate(t *testing.T) {
	tests := []struct {
		total, page, size, from, to int
		want                        Page
		refused                     bool
	}{
		{3, 0, 10, 0, 3, Page{Total: 3, Number: 1, Pages: 1}, false},
		{25, 0, 10, 0, 10, Page{Total: 25, Number: 1, Pages: 3, NextPage: 2}, false},
		{25, 3, 10, 20, 25, Page{Total: 25, Number: 3, Pages: 3}, false},
		{20, 2, 10, 10, 20, Page{Total: 20, Number: 2, Pages: 2}, false},
		{0, 1, 10, 0, 0, Page{Total: 0, Number: 1, Pages: 1}, false},
		{25, 4, 10, 0, 0, Page{}, true},
		{25, -1, 10, 0, 0, Page{}, true},
	}
	for _, tt := range tests {
		from, to, p, err := paginate(tt.total, tt.page, tt.size)
		var perr *ErrPage
		if tt.refused != errors.As(err, &perr) || from != tt.from || to != tt.to || p != tt.want {
			t.Errorf("paginate(%d, %d, %d) = %d, %d, %+v, %v; want %d, %d, %+v, refused %v",
				tt.total, tt.page, tt.size, from, to, p, err, tt.from, tt.to, tt.want, tt.refused)
		}
	}
}

// TestNormalNameIsTheLongWay: the shortcut for names already in normal
// form gives what lowercasing, splitting and joining give, for every
// kind of input.
func TestNormalNameIsTheLongWay(t *testing.T) {
	for _, s := range []string{
		"riverside", "old town lodge", "Riverside", "Old Town Lodge", " riverside", "riverside ", "old  town",
		"old\ttown", "old\ntown", "río", "RÍO", "old\u00a0town", "old\u0085town", "", " ", "a", "a b", "a\vb", "a\fb",
		"airport-suites.example", "x\rx",
	} {
		if got, want := normalName(s), strings.Join(strings.Fields(strings.ToLower(s)), " "); got != want {
			t.Errorf("normalName(%q) = %q, want %q", s, got, want)
		}
	}
}
