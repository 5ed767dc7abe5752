package usp

import (
	"testing"
	"time"
)

// TestEligible: which waiting entries a freed shuttle slot goes to, by
// the slot they name or the windows they prefer, read in the service's
// zone.
func TestEligible(t *testing.T) {
	denver, err := time.LoadLocation("America/Denver")
	if err != nil {
		t.Fatal(err)
	}
	s := Service{zone: denver}
	at := func(day string, hour int) wantSlot {
		d, _ := time.ParseInLocation(time.DateOnly, day, denver)
		start := d.Add(time.Duration(hour) * time.Hour)
		return wantSlot{id: "slot_" + start.UTC().Format("20060102T1504Z"), start: start}
	}
	s0302m := at("2026-03-02", 9) // 16:00 UTC: a morning in Denver, an afternoon in UTC
	for _, c := range []struct {
		name  string
		entry waitEntry
		slot  wantSlot
		want  bool
	}{
		{"its slot", waitEntry{SlotID: s0302m.id}, s0302m, true},
		{"another slot", waitEntry{SlotID: at("2026-03-02", 10).id}, s0302m, false},
		{"a slot ignores windows", waitEntry{SlotID: s0302m.id, Preferred: []PreferredSlot{{StartDate: "2026-04-01"}}}, s0302m, true},
		{"no preferences", waitEntry{}, s0302m, true},
		{"window by date", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-01", EndDate: "2026-03-02"}}}, s0302m, true},
		{"window from a date", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-02"}}}, s0302m, true},
		{"window until a date", waitEntry{Preferred: []PreferredSlot{{EndDate: "2026-03-01"}}}, s0302m, false},
		{"window by local time of day", waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "morning"}}}, s0302m, true},
		{"not the window's time of day", waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "afternoon"}}}, s0302m, false},
		{"the local date, not UTC's", waitEntry{Preferred: []PreferredSlot{{EndDate: "2026-03-02", TimeOfDay: "evening"}}}, at("2026-03-02", 20), true},
		{"outside the window", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-03", EndDate: "2026-03-03"}}}, s0302m, false},
		{"afternoon from 12:00", waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "afternoon"}}}, at("2026-03-02", 12), true},
		{"evening from 17:00", waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "evening"}}}, at("2026-03-02", 17), true},
		{"several windows, one matches", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-05"}, {EndDate: "2026-03-02", TimeOfDay: "morning"}}}, s0302m, true},
		{"several windows, none matches", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-05"}, {TimeOfDay: "evening"}}}, s0302m, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := eligible(s, c.entry, c.slot); got != c.want {
				t.Fatalf("eligible(%+v, %s) = %v, want %v", c.entry, c.slot.start, got, c.want)
			}
		})
	}
}

// TestCompete: which earlier entries count ahead of an entry in its
// position.
func TestCompete(t *testing.T) {
	denver, _ := time.LoadLocation("America/Denver")
	b := &Business{}
	s := Service{zone: denver}
	day := func(d string) []PreferredSlot { return []PreferredSlot{{StartDate: d, EndDate: d}} }
	for _, c := range []struct {
		name string
		x, y waitEntry
		want bool
	}{
		{"same slot", waitEntry{SlotID: "a"}, waitEntry{SlotID: "a"}, true},
		{"other slots", waitEntry{SlotID: "a"}, waitEntry{SlotID: "b"}, false},
		{"open without windows", waitEntry{}, waitEntry{Preferred: day("2026-03-02")}, true},
		{"overlapping windows", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-01", EndDate: "2026-03-03"}}}, waitEntry{Preferred: day("2026-03-03")}, true},
		{"other days", waitEntry{Preferred: day("2026-03-02")}, waitEntry{Preferred: day("2026-03-03")}, false},
		{"other parts of day", waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "morning"}}}, waitEntry{Preferred: []PreferredSlot{{TimeOfDay: "evening"}}}, false},
		{"open ended", waitEntry{Preferred: []PreferredSlot{{StartDate: "2026-03-05"}}}, waitEntry{Preferred: []PreferredSlot{{EndDate: "2026-03-04"}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, back := b.compete(s, c.x, c.y), b.compete(s, c.y, c.x); got != c.want || back != c.want {
				t.Fatalf("compete = %v, %v the other way, want %v", got, back, c.want)
			}
		})
	}
}

// TestCheckPreferred: windows a join refuses, each with a message naming
// the field.
func TestCheckPreferred(t *testing.T) {
	for _, c := range []struct {
		name string
		in   PreferredSlot
		want string
	}{
		{"all optional", PreferredSlot{}, ""},
		{"a whole window", PreferredSlot{StartDate: "2026-03-02", EndDate: "2026-03-04", TimeOfDay: "evening"}, ""},
		{"one day", PreferredSlot{StartDate: "2026-03-02", EndDate: "2026-03-02"}, ""},
		{"unknown time of day", PreferredSlot{TimeOfDay: "lunchtime"}, "preferred_slots[0].time_of_day must be morning (before 12:00), afternoon (12:00 to 17:00) or evening (from 17:00)."},
		{"end before start", PreferredSlot{StartDate: "2026-03-04", EndDate: "2026-03-02"}, "preferred_slots[0].end_date must not be before its start_date."},
		{"a date-time", PreferredSlot{EndDate: "2026-03-02T09:00:00Z"}, "preferred_slots[0].end_date must be an RFC 3339 date (YYYY-MM-DD), not a date-time."},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if err := checkPreferred([]PreferredSlot{c.in}); err != nil {
				got = err.(*Error).Message
			}
			if got != c.want {
				t.Fatalf("checkPreferred = %q, want %q", got, c.want)
			}
		})
	}
}
