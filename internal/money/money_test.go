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
		{"12.500", "LYD", 12500, "12.500"},
		{"150000", "UGX", 150000, "150000"},
		{"150000", "IDR", 150000, "150000"},
		{"36.5000", "CLF", 365000, "36.5000"},
		{"89.50", "HUF", 8950, "89.50"},
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

// TestDecimals checks the exponents that a hand-written table once had
// wrong, and the cases where CLDR and ISO 4217 differ (CLDR wins).
func TestDecimals(t *testing.T) {
	tests := map[string]int{
		"USD": 2, "EUR": 2, "JPY": 0, "KWD": 3,
		"LYD": 3, "UGX": 0, "XOF": 0, "XAF": 0, "PYG": 0, "RWF": 0, "CLF": 4,
		// ISO 4217 says 3 for IQD and 2 for IDR and COP; CLDR says 0.
		"IQD": 0, "IDR": 0, "COP": 0,
		// CLDR's cash digits for HUF are 0; prices use the standard 2.
		"HUF": 2,
	}
	for code, want := range tests {
		if got := Decimals(code); got != want {
			t.Errorf("Decimals(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestValidCurrency(t *testing.T) {
	tests := map[string]bool{
		"USD": true, "EUR": true, "JPY": true, "LYD": true, "UGX": true, "XOF": true,
		"XAF": true, "PYG": true, "RWF": true, "CLF": true, "UYI": true, "CHF": true,
		"ZZZ": false, "XXX": false, "XTS": false, "XAU": false, "XDR": false,
		"usd": false, "US": false, "USDX": false, "": false, "DEM": false,
	}
	for code, want := range tests {
		if got := ValidCurrency(code); got != want {
			t.Errorf("ValidCurrency(%q) = %v, want %v", code, got, want)
		}
	}
}
