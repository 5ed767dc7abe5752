package business

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Closure is a run of whole local days on which the office is closed,
// such as a holiday or a staff day out. It only ever closes: a closure
// never opens the office outside its weekly hours.
type Closure struct {
	From   string `toml:"from"`   // first closed day, "YYYY-MM-DD"
	To     string `toml:"to"`     // last closed day, inclusive; empty: From only
	Reason string `toml:"reason"` // for staff; never shown to guests
}

// Covers reports whether the closure includes the local date day
// ("YYYY-MM-DD"). Valid dates of that form sort as text.
func (cl Closure) Covers(day string) bool {
	last := cl.To
	if last == "" {
		last = cl.From
	}
	return cl.From <= day && day <= last
}

// ForDay returns the hours of a weekday.
func (o OfficeHours) ForDay(d time.Weekday) string {
	return [...]string{o.Sun, o.Mon, o.Tue, o.Wed, o.Thu, o.Fri, o.Sat}[d]
}

// Hours is one open range of a day, in minutes after local midnight:
// open from From up to, not including, To.
type Hours struct{ From, To int }

// ParseHours reads a day's office hours: "closed", or one or more
// "HH:MM-HH:MM" ranges separated by commas, in order and apart, such as
// "08:00-12:00, 13:00-17:00" for a lunch break. Closed gives none.
func ParseHours(s string) ([]Hours, error) {
	if strings.TrimSpace(s) == "closed" {
		return nil, nil
	}
	var out []Hours
	for _, part := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), "-")
		if !ok || !IsClock(a) || !IsClock(b) || b <= a {
			return nil, fmt.Errorf(`must be "closed" or ranges "HH:MM-HH:MM", each ending after it starts, separated by commas (such as "08:00-12:00, 13:00-17:00"), got %q`, s)
		}
		h := Hours{Minutes(a), Minutes(b)}
		if len(out) > 0 && h.From <= out[len(out)-1].To {
			return nil, fmt.Errorf("must list its ranges in order of the day with a gap between them, got %q", s)
		}
		out = append(out, h)
	}
	return out, nil
}

// OpenAt reports whether minute (after local midnight) falls in one of
// the ranges.
func OpenAt(hours []Hours, minute int) bool {
	for _, h := range hours {
		if minute >= h.From && minute < h.To {
			return true
		}
	}
	return false
}

// Minutes turns a valid "HH:MM" into minutes after midnight.
func Minutes(hhmm string) int {
	return int(hhmm[0]-'0')*600 + int(hhmm[1]-'0')*60 + int(hhmm[3]-'0')*10 + int(hhmm[4]-'0')
}

var clockPattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// IsClock reports whether s is a wall-clock time "HH:MM".
func IsClock(s string) bool { return clockPattern.MatchString(s) }

// OfficeOpen is the office status for location l at instant now, in the
// location's wall clock: inside the business's weekly office hours, and
// on a day that no closure of the business or of l covers. Both checks
// must pass, so a closure can only take hours away.
func (p Portfolio) OfficeOpen(now time.Time, l Location) bool {
	local := now.In(l.Zone())
	hours, err := ParseHours(p.Business.OfficeHours.ForDay(local.Weekday()))
	if err != nil || !OpenAt(hours, local.Hour()*60+local.Minute()) {
		return false
	}
	day := local.Format(time.DateOnly)
	for _, list := range [][]Closure{p.Business.Closures, l.Closures} {
		for _, cl := range list {
			if cl.Covers(day) {
				return false
			}
		}
	}
	return true
}

// maxClosureDays bounds one closure, so a typing slip in a year does not
// close the office for a decade without anyone noticing.
const maxClosureDays = 366

// ClosureProblems lists what is wrong with a list of closures at path
// ("business.closures"), each error starting with path and the
// closure's index.
func ClosureProblems(path string, list []Closure) []error {
	var out []error
	add := func(field, format string, args ...any) {
		out = append(out, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	for i, cl := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		from, err := time.Parse(time.DateOnly, cl.From)
		if err != nil {
			add(p+".from", "must be a date as YYYY-MM-DD, got %q", cl.From)
			continue
		}
		if cl.To != "" {
			to, err := time.Parse(time.DateOnly, cl.To)
			switch {
			case err != nil:
				add(p+".to", "must be a date as YYYY-MM-DD, got %q", cl.To)
			case to.Before(from):
				add(p+".to", "must not be before from (%s), got %s", cl.From, cl.To)
			case to.Sub(from) >= maxClosureDays*24*time.Hour:
				add(p+".to", "one closure may last at most %d days", maxClosureDays)
			}
		}
		if len(cl.Reason) > 200 {
			add(p+".reason", "must be at most 200 characters")
		}
	}
	return out
}

// CheckClosures checks closures edited outside the file, such as on the
// staff screen, by the rules the file's closures follow. Each error
// starts with path and the closure's index.
func CheckClosures(path string, list []Closure) error {
	return errors.Join(ClosureProblems(path, list)...)
}
