package direct

import (
	"strings"
	"testing"

	"frontdesk/reservation"
)

// TestStayLinesCountNights: a one-night stay (a USP or staff booking) is
// "1 night" in mail, and longer stays count nights.
func TestStayLinesCountNights(t *testing.T) {
	w := newWorld(t)
	l, _ := w.svc.location("riverside")
	for _, tt := range []struct {
		slots []string
		want  string
	}{
		{[]string{"2026-12-11"}, "Check-out: 2026-12-12 (1 night)\n"},
		{[]string{"2026-12-11", "2026-12-12"}, "Check-out: 2026-12-13 (2 nights)\n"},
	} {
		r := booked{Reservation: reservation.Reservation{Reference: "RIV-1", Location: "riverside", Unit: "double", Slots: tt.slots, Guests: 1}}
		if got := w.svc.stayLines(r, l); !strings.Contains(got, tt.want) {
			t.Errorf("stay lines of %d nights = %q, want a line %q", len(tt.slots), got, tt.want)
		}
	}
}
