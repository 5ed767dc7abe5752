package config

import (
	"errors"
	"fmt"
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

// maxClosureDays bounds one closure, so a typing slip in a year does not
// close the office for a decade without anyone noticing.
const maxClosureDays = 366

// covers reports whether the closure includes the local date day
// ("YYYY-MM-DD"). Valid dates of that form sort as text.
func (cl Closure) covers(day string) bool {
	last := cl.To
	if last == "" {
		last = cl.From
	}
	return cl.From <= day && day <= last
}

// OfficeOpen is the office status for location l at instant now, in the
// location's wall clock: inside the business's weekly office hours, and
// on a day that no closure of the business or of l covers. Both checks
// must pass, so a closure can only take hours away.
func (c Config) OfficeOpen(now time.Time, l Location) bool {
	local := now.In(l.Zone())
	hours, err := ParseHours(c.Business.OfficeHours.ForDay(local.Weekday()))
	if err != nil || !OpenAt(hours, local.Hour()*60+local.Minute()) {
		return false
	}
	day := local.Format(time.DateOnly)
	for _, list := range [][]Closure{c.Business.Closures, l.Closures} {
		for _, cl := range list {
			if cl.covers(day) {
				return false
			}
		}
	}
	return true
}

// closures checks a list of closures at path ("business.closures").
func (v *validator) closures(path string, list []Closure) {
	for i, cl := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		from, err := time.Parse(time.DateOnly, cl.From)
		if err != nil {
			v.add(p+".from", "must be a date as YYYY-MM-DD, got %q", cl.From)
			continue
		}
		if cl.To != "" {
			to, err := time.Parse(time.DateOnly, cl.To)
			switch {
			case err != nil:
				v.add(p+".to", "must be a date as YYYY-MM-DD, got %q", cl.To)
			case to.Before(from):
				v.add(p+".to", "must not be before from (%s), got %s", cl.From, cl.To)
			case to.Sub(from) >= maxClosureDays*24*time.Hour:
				v.add(p+".to", "one closure may last at most %d days", maxClosureDays)
			}
		}
		if len(cl.Reason) > 200 {
			v.add(p+".reason", "must be at most 200 characters")
		}
	}
}

// CheckClosures checks closures edited outside the file, such as on the
// staff screen, by the rules the file's closures follow. Each error
// starts with path and the closure's index.
func CheckClosures(path string, list []Closure) error {
	v := &validator{}
	v.closures(path, list)
	return errors.Join(v.errs...)
}
