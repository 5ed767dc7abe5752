package reservation

import "testing"

func TestParseEmail(t *testing.T) {
	tests := []struct {
		in, delivery, normalized string
		ok                       bool
	}{
		{"Ada@Example.com", "Ada@Example.com", "ada@example.com", true},
		{"  ada+hotel@example.com ", "ada+hotel@example.com", "ada@example.com", true},
		{"A.Da+x@GoogleMail.com", "A.Da+x@GoogleMail.com", "ada@gmail.com", true},
		{"a.da@gmail.com", "a.da@gmail.com", "ada@gmail.com", true},
		{"a.da@example.com", "a.da@example.com", "a.da@example.com", true}, // dots fold for one provider family only
		{"ada@localhost", "", "", false},
		{"ada at example.com", "", "", false},
		{"ada@exa mple.com", "", "", false},
		{"ada@@example.com", "", "", false},
		{"+tag@example.com", "", "", false},
		{"ada@-example.com", "", "", false},
		{"ada@example..com", "", "", false},
		{".ada@example.com", "", "", false},
	}
	for _, tt := range tests {
		e, ok := ParseEmail(tt.in)
		if ok != tt.ok || e.Delivery != tt.delivery || e.Normalized != tt.normalized {
			t.Errorf("ParseEmail(%q) = %+v, %v; want %q %q %v", tt.in, e, ok, tt.delivery, tt.normalized, tt.ok)
		}
	}
	long := make([]byte, 65)
	for i := range long {
		long[i] = 'a'
	}
	if _, ok := ParseEmail(string(long) + "@example.com"); ok {
		t.Error("a 65-character local part was accepted")
	}
}

func TestParsePhone(t *testing.T) {
	tests := []struct {
		in, digits string
		ok         bool
	}{
		{"(303) 555-0199", "13035550199", true},
		{"+1 303 555 0199", "13035550199", true},
		{"0044 20 7946 0018", "442079460018", true},
		{"+44 20 7946 0018", "442079460018", true},
		{"303.555.0199 x12", "13035550199", true},
		{"303-555-0199 ext. 7", "13035550199", true},
		{"555-0199", "", false},
		{"+1 303 555 0199 0199 0199", "", false},
		{"call me", "", false},
		{"303/555/0199", "", false},
	}
	for _, tt := range tests {
		p, ok := ParsePhone(tt.in, "1")
		if ok != tt.ok || p.Digits != tt.digits {
			t.Errorf("ParsePhone(%q) = %+v, %v; want %q %v", tt.in, p, ok, tt.digits, tt.ok)
		}
	}
	// The calling code for a national number is the business's setting.
	if p, _ := ParsePhone("20 7946 0018", "44"); p.Digits != "442079460018" {
		t.Errorf("ParsePhone with calling code 44 = %q, want 442079460018", p.Digits)
	}
}

func TestParseEmailRefusesInvisibleCharacters(t *testing.T) {
	for _, r := range []string{"\x00", "\a", "\x7f", "\u202e", "\u200b", "\u2060", "\u00ad", "\ufeff"} {
		addr := "ad" + r + "a@example.com"
		if e, ok := ParseEmail(addr); ok {
			t.Errorf("ParseEmail(%q) = %+v, accepted", addr, e)
		}
	}
	if _, ok := ParseEmail("zoë@example.com"); !ok {
		t.Error("a visible non-ASCII letter was refused")
	}
}

func TestCleanName(t *testing.T) {
	tests := map[string]string{
		"  Ada   Lovelace ":       "Ada Lovelace",
		"Ada\u200bLove\u200dlace": "AdaLovelace",
		"Ada\tLovelace\n":         "Ada Lovelace",
		"O'Brien-Smith, Jr.":      "O'Brien-Smith, Jr.",
		"\u202eAda\u0007":         "Ada",
		"\u200b\u00ad ":           "",
	}
	for in, want := range tests {
		if got := CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
}
