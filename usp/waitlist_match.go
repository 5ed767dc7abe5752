package usp

import (
	"context"
	"slices"
	"time"

	"frontdesk/internal/civil"
)

// Which waitlist entries a freed place goes to. An entry names a slot
// (slot_id) or is open: it takes any slot of its service that falls in
// one of its preferred windows, or any slot at all when it gives none
// (§11.1.1). The first eligible entry in order of joining is offered the
// place.

// partOfDay names the part of day a local start time falls in: morning
// before 12:00, afternoon from 12:00 to before 17:00, evening from 17:00.
// These are the values of time_of_day this business matches; the schema
// leaves the field free text ("e.g., morning, afternoon"), so knownPart
// refuses any other at join rather than keep a window that never
// matches.
func partOfDay(local time.Time) string {
	switch h := local.Hour(); {
	case h < 12:
		return "morning"
	case h < 17:
		return "afternoon"
	}
	return "evening"
}

// knownPart reports whether partOfDay can name part.
func knownPart(part string) bool {
	return part == "morning" || part == "afternoon" || part == "evening"
}

// checkPreferred validates preferred_slots: dates are RFC 3339 dates, a
// window does not end before it starts, and time_of_day is a part of day
// partOfDay names. Every field of a window is optional.
func checkPreferred(prefs []PreferredSlot) error {
	for i, ps := range prefs {
		for _, f := range []struct{ name, v string }{{"start_date", ps.StartDate}, {"end_date", ps.EndDate}} {
			if f.v != "" && !isDate(f.v) {
				return fail(CodeValidation, "preferred_slots[%d].%s must be an RFC 3339 date (YYYY-MM-DD), not a date-time.", i, f.name)
			}
		}
		if ps.StartDate != "" && ps.EndDate != "" && ps.EndDate < ps.StartDate {
			return fail(CodeValidation, "preferred_slots[%d].end_date must not be before its start_date.", i)
		}
		if ps.TimeOfDay != "" && !knownPart(ps.TimeOfDay) {
			return fail(CodeValidation, "preferred_slots[%d].time_of_day must be morning (before 12:00), afternoon (12:00 to 17:00) or evening (from 17:00).", i)
		}
	}
	return nil
}

// contains reports whether the window takes a slot starting at local, a
// time in the service's zone. Dates in YYYY-MM-DD compare as text.
func (ps PreferredSlot) contains(local time.Time) bool {
	day := local.Format(time.DateOnly)
	return (ps.StartDate == "" || ps.StartDate <= day) && (ps.EndDate == "" || day <= ps.EndDate) &&
		(ps.TimeOfDay == "" || ps.TimeOfDay == partOfDay(local))
}

// overlaps reports whether some slot could fall in both windows: their
// dates meet and their parts of day are the same or either is any.
func (ps PreferredSlot) overlaps(o PreferredSlot) bool {
	from, to := max(ps.StartDate, o.StartDate), ps.EndDate
	if to == "" || o.EndDate != "" && o.EndDate < to {
		to = o.EndDate
	}
	return (to == "" || from <= to) && (ps.TimeOfDay == "" || o.TimeOfDay == "" || ps.TimeOfDay == o.TimeOfDay)
}

// takes reports whether preferred windows take a slot starting at local;
// no windows take any slot.
func takes(prefs []PreferredSlot, local time.Time) bool {
	if len(prefs) == 0 {
		return true
	}
	for _, ps := range prefs {
		if ps.contains(local) {
			return true
		}
	}
	return false
}

// eligible reports whether entry e of service s would take slot w: the
// slot it names, or, when it names none, a slot its windows take.
func eligible(s Service, e waitEntry, w wantSlot) bool {
	if e.SlotID != "" {
		return e.SlotID == w.id
	}
	return takes(e.Preferred, w.start.In(s.zone))
}

// compete reports whether two entries of service s could wait for the
// same place, so that the earlier one is ahead of the later: two slots'
// entries of the same slot, an open entry and a slot it would take, or
// two open entries whose windows overlap.
func (b *Business) compete(s Service, x, y waitEntry) bool {
	if x.SlotID != "" && y.SlotID != "" {
		return x.SlotID == y.SlotID
	}
	if x.SlotID != "" {
		x, y = y, x // x is the open one
	}
	if y.SlotID != "" {
		w, ok := b.resolveSlot(s, y.SlotID)
		return ok && eligible(s, x, w)
	}
	if len(x.Preferred) == 0 || len(y.Preferred) == 0 {
		return true
	}
	for _, a := range x.Preferred {
		for _, c := range y.Preferred {
			if a.overlaps(c) {
				return true
			}
		}
	}
	return false
}

// freeSlot is the earliest slot of s with a place free, from now and
// within the booking window, that an entry with windows prefs would
// take; ok is false when there is none.
func (b *Business) freeSlot(ctx context.Context, s Service, prefs []PreferredSlot, now time.Time) (w wantSlot, ok bool, err error) {
	windows := prefs
	if len(windows) == 0 {
		windows = []PreferredSlot{{}}
	}
	for _, ps := range windows {
		free, err := b.freeSlots(ctx, s, ps.StartDate, ps.EndDate, now, 1, func(w wantSlot) bool { return ps.contains(w.start.In(s.zone)) })
		if err != nil {
			return wantSlot{}, false, err
		}
		if len(free) > 0 {
			return free[0], true, nil
		}
	}
	return wantSlot{}, false, nil
}

// freeSlots lists up to n of the slots of s with a place free that take
// says a waiting entry would take, in start order, from now and within
// the booking window, between the local dates from and to (inclusive;
// "" is unbounded). It reads the inventory a page of slots at a time.
func (b *Business) freeSlots(ctx context.Context, s Service, from, to string, now time.Time, n int, take func(wantSlot) bool) ([]wantSlot, error) {
	first := civil.Of(now, s.zone)
	last := first.AddDays(b.cfg.Limits.AdvanceDays)
	if d, err := civil.Parse(from); err == nil && first.Before(d) {
		first = d
	}
	if d, err := civil.Parse(to); err == nil && d.Before(last) {
		last = d
	}
	var out []wantSlot
	sp := span{from: startOfDay(first, s.zone), to: startOfDay(last.AddDays(1), s.zone), zone: s.zone}
	for after := ""; !last.Before(first); {
		page, err := b.slots(ctx, s, sp, 1, "", after, maxSlotPage)
		if err != nil {
			return nil, err
		}
		for _, sl := range page {
			if w, ok := b.resolveSlot(s, sl.ID); ok && take(w) {
				if out = append(out, w); len(out) == n {
					return out, nil
				}
			}
		}
		if len(page) < maxSlotPage {
			break
		}
		after = sortKey(page[len(page)-1])
	}
	return out, nil
}

// openSlots are the free slots the sweep offers for a service's waiting
// open entries: up to one per entry, the earliest that any of them would
// take, found in one pass over the dates their windows span together.
func (b *Business) openSlots(ctx context.Context, s Service, open []waitEntry, now time.Time) ([]wantSlot, error) {
	from, to := "9999-12-31", ""
	unbounded := false // some window reaches past every end_date
	for _, e := range open {
		if len(e.Preferred) == 0 {
			from, unbounded = "", true
		}
		for _, ps := range e.Preferred {
			from, to = min(from, ps.StartDate), max(to, ps.EndDate)
			unbounded = unbounded || ps.EndDate == ""
		}
	}
	if unbounded {
		to = ""
	}
	return b.freeSlots(ctx, s, from, to, now, len(open), func(w wantSlot) bool {
		return slices.ContainsFunc(open, func(e waitEntry) bool { return eligible(s, e, w) })
	})
}
