package referral

import (
	"testing"
	"time"

	"frontdesk/reservation"
)

// TestRefunds: which ends take the sale back. A decline and a move
// always do; a cancellation only before the stay's first night; a
// completed stay and a no-show never.
func TestRefunds(t *testing.T) {
	before := time.Date(2026, 12, 29, 23, 0, 0, 0, time.UTC)
	during := time.Date(2026, 12, 30, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		state reservation.State
		at    time.Time
		want  bool
	}{
		{reservation.Declined, during, true},
		{reservation.Moved, during, true},
		{reservation.Cancelled, before, true},
		{reservation.Cancelled, during, false},
		{reservation.Completed, before, false},
		{reservation.NoShow, during, false},
	} {
		if got := refunds(c.state, []string{"2026-12-30", "2026-12-31"}, c.at); got != c.want {
			t.Errorf("%s at %s: refunds = %v, want %v", c.state, c.at, got, c.want)
		}
	}
	timed := []string{"2026-12-30T10:00"}
	if !refunds(reservation.Cancelled, timed, before) || refunds(reservation.Cancelled, timed, during) {
		t.Error("a timed slot's cancellation is read by its date")
	}
}

// TestMarks: codes and click ids of the host's shapes only.
func TestMarks(t *testing.T) {
	for code, ok := range map[string]bool{"SUMMER24": true, "ab1": false, "with space": false, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789X": false} {
		if ValidCode(code) != ok {
			t.Errorf("ValidCode(%q) = %v", code, !ok)
		}
	}
	for click, ok := range map[string]bool{"c_0123456789abcdef": true, "short": false, `"><script>`: false} {
		if ValidClick(click) != ok {
			t.Errorf("ValidClick(%q) = %v", click, !ok)
		}
	}
	if !(Mark{}).Empty() || (Mark{Code: "SUMMER24"}).Empty() {
		t.Error("Empty")
	}
}
