package money

import "testing"

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in, currency string
		minor        int64
		out          string
	}{
		{"89.00", "USD", 8900, "89.00"},
		{"89", "USD", 8900, "89.00"},
		{"0.5", "USD", 50, "0.50"},
		{"1200", "JPY", 1200, "1200"},
		{"1.250", "KWD", 1250, "1.250"},
	}
	for _, tt := range tests {
		t.Run(tt.in+tt.currency, func(t *testing.T) {
			got, err := Parse(tt.in, tt.currency)
			if err != nil || got != tt.minor {
				t.Fatalf("Parse(%q) = %d, %v, want %d", tt.in, got, err, tt.minor)
			}
			if s := Format(got, tt.currency); s != tt.out {
				t.Fatalf("Format(%d) = %q, want %q", got, s, tt.out)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{"", ".5", "5.", "1.234", "-1", "1e3", "12a", "1,000", "1000000000000000"} {
		if _, err := Parse(in, "USD"); err == nil {
			t.Errorf("Parse(%q) = nil error, want refusal", in)
		}
	}
	if _, err := Parse("1.5", "JPY"); err == nil {
		t.Error("Parse(1.5 JPY) accepted a fraction of a yen")
	}
}

func TestDisplay(t *testing.T) {
	tests := map[string]struct {
		minor    int64
		currency string
	}{
		"$1,234.50":    {123450, "USD"},
		"$0.07":        {7, "USD"},
		"$80.00":       {8000, "USD"},
		"1,200 JPY":    {1200, "JPY"},
		"1,000.00 EUR": {100000, "EUR"},
	}
	for want, tt := range tests {
		if got := Display(tt.minor, tt.currency); got != want {
			t.Errorf("Display(%d, %s) = %q, want %q", tt.minor, tt.currency, got, want)
		}
	}
}

func TestDivRound(t *testing.T) {
	tests := []struct{ n, d, want int64 }{{5, 2, 3}, {4, 2, 2}, {7, 3, 2}, {56000, 7, 8000}, {1, 3, 0}, {-5, 2, -3}}
	for _, tt := range tests {
		if got := DivRound(tt.n, tt.d); got != tt.want {
			t.Errorf("DivRound(%d, %d) = %d, want %d", tt.n, tt.d, got, tt.want)
		}
	}
}
