package channel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"frontdesk/internal/civil"
)

// Block is one span of nights a channel's feed takes: one event, or one
// occurrence of a recurring event.
type Block struct {
	// Key names the block across fetches: the event's UID, with the
	// occurrence's start for an occurrence of a recurring event. It is
	// the channel's identifier, never a guest's data.
	Key string
	// Nights are the nights the block takes, as YYYY-MM-DD, in order.
	Nights []string
}

// ParseOptions say how a feed's times become nights.
type ParseOptions struct {
	// Zone reads floating times and all-day dates: the location's zone.
	Zone *time.Location
	// From is the first night kept: blocks that end before it are past
	// and left out; nights before it of a block still running are kept.
	From civil.Date
	// Until is the first night past the horizon: recurrences are expanded
	// up to it and nights from it on are left out.
	Until civil.Date
}

// Limits of what one feed may make, so a hostile or broken feed cannot
// make the parse itself the outage.
const (
	maxEvents      = 5000  // events and occurrences read from one feed
	maxOccurrences = 1000  // occurrences of one recurring event
	maxRuleSteps   = 20000 // steps a recurrence rule may take looking for them
	maxNights      = 800   // nights of one event inside the horizon
)

// ErrNotCalendar is what Parse answers a body that is not one whole
// iCalendar object: garbage, an HTML error page, or a calendar cut off
// before its END:VCALENDAR (which would otherwise read as blocks gone).
var ErrNotCalendar = errors.New("not a whole iCalendar feed")

// Parse reads a feed into its blocks, in order of key. It reads dates,
// times, UIDs, STATUS, TRANSP, RRULE, EXDATE and RECURRENCE-ID only:
// SUMMARY and DESCRIPTION, where channels put guests' names, are never
// read. A cancelled or transparent event blocks nothing.
func Parse(body []byte, o ParseOptions) ([]Block, error) {
	trimmed := bytes.TrimSpace(body)
	if !bytes.HasSuffix(bytes.ToUpper(trimmed), []byte("END:VCALENDAR")) {
		return nil, ErrNotCalendar
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(trimmed))
	if err != nil {
		// The parser's own words may quote the feed's text, where guest
		// data can be: only that it refused is kept.
		return nil, fmt.Errorf("%w: the iCalendar syntax is broken", ErrNotCalendar)
	}
	zones := timezones(cal, o.Zone)
	type master struct {
		ev    *ics.VEvent
		overs map[string]*ics.VEvent // RECURRENCE-ID start key → override
	}
	masters := map[string]*master{}
	var order []string
	var overrides []*ics.VEvent
	for _, ev := range cal.Events() {
		if prop(ev, ics.ComponentPropertyRecurrenceId) != nil {
			overrides = append(overrides, ev)
			continue
		}
		uid := uidOf(ev)
		key := uid
		for n := 2; masters[key] != nil; n++ {
			key = uid + "#" + strconv.Itoa(n) // a feed repeating a UID: each event still blocks
		}
		masters[key] = &master{ev: ev, overs: map[string]*ics.VEvent{}}
		order = append(order, key)
	}
	for _, ev := range overrides {
		m := masters[uidOf(ev)]
		rid, err := readTime(prop(ev, ics.ComponentPropertyRecurrenceId), zones)
		if err != nil {
			return nil, fmt.Errorf("event %d: RECURRENCE-ID: %w", len(order), err)
		}
		if m == nil {
			// An occurrence whose series the feed does not carry: a block
			// of its own.
			key := uidOf(ev) + "@" + rid.key()
			masters[key] = &master{ev: ev, overs: map[string]*ics.VEvent{}}
			order = append(order, key)
			continue
		}
		m.overs[rid.key()] = ev
	}
	var out []Block
	add := func(key string, ev *ics.VEvent, start moment) error {
		if len(out) >= maxEvents {
			return fmt.Errorf("more than %d events", maxEvents)
		}
		if blocksNothing(ev) {
			return nil
		}
		nights, err := nightsOf(ev, start, zones, o)
		if err != nil {
			return err
		}
		if len(nights) > 0 {
			out = append(out, Block{Key: key, Nights: nights})
		}
		return nil
	}
	for i, key := range order {
		m := masters[key]
		start, err := readTime(prop(m.ev, ics.ComponentPropertyDtStart), zones)
		if err != nil {
			return nil, fmt.Errorf("event %d: DTSTART: %w", i+1, err)
		}
		rule := prop(m.ev, ics.ComponentPropertyRrule)
		if rule == nil {
			if err := add(key, m.ev, start); err != nil {
				return nil, fmt.Errorf("event %d: %w", i+1, err)
			}
			continue
		}
		starts, err := expand(rule.Value, start, exdates(m.ev, zones), o)
		if err != nil {
			return nil, fmt.Errorf("event %d: RRULE: %w", i+1, err)
		}
		for _, st := range starts {
			ev, s := m.ev, st
			if over := m.overs[st.key()]; over != nil {
				ev = over
				if s, err = readTime(prop(over, ics.ComponentPropertyDtStart), zones); err != nil {
					return nil, fmt.Errorf("event %d: DTSTART: %w", i+1, err)
				}
			}
			if err := add(key+"@"+st.key(), ev, s); err != nil {
				return nil, fmt.Errorf("event %d: %w", i+1, err)
			}
		}
	}
	slices.SortFunc(out, func(a, b Block) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func prop(ev *ics.VEvent, p ics.ComponentProperty) *ics.IANAProperty { return ev.GetProperty(p) }

// uidOf is the event's UID, or for an event without one (which the RFC
// forbids but feeds carry) a name made of its dates, stable while they
// are.
func uidOf(ev *ics.VEvent) string {
	if p := prop(ev, ics.ComponentPropertyUniqueId); p != nil && strings.TrimSpace(p.Value) != "" {
		return strings.TrimSpace(p.Value)
	}
	var b strings.Builder
	for _, c := range []ics.ComponentProperty{ics.ComponentPropertyDtStart, ics.ComponentPropertyDtEnd, ics.ComponentPropertyDuration} {
		if p := prop(ev, c); p != nil {
			b.WriteString(p.Value + "|")
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "no-uid-" + hex.EncodeToString(sum[:8])
}

// blocksNothing reports an event that takes no nights: cancelled, or
// marked transparent (free time).
func blocksNothing(ev *ics.VEvent) bool {
	if p := prop(ev, ics.ComponentPropertyStatus); p != nil && strings.EqualFold(strings.TrimSpace(p.Value), "CANCELLED") {
		return true
	}
	p := prop(ev, ics.ComponentPropertyTransp)
	return p != nil && strings.EqualFold(strings.TrimSpace(p.Value), "TRANSPARENT")
}

// moment is a DTSTART, DTEND, EXDATE or RECURRENCE-ID value: a date, or
// an instant.
type moment struct {
	date   civil.Date // set for an all-day value
	t      time.Time  // set for a time
	allDay bool
}

// key names the moment in a block's key and matches occurrences.
func (m moment) key() string {
	if m.allDay {
		return strings.ReplaceAll(m.date.String(), "-", "")
	}
	return m.t.UTC().Format("20060102T150405Z")
}

var timeValue = regexp.MustCompile(`^(\d{8})(?:T(\d{6})(Z?))?$`)

// readTime reads one date or date-time property in the zones of the feed.
func readTime(p *ics.IANAProperty, zones func(string) *time.Location) (moment, error) {
	if p == nil {
		return moment{}, errors.New("missing")
	}
	tzid := ""
	if v := p.ICalParameters["TZID"]; len(v) > 0 {
		tzid = v[0]
	}
	return parseMoment(strings.TrimSpace(p.Value), tzid, zones)
}

func parseMoment(v, tzid string, zones func(string) *time.Location) (moment, error) {
	m := timeValue.FindStringSubmatch(v)
	if m == nil {
		return moment{}, errors.New("not a date or a date-time")
	}
	if m[2] == "" {
		t, err := time.Parse("20060102", m[1])
		if err != nil {
			return moment{}, errors.New("not a date")
		}
		return moment{date: civil.Of(t, time.UTC), allDay: true}, nil
	}
	loc := zones(tzid)
	if m[3] == "Z" {
		loc = time.UTC
	}
	t, err := time.ParseInLocation("20060102T150405", m[1]+"T"+m[2], loc)
	if err != nil {
		return moment{}, errors.New("not a date-time")
	}
	return moment{t: t}, nil
}

// timezones resolves the TZIDs of a feed: an IANA name, a VTIMEZONE that
// names one (X-LIC-LOCATION) or gives its standard offset, else the
// location's own zone, which also reads floating times.
func timezones(cal *ics.Calendar, home *time.Location) func(string) *time.Location {
	if home == nil {
		home = time.UTC
	}
	defined := map[string]*time.Location{}
	for _, c := range cal.Components {
		tz, ok := c.(*ics.VTimezone)
		if !ok {
			continue
		}
		idp := tz.GetProperty(ics.ComponentPropertyTzid)
		if idp == nil {
			continue
		}
		id := idp.Value
		if lic := tz.GetProperty(ics.ComponentProperty("X-LIC-LOCATION")); lic != nil {
			if loc, err := time.LoadLocation(lic.Value); err == nil {
				defined[id] = loc
				continue
			}
		}
		for _, sub := range tz.SubComponents() {
			std, ok := sub.(*ics.Standard)
			if !ok {
				continue
			}
			if off := std.GetProperty(ics.ComponentProperty("TZOFFSETTO")); off != nil {
				if secs, ok := utcOffset(off.Value); ok {
					defined[id] = time.FixedZone(id, secs)
				}
			}
		}
	}
	return func(tzid string) *time.Location {
		if tzid == "" {
			return home
		}
		if loc, err := time.LoadLocation(strings.TrimPrefix(tzid, "/")); err == nil {
			return loc
		}
		if loc := defined[tzid]; loc != nil {
			return loc
		}
		return home
	}
}

// utcOffset reads "+0100" or "-053000".
func utcOffset(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if len(v) != 5 && len(v) != 7 || v[0] != '+' && v[0] != '-' {
		return 0, false
	}
	n := func(s string) int { i, _ := strconv.Atoi(s); return i }
	secs := n(v[1:3])*3600 + n(v[3:5])*60
	if len(v) == 7 {
		secs += n(v[5:7])
	}
	if v[0] == '-' {
		secs = -secs
	}
	return secs, true
}

// nightsOf are the nights an event starting at start takes, clipped to
// [o.From, o.Until); none for a block wholly past. An all-day event takes
// its dates up to DTEND, exclusive (one night without DTEND). A timed
// event takes every night it touches, a night running from noon to noon
// in the location's zone.
func nightsOf(ev *ics.VEvent, start moment, zones func(string) *time.Location, o ParseOptions) ([]string, error) {
	var first, last civil.Date
	z := o.Zone
	if z == nil {
		z = time.UTC
	}
	var dur time.Duration
	var days int
	if p := prop(ev, ics.ComponentPropertyDuration); p != nil {
		var err error
		if days, dur, err = parseDuration(p.Value); err != nil {
			return nil, fmt.Errorf("DURATION: %w", err)
		}
	}
	endp := prop(ev, ics.ComponentPropertyDtEnd)
	var end moment
	if endp != nil {
		var err error
		if end, err = readTime(endp, zones); err != nil {
			return nil, fmt.Errorf("DTEND: %w", err)
		}
		// An occurrence of a series lasts as long as the series' first
		// event: its DTEND is moved by as much as its start.
		own, err := readTime(prop(ev, ics.ComponentPropertyDtStart), zones)
		if err != nil {
			return nil, fmt.Errorf("DTSTART: %w", err)
		}
		switch {
		case own.allDay && start.allDay && end.allDay:
			end.date = start.date.AddDays(own.date.DaysUntil(end.date))
		case !own.allDay && !start.allDay && !end.allDay:
			end.t = start.t.Add(end.t.Sub(own.t))
		}
	}
	if start.allDay {
		first = start.date
		switch {
		case endp != nil && end.allDay:
			last = end.date.AddDays(-1)
		case endp != nil:
			last = civil.Of(end.t, z).AddDays(-1)
		case days > 0 || dur > 0:
			last = start.date.AddDays(days + int((dur+24*time.Hour-1)/(24*time.Hour)) - 1)
		default:
			last = first
		}
	} else {
		var te time.Time
		switch {
		case endp != nil && end.allDay:
			te = end.date.At(0, 0, z)
		case endp != nil:
			te = end.t
		default:
			te = start.t.AddDate(0, 0, days).Add(dur)
		}
		first = civil.Of(start.t, z)
		if start.t.In(z).Hour() < 12 {
			first = first.AddDays(-1)
		}
		last = civil.Of(te, z)
		local := te.In(z)
		if local.Hour() < 12 || local.Hour() == 12 && local.Minute() == 0 && local.Second() == 0 {
			last = last.AddDays(-1)
		}
	}
	if last.Before(first) {
		last = first
	}
	if last.Before(o.From) {
		return nil, nil
	}
	var nights []string
	// Nights already past of a block still running are kept, so the
	// block does not shrink (and its hold move) every day; only those of
	// a block that began over a month ago are cut.
	if floor := o.From.AddDays(-31); first.Before(floor) {
		first = floor
	}
	for d := first; d.Before(o.Until) && !last.Before(d); d = d.AddDays(1) {
		if len(nights) == maxNights {
			return nil, fmt.Errorf("more than %d nights in one event", maxNights)
		}
		nights = append(nights, d.String())
	}
	return nights, nil
}

var durationValue = regexp.MustCompile(`^([+-]?)P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

// parseDuration reads an RFC 5545 duration into whole days and a time.
func parseDuration(v string) (int, time.Duration, error) {
	m := durationValue.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil || m[1] == "-" {
		return 0, 0, errors.New("not a forward duration")
	}
	n := func(s string) int { i, _ := strconv.Atoi(s); return i }
	days := n(m[2])*7 + n(m[3])
	d := time.Duration(n(m[4]))*time.Hour + time.Duration(n(m[5]))*time.Minute + time.Duration(n(m[6]))*time.Second
	return days, d, nil
}

// exdates are the occurrence starts an event excludes.
func exdates(ev *ics.VEvent, zones func(string) *time.Location) map[string]bool {
	out := map[string]bool{}
	for _, p := range ev.GetProperties(ics.ComponentPropertyExdate) {
		tzid := ""
		if v := p.ICalParameters["TZID"]; len(v) > 0 {
			tzid = v[0]
		}
		for v := range strings.SplitSeq(p.Value, ",") {
			if m, err := parseMoment(strings.TrimSpace(v), tzid, zones); err == nil {
				out[m.key()] = true
				if !m.allDay {
					// An all-day series excluded by a date-time of its day.
					out[strings.ReplaceAll(civil.Of(m.t, m.t.Location()).String(), "-", "")] = true
				}
			}
		}
	}
	return out
}
