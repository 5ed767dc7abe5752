package civil

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, ok := range []string{"2026-12-01", "2028-02-29"} {
		if d, err := Parse(ok); err != nil || d.String() != ok {
			t.Errorf("Parse(%q) = %v, %v", ok, d, err)
		}
	}
	for _, bad := range []string{"2026-02-30", "2027-02-29", "2026-1-01", "26-12-01", "2026-12-01T00:00", "tomorrow", ""} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestDaysAcrossDaylightSaving(t *testing.T) {
	a, _ := Parse("2026-03-01")
	b, _ := Parse("2026-03-31")
	if got := a.DaysUntil(b); got != 30 {
		t.Fatalf("DaysUntil = %d, want 30", got)
	}
	if got := b.DaysUntil(a); got != -30 {
		t.Fatalf("DaysUntil back = %d, want -30", got)
	}
	z, _ := time.LoadLocation("America/Denver")
	// 05:30 UTC on 2 December is still 1 December in Denver.
	if got := Of(time.Date(2026, 12, 2, 5, 30, 0, 0, time.UTC), z).String(); got != "2026-12-01" {
		t.Fatalf("Of = %s, want 2026-12-01", got)
	}
}
