package config

import (
	"errors"
	"fmt"
	"frontdesk/business"
	"time"
)

// maxClosureDays bounds one closure, so a typing slip in a year does not
// close the office for a decade without anyone noticing.
const maxClosureDays = 366

// closures checks a list of closures at path ("business.closures").
func (v *validator) closures(path string, list []business.Closure) {
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
func CheckClosures(path string, list []business.Closure) error {
	v := &validator{}
	v.closures(path, list)
	return errors.Join(v.errs...)
}
