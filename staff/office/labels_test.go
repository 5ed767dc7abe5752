package office

import "testing"

// TestAuditText: a stored audit line reads with its setting's label and
// unit, a switch as on and off, and a key the table lacks stays as it is.
func TestAuditText(t *testing.T) {
	tests := map[string]string{
		"chatPortfolioEmailHourly: 8 → 9": "Chat booking codes all properties together may email in one hour: 8 → 9 codes per hour",
		"bookingEnabled: true → false":    "Chat booking on at this property: on → off",
		"closures: none → 2026-12-24":     "Office closures: none → 2026-12-24",
		"kept the file's values":          "kept the file's values",
		"somethingNew: 1 → 2":             "somethingNew: 1 → 2",
	}
	for stored, want := range tests {
		if got := AuditText(stored); got != want {
			t.Errorf("AuditText(%q) = %q, want %q", stored, got, want)
		}
	}
}
