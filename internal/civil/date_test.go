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

// TestParseAndStringMatchTime holds Parse and String to what time.Parse
// and Format with time.DateOnly answer: every day of four centuries
// round trips, and every one-byte change of a few dates (each position
// set to each byte) is read, or refused, as time reads it.
func TestParseAndStringMatchTime(t *testing.T) {
	for day := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2300; day = day.AddDate(0, 0, 1) {
		want := day.Format(time.DateOnly)
		d, err := Parse(want)
		if err != nil || d.String() != want || d.t != day {
			t.Fatalf("Parse(%q) = %v (%v), %v", want, d, d.t, err)
		}
	}
	for _, edge := range []string{"0000-01-01", "9999-12-31", "2028-02-29", "2026-12-31"} {
		for i := range len(edge) {
			for c := range 256 {
				s := edge[:i] + string([]byte{byte(c)}) + edge[i+1:]
				want, werr := time.Parse(time.DateOnly, s)
				got, gerr := Parse(s)
				if (werr == nil) != (gerr == nil) || (werr == nil && got.t != want) {
					t.Fatalf("Parse(%q) = %v, %v; time.Parse: %v, %v", s, got.t, gerr, want, werr)
				}
			}
		}
	}
	for _, d := range []Date{{}, Of(time.Date(-3, 5, 1, 0, 0, 0, 0, time.UTC), time.UTC), Of(time.Date(12345, 5, 1, 0, 0, 0, 0, time.UTC), time.UTC)} {
		if got, want := d.String(), d.t.Format(time.DateOnly); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func BenchmarkParseAndString(b *testing.B) {
	for b.Loop() {
		d, err := Parse("2027-01-05")
		if err != nil || d.AddDays(30).String() != "2027-02-04" {
			b.Fatal(d, err)
		}
	}
}

// TestAddDaysMatchesAddDate holds AddDays to AddDate on either side of
// the span a Duration can hold and across leap days.
func TestAddDaysMatchesAddDate(t *testing.T) {
	base, _ := Parse("2028-02-28")
	for _, n := range []int{0, 1, 2, -1, -365, 366, 30, 1461, maxDays - 1, maxDays, maxDays + 1, -maxDays + 1, -maxDays, -maxDays - 1, 1 << 40, -(1 << 40)} {
		if got, want := base.AddDays(n), (Date{base.t.AddDate(0, 0, n)}); got != want { // == as Exact compares dates
			t.Errorf("AddDays(%d) = %v, want %v", n, got, want)
		}
	}
}
