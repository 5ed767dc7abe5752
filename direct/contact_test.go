package direct

import "testing"

func TestLastFour(t *testing.T) {
	if got := LastFour("+1 303 555 0199 x42"); got != "0199" {
		t.Errorf("LastFour with an extension = %q", got)
	}
}

func TestMaskEmail(t *testing.T) {
	if got := MaskEmail("ada@example.com"); got != "a***@example.com" {
		t.Fatalf("MaskEmail = %q", got)
	}
}

func TestCleanNotes(t *testing.T) {
	got := CleanNotes("Late arrival.\nSee https://evil.example/x or www.x.com and /etc/passwd \u200b")
	want := "Late arrival.\nSee [link removed] or [link removed] and [link removed]"
	if got != want {
		t.Fatalf("CleanNotes = %q, want %q", got, want)
	}
}

func TestMailName(t *testing.T) {
	tests := map[string]string{
		"Ada Lovelace":                           "Ada Lovelace",
		"O'Brien-Smith, Jr.":                     "O'Brien-Smith, Jr.",
		"J. R. R. Tolkien":                       "J. R. R. Tolkien",
		"Visit https://evil.example/login now":   "Visit https[:]//evil[.]example/login now",
		"Ada xhttps://evil.example":              "Ada xhttps[:]//evil[.]example",
		"Ada www.evil.example":                   "Ada www[.]evil[.]example",
		"Ada evil.shop/login":                    "Ada evil[.]shop/login",
		"Ada (bit.ly/x)":                         "Ada (bit[.]ly/x)",
		"Ada mailto:a@b.example ftp://x.example": "Ada mailto[:]a@b[.]example ftp[:]//x[.]example",
	}
	for in, want := range tests {
		if got := MailName(in); got != want {
			t.Errorf("MailName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanNotesRemovesEveryLinkForm(t *testing.T) {
	tests := map[string]string{
		"Arriving at 5.30pm, room near the lift.": "Arriving at 5.30pm, room near the lift.",
		"see evil.shop/login please":              "see [link removed] please",
		"short bit.ly/3xYz ok":                    "short [link removed] ok",
		"get ftp://files.example/a":               "get [link removed]",
		"write mailto:x@evil.example":             "write [link removed]",
		"behind a letter: xhttps://evil.example":  "behind a letter: [link removed]",
		"evil.com, then":                          "[link removed] then",
	}
	for in, want := range tests {
		if got := CleanNotes(in); got != want {
			t.Errorf("CleanNotes(%q) = %q, want %q", in, got, want)
		}
	}
}
