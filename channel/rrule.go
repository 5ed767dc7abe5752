package channel

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"frontdesk/internal/civil"
)

// expand lists the starts of a recurring event from its RRULE, up to the
// horizon, leaving out its EXDATEs. It knows FREQ (DAILY, WEEKLY,
// MONTHLY, YEARLY), INTERVAL, COUNT, UNTIL, WKST, BYDAY of plain weekdays
// and BYMONTHDAY of days counted from the month's start: what channels
// and calendar apps write for blocked dates. A rule with any other part
// is refused, so the feed fails visibly rather than blocking the wrong
// nights.
func expand(rule string, start moment, ex map[string]bool, o ParseOptions) ([]moment, error) {
	freq, interval, count := "", 1, -1
	var until *moment
	var byDay []time.Weekday
	var byMonthDay []int
	for part := range strings.SplitSeq(strings.TrimSpace(rule), ";") {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return nil, errors.New("a part has no value")
		}
		switch strings.ToUpper(name) {
		case "FREQ":
			freq = strings.ToUpper(value)
		case "INTERVAL":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return nil, errors.New("INTERVAL is not a positive number")
			}
			interval = n
		case "COUNT":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return nil, errors.New("COUNT is not a number")
			}
			count = n
		case "UNTIL":
			m, err := parseMoment(value, "", func(string) *time.Location { return o.Zone })
			if err != nil {
				return nil, fmt.Errorf("UNTIL: %w", err)
			}
			until = &m
		case "WKST":
			// Weeks are cut on Monday; BYDAY of plain weekdays gives the
			// same days whatever the week's start.
		case "BYDAY":
			for d := range strings.SplitSeq(value, ",") {
				wd, ok := weekdays[strings.ToUpper(strings.TrimSpace(d))]
				if !ok {
					return nil, errors.New("BYDAY: only plain weekdays are read")
				}
				byDay = append(byDay, wd)
			}
		case "BYMONTHDAY":
			for d := range strings.SplitSeq(value, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(d))
				if err != nil || n < 1 || n > 31 {
					return nil, errors.New("BYMONTHDAY: only days 1 to 31 are read")
				}
				byMonthDay = append(byMonthDay, n)
			}
		default:
			return nil, errors.New("a part other than FREQ, INTERVAL, COUNT, UNTIL, WKST, BYDAY and BYMONTHDAY")
		}
	}
	// Occurrences are computed on the start's wall clock: an all-day
	// series on UTC dates, a timed one in its own zone, so a series at
	// 15:00 stays at 15:00 across a change of daylight saving time.
	base := start.t
	if start.allDay {
		base = start.date.At(0, 0, time.UTC)
	}
	horizon := o.Until.At(0, 0, time.UTC)
	floor := o.From.AddDays(-40).At(0, 0, time.UTC) // occurrences ended by then are not kept
	dateOf := func(t time.Time) time.Time {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	past := func(t time.Time) bool {
		if until == nil {
			return false
		}
		if until.allDay || start.allDay {
			u := until.date.At(0, 0, time.UTC)
			if !until.allDay {
				u = dateOf(until.t.In(base.Location()))
			}
			return dateOf(t).After(u)
		}
		return t.After(until.t)
	}
	var out []moment
	made := 0
	emit := func(t time.Time) bool {
		if t.Before(base) {
			return true
		}
		if count >= 0 && made >= count || past(t) || !dateOf(t).Before(horizon) {
			return false
		}
		made++
		m := moment{t: t}
		if start.allDay {
			m = moment{date: civil.Of(t, time.UTC), allDay: true}
		}
		if ex[m.key()] || dateOf(t).Before(floor) {
			return true
		}
		out = append(out, m)
		return len(out) < maxOccurrences
	}
	sameClock := func(y int, mo time.Month, d int) time.Time {
		return time.Date(y, mo, d, base.Hour(), base.Minute(), base.Second(), 0, base.Location())
	}
	for step := 0; step < maxRuleSteps; step++ {
		var candidates []time.Time
		switch freq {
		case "DAILY":
			candidates = []time.Time{base.AddDate(0, 0, step*interval)}
		case "WEEKLY":
			week := base.AddDate(0, 0, step*7*interval)
			monday := week.AddDate(0, 0, -((int(week.Weekday()) + 6) % 7))
			days := byDay
			if len(days) == 0 {
				days = []time.Weekday{base.Weekday()}
			}
			for _, wd := range days {
				candidates = append(candidates, monday.AddDate(0, 0, (int(wd)+6)%7))
			}
		case "MONTHLY":
			y, mo, _ := base.Date()
			first := time.Date(y, mo+time.Month(step*interval), 1, 0, 0, 0, 0, time.UTC)
			days := byMonthDay
			if len(days) == 0 {
				days = []int{base.Day()}
			}
			for _, d := range days {
				if t := sameClock(first.Year(), first.Month(), d); t.Day() == d {
					candidates = append(candidates, t) // a month without that day has no occurrence
				}
			}
		case "YEARLY":
			y, mo, d := base.Date()
			if t := sameClock(y+step*interval, mo, d); t.Day() == d {
				candidates = append(candidates, t)
			}
		default:
			return nil, errors.New("only FREQ DAILY, WEEKLY, MONTHLY and YEARLY are read")
		}
		slices.SortFunc(candidates, func(a, b time.Time) int { return a.Compare(b) })
		for _, t := range candidates {
			if !emit(t) {
				return out, nil
			}
		}
	}
	return out, nil
}

var weekdays = map[string]time.Weekday{
	"MO": time.Monday, "TU": time.Tuesday, "WE": time.Wednesday, "TH": time.Thursday,
	"FR": time.Friday, "SA": time.Saturday, "SU": time.Sunday,
}
