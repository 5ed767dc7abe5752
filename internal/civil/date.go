// Package civil is calendar dates without a time zone, the way guests and
// rates speak of nights. It imports only the standard library.
package civil

import (
	"errors"
	"time"
)

// Date is a day on the calendar, such as 2026-12-01.
type Date struct{ t time.Time } // always UTC midnight

// ErrInvalid means the text is not a real YYYY-MM-DD date.
var ErrInvalid = errors.New("civil: not a real YYYY-MM-DD date")

// Parse reads exactly YYYY-MM-DD and refuses dates that do not exist.
func Parse(s string) (Date, error) {
	if len(s) != 10 {
		return Date{}, ErrInvalid
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, ErrInvalid
	}
	return Date{t}, nil
}

// Of returns the date that instant t falls on in zone z.
func Of(t time.Time, z *time.Location) Date {
	y, m, d := t.In(z).Date()
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// String returns YYYY-MM-DD.
func (d Date) String() string { return d.t.Format(time.DateOnly) }

// AddDays returns the date n days later (earlier for negative n).
func (d Date) AddDays(n int) Date { return Date{d.t.AddDate(0, 0, n)} }

// DaysUntil returns how many days lie from d to e, negative if e is earlier.
func (d Date) DaysUntil(e Date) int { return int(e.t.Sub(d.t).Hours() / 24) }

// Before reports whether d is earlier than e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// IsZero reports whether d was never set.
func (d Date) IsZero() bool { return d.t.IsZero() }

// Weekday returns the day of the week.
func (d Date) Weekday() time.Weekday { return d.t.Weekday() }

// At returns the instant of local wall-clock time hh:mm on d in zone z. On
// a daylight-saving gap, time.Date moves the instant forward, as clocks do.
func (d Date) At(hh, mm int, z *time.Location) time.Time {
	y, m, day := d.t.Date()
	return time.Date(y, m, day, hh, mm, 0, 0, z)
}

// Exact returns the instant of wall-clock time minutes after midnight on
// d in zone z. A time skipped by a daylight-saving change does not exist:
// ok is false. A time that occurs twice is its first occurrence.
func (d Date) Exact(minutes int, z *time.Location) (t time.Time, ok bool) {
	t = d.At(minutes/60, minutes%60, z)
	if Of(t, z) != d || t.Hour()*60+t.Minute() != minutes {
		return time.Time{}, false
	}
	if earlier := t.Add(-time.Hour); earlier.Hour()*60+earlier.Minute() == minutes && Of(earlier, z) == d {
		t = earlier
	}
	return t, true
}
