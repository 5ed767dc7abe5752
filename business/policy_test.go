package business

import (
	"testing"
	"time"
)

func TestTermsMoney(t *testing.T) {
	start := time.Date(2027, 3, 14, 15, 0, 0, 0, time.UTC)
	early, late := start.Add(-49*time.Hour), start.Add(-47*time.Hour)
	pct := Terms{Timing: PayDeposit, DepositKind: DepositPercent, DepositValue: 20, FreeCancel: 48 * time.Hour, LateCancelFee: 6000, NoShowKeeps: true}
	fixed := Terms{Timing: PayDeposit, DepositKind: DepositFixed, DepositValue: 5000}
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"20% of 20000", pct.DueNow(20000), 4000},
		{"20% of 333 rounds half up", pct.DueNow(333), 67},
		{"fixed deposit", fixed.DueNow(20000), 5000},
		{"fixed deposit above the price", fixed.DueNow(3000), 3000},
		{"at booking", Terms{Timing: PayAtBooking}.DueNow(20000), 20000},
		{"at service", Terms{Timing: PayAtService}.DueNow(20000), 0},
		{"inside the free window", pct.CancelRefund(4000, start, early), 4000},
		{"late, fee above the deposit", pct.CancelRefund(4000, start, late), 0},
		{"late fee", pct.CancelFee(start, late), 6000},
		{"late, fee below what was paid", pct.CancelRefund(20000, start, late), 14000},
		{"exactly at the deadline is late", pct.CancelFee(start, start.Add(-48*time.Hour)), 6000},
		{"no policy: always free", fixed.CancelFee(start, start), 0},
		{"no-show keeps", pct.NoShowRefund(4000), 0},
		{"no-show refunded", fixed.NoShowRefund(5000), 5000},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// TestStartOf: a night starts at the location's check-in hour on its
// date, a timed slot at its own time, both in the location's zone.
func TestStartOf(t *testing.T) {
	l := Location{TimeZone: "America/Denver", CheckinHour: "15:00"}
	denver, _ := time.LoadLocation("America/Denver")
	for _, tt := range []struct {
		unit Unit
		slot string
		want time.Time
	}{
		{Unit{Kind: KindNight}, "2026-12-30", time.Date(2026, 12, 30, 15, 0, 0, 0, denver)},
		{Unit{Kind: KindTimed}, "2027-03-02T06:30", time.Date(2027, 3, 2, 6, 30, 0, 0, denver)},
	} {
		got, err := l.StartOf(tt.unit, tt.slot)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("StartOf(%s, %q) = %v, %v; want %v", tt.unit.Kind, tt.slot, got, err, tt.want)
		}
	}
	if _, err := l.StartOf(Unit{Kind: KindNight}, "2026-13-01"); err == nil {
		t.Error("a bad date has a start")
	}
}
