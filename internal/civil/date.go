// Package civil is calendar dates without a time zone, the way guests and
// rates speak of nights. It imports only the standard library.
package civil

import (
	"errors"
	"math"
	"time"
)

// Date is a day on the calendar, such as 2026-12-01.
type Date struct{ t time.Time } // always UTC midnight

// ErrInvalid means the text is not a real YYYY-MM-DD date.
var ErrInvalid = errors.New("civil: not a real YYYY-MM-DD date")

// Parse reads exactly YYYY-MM-DD and refuses dates that do not exist.
// It reads the digits itself, as String writes them: a search reads and
// writes a date for every night of every room it prices, and time's
// layout walk took a sixth of find_rooms' own work.
func Parse(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, ErrInvalid
	}
	y, yok := number(s[0:4])
	m, mok := number(s[5:7])
	d, dok := number(s[8:10])
	if !yok || !mok || !dok || m < 1 || m > 12 || d < 1 {
		return Date{}, ErrInvalid
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 2026-02-30 would be March the 2nd
		return Date{}, ErrInvalid
	}
	return Date{t}, nil
}

// number reads a run of ASCII digits.
func number(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Of returns the date that instant t falls on in zone z.
func Of(t time.Time, z *time.Location) Date {
	y, m, d := t.In(z).Date()
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// String returns YYYY-MM-DD.
func (d Date) String() string {
	y, m, day := d.t.Date()
	if y < 0 || y > 9999 {
		return d.t.Format(time.DateOnly) // no date Parse reads; kept as time writes it
	}
	b := [10]byte{
		byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + m/10), byte('0' + m%10), '-',
		byte('0' + day/10), byte('0' + day%10),
	}
	return string(b[:])
}

// AddDays returns the date n days later (earlier for negative n). A
// date is a UTC midnight and UTC days are all 24 hours long, so adding
// hours gives what AddDate does without its calendar normalising; past
// a Duration's range (292 years) AddDate answers.
func (d Date) AddDays(n int) Date {
	if n > -maxDays && n < maxDays {
		return Date{d.t.Add(time.Duration(n) * 24 * time.Hour)}
	}
	return Date{d.t.AddDate(0, 0, n)}
}

// maxDays is the most days a time.Duration holds.
const maxDays = int(math.MaxInt64 / int64(24*time.Hour))

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
