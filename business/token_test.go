package business

import "testing"

// TestSplitToken: a located token gives back the prefix and random part
// it was made of; a token of the earlier form, or any text whose prefix
// is not 2 to 6 capital letters, names no location.
func TestSplitToken(t *testing.T) {
	l := Location{Slug: "riverside", Prefix: "RIV"}
	random := "q3Zp-_0aB9xYw7VvUu6TtSs5RrQq4PpOo3NnMm2LlKk"
	tok := l.Token(random)
	if tok != "RIV."+random {
		t.Fatalf("Token = %q", tok)
	}
	prefix, rest, ok := SplitToken(tok)
	if !ok || prefix != "RIV" || rest != random {
		t.Fatalf("SplitToken(%q) = %q, %q, %v", tok, prefix, rest, ok)
	}
	for _, tt := range []struct{ name, tok string }{
		{"earlier form", random},
		{"earlier feed form", "mzxw6ytboi2dsnjvgq3tmnzyhe4dcmrr"},
		{"empty", ""},
		{"no random part", "RIV."},
		{"no prefix", ".abc"},
		{"one letter", "R.abc"},
		{"seven letters", "RIVERSI.abc"},
		{"lowercase", "riv.abc"},
		{"digit", "RI1.abc"},
		{"path", "../abc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if p, r, ok := SplitToken(tt.tok); ok || p != "" || r != "" {
				t.Fatalf("SplitToken(%q) = %q, %q, %v; want no location", tt.tok, p, r, ok)
			}
		})
	}
}
