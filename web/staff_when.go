package web

import (
	"strconv"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/reservation"
)

// How the staff screen words when a reservation is: a stay as its dates
// and nights, a timed service (a shuttle seat) as its start, in the
// property's zone, and its length.

// slotLayout is how a timed slot is kept: local wall-clock time.
const slotLayout = "2006-01-02T15:04"

// timedStart reads the start of a timed reservation in its location's
// zone; ok is false for a stay.
func timedStart(res reservation.Reservation, l business.Location) (time.Time, bool) {
	if len(res.Slots) != 1 || len(res.Slots[0]) != len(slotLayout) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(slotLayout, res.Slots[0], l.Zone())
	return t, err == nil
}

// duration words a unit's slot length, "60 min" or "1 h 30 min".
func duration(u business.Unit) string {
	m := u.DurationMinutes
	switch {
	case m <= 0:
		return ""
	case m < 60:
		return strconv.Itoa(m) + " min"
	case m%60 == 0:
		return strconv.Itoa(m/60) + " h"
	}
	return strconv.Itoa(m/60) + " h " + strconv.Itoa(m%60) + " min"
}

// when words a reservation's time for the staff lists: "Mon, Dec 7,
// 2026 to Wed, Dec 9, 2026 (2 nights)" or "Sun, Dec 6, 2026, 11:00 AM
// MST, 60 min".
func (s *StaffScreen) when(res reservation.Reservation, l business.Location) string {
	if t, ok := timedStart(res, l); ok {
		out := t.Format("Mon, Jan 2, 2006, 3:04 PM MST")
		if u, ok := l.Unit(res.Unit); ok && duration(u) != "" {
			out += ", " + duration(u)
		}
		return out
	}
	in, out, err := res.Stay()
	if err != nil {
		return res.FirstSlot()
	}
	return s.date(in) + " to " + s.date(out) + " (" + nights(len(res.Slots)) + ")"
}

// date writes a day as the business's locale does.
func (s *StaffScreen) date(d civil.Date) string { return localeDate(s.Config.Business.Locale, d) }

// nights is "1 night" or "n nights".
func nights(n int) string { return strconv.Itoa(n) + " " + plural(n, "night", "nights") }
