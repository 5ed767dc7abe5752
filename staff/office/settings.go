package office

import (
	"context"
	"fmt"
	"strings"
	"time"

	"frontdesk/business"

	"frontdesk/reservation"
)

// Settings as owners edit them on the staff screen: each scope checked
// whole before it is saved, and each change worded for the audit.

// Range of every adjustable chat limit (worksheet: 1 to 1000).
const minLimit, maxLimit = 1, 1000

// SaveGroupSettings validates and stores the group's settings on behalf
// of by, with a line in the settings audit, in one transaction. Invalid
// values are reservation.FormProblems by field and change nothing.
func (s *Office) SaveGroupSettings(ctx context.Context, by string, g reservation.GroupSettings) error {
	p := reservation.FormProblems{}
	limit(p, "email_hourly", g.EmailHourly)
	limit(p, "email_daily", g.EmailDaily)
	limit(p, "cancel_daily", g.CancelDaily)
	limit(p, "pending", g.Pending)
	closures(p, g.Closures)
	keepHours := g.OfficeHours == (business.OfficeHours{}) // none given: the hours in force stay
	if !keepHours {
		officeHours(p, g.OfficeHours)
	}
	if len(p) > 0 {
		return p
	}
	return s.bookings.SaveSettings(ctx, by, reservation.ScopeGroup, func(e *reservation.EditedSettings, cur reservation.Settings) []string {
		if keepHours {
			g.OfficeHours = cur.Group.OfficeHours
		}
		e.Group = &g
		old := cur.Group
		return changes(
			"officeHours", hoursText(old.OfficeHours), hoursText(g.OfficeHours),
			"chatPortfolioEmailHourly", old.EmailHourly, g.EmailHourly,
			"chatPortfolioEmailDaily", old.EmailDaily, g.EmailDaily,
			"chatPortfolioCancelDaily", old.CancelDaily, g.CancelDaily,
			"chatPortfolioPendingLimit", old.Pending, g.Pending,
			"closures", closureText(old.Closures), closureText(g.Closures))
	})
}

// SaveLocationSettings validates and stores one location's settings, as
// SaveGroupSettings does the group's.
func (s *Office) SaveLocationSettings(ctx context.Context, by, slug string, l reservation.LocationSettings) error {
	if _, ok := s.location(slug); !ok {
		return reservation.FormProblems{"location": "No such location."}
	}
	p := reservation.FormProblems{}
	limit(p, "email_hourly", l.EmailHourly)
	limit(p, "pending", l.Pending)
	closures(p, l.Closures)
	if len(p) > 0 {
		return p
	}
	return s.bookings.SaveSettings(ctx, by, slug, func(e *reservation.EditedSettings, cur reservation.Settings) []string {
		if e.Locations == nil {
			e.Locations = map[string]reservation.LocationSettings{}
		}
		e.Locations[slug] = l
		old := cur.Locations[slug]
		return changes(
			"bookingEnabled", old.BookingEnabled, l.BookingEnabled,
			"chatEmailHourly", old.EmailHourly, l.EmailHourly,
			"chatPendingLimit", old.Pending, l.Pending,
			"closures", closureText(old.Closures), closureText(l.Closures))
	})
}

func limit(p reservation.FormProblems, field string, v int) {
	if v < minLimit || v > maxLimit {
		p[field] = fmt.Sprintf("Give a whole number from %d to %d.", minLimit, maxLimit)
	}
}

func closures(p reservation.FormProblems, list []business.Closure) {
	if err := business.CheckClosures("closures", list); err != nil {
		p["closures"] = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
}

// changes words each pair of old and new values that differ, as
// "name: old → new"; args repeat name, old, new.
func changes(args ...any) []string {
	var out []string
	for i := 0; i+2 < len(args); i += 3 {
		old, new := fmt.Sprint(args[i+1]), fmt.Sprint(args[i+2])
		if old != new {
			out = append(out, fmt.Sprintf("%s: %s → %s", args[i], old, new))
		}
	}
	return out
}

// closureText words closures one a line as "FROM..TO reason", as the
// settings page edits them.
func closureText(list []business.Closure) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(closureLines(list), "; ")
}

func closureLines(list []business.Closure) []string {
	lines := make([]string, 0, len(list))
	for _, c := range list {
		line := c.From
		if c.To != "" && c.To != c.From {
			line += ".." + c.To
		}
		if c.Reason != "" {
			line += " " + c.Reason
		}
		lines = append(lines, line)
	}
	return lines
}

// officeHours checks each day's office hours, under the field
// "hours_mon" and so on.
func officeHours(p reservation.FormProblems, o business.OfficeHours) {
	for _, d := range Weekdays() {
		if _, err := business.ParseHours(o.ForDay(d)); err != nil {
			p["hours_"+DayKey(d)] = "Give " + d.String() + " as closed, or as one or more ranges such as 08:00-12:00, 13:00-17:00, in order and apart."
		}
	}
}

// Weekdays are the days of the week, Monday first, as the settings page
// lists them.
func Weekdays() []time.Weekday {
	return []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday}
}

// DayKey is a weekday's short name, "mon" to "sun", as the config file
// writes it.
func DayKey(d time.Weekday) string { return strings.ToLower(d.String()[:3]) }

// hoursText words the week's office hours for the audit.
func hoursText(o business.OfficeHours) string {
	var parts []string
	for _, d := range Weekdays() {
		parts = append(parts, DayKey(d)+" "+o.ForDay(d))
	}
	return strings.Join(parts, ", ")
}

// ParseClosures reads closures one a line as "FROM[..TO] [reason]", the
// way the settings page shows them. A line that does not start with a
// date comes back as a closure that CheckClosures refuses.
func ParseClosures(text string) []business.Closure {
	var out []business.Closure
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		dates, reason, _ := strings.Cut(line, " ")
		from, to, _ := strings.Cut(dates, "..")
		out = append(out, business.Closure{From: from, To: to, Reason: strings.TrimSpace(reason)})
	}
	return out
}

// ClosureLines words closures for the settings page's text box.
func ClosureLines(list []business.Closure) string {
	return strings.Join(closureLines(list), "\n")
}
