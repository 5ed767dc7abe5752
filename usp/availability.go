package usp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
)

// Availability bounds. A query may span at most MaxQueryDays; a page
// holds 50 slots unless the caller asks for up to maxSlotPage.
const (
	MaxQueryDays    = 31
	defaultSlotPage = 50
	maxSlotPage     = 500
)

// QueryRequest is usp_availability_query / POST /availability/query.
type QueryRequest struct {
	ServiceID  string  `json:"service_id"`
	StartDate  string  `json:"start_date"`
	EndDate    string  `json:"end_date"`
	Timezone   string  `json:"timezone"`
	ResourceID string  `json:"resource_id"`
	PartySize  *int    `json:"party_size"`
	LocationID string  `json:"location_id"`
	Locale     string  `json:"locale"`
	Cursor     *string `json:"cursor"`
	Limit      *int    `json:"limit"`
}

// Slot is a bookable time window (schemas/availability.json TimeSlot).
type Slot struct {
	ID        string         `json:"id"`
	ServiceID string         `json:"service_id"`
	Start     string         `json:"start"`
	End       string         `json:"end"`
	Duration  string         `json:"duration"`
	State     string         `json:"state"`
	Capacity  *SlotCapacity  `json:"capacity,omitempty"`
	Resources []SlotResource `json:"resources,omitempty"`
	// Location is left out: every service is offered at one location,
	// which the service names.

	start time.Time
}

// SlotCapacity is a group or reservation slot's places.
type SlotCapacity struct {
	Total     int `json:"total"`
	Remaining int `json:"remaining"`
}

// SlotResource is the resource a slot commits.
type SlotResource struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// OpeningHours is one opening_hours entry.
type OpeningHours struct {
	DayOfWeek []string `json:"day_of_week"`
	Opens     string   `json:"opens"`
	Closes    string   `json:"closes"`
}

// QueryResult answers an availability query.
type QueryResult struct {
	USP          Meta           `json:"usp"`
	ServiceID    string         `json:"service_id"`
	Slots        []Slot         `json:"slots"`
	OpeningHours []OpeningHours `json:"opening_hours,omitempty"`
	Pagination   Pagination     `json:"pagination"`
	Messages     []Message      `json:"messages"`
}

// span is a query's range as instants, [from, to), and the zone its
// answers are written in.
type span struct {
	from, to time.Time
	zone     *time.Location
}

// parseSpan reads start_date and end_date: a date is a whole local day in
// zone (end inclusive), a datetime is an instant (end exclusive).
func parseSpan(in QueryRequest, zone *time.Location, maxAdvanceDays int) (span, error) {
	if in.Timezone != "" {
		z, err := time.LoadLocation(in.Timezone)
		if err != nil || in.Timezone == "Local" {
			return span{}, fail(CodeValidation, "timezone must be an IANA time zone such as America/Denver.")
		}
		zone = z
	}
	from, err := parseBound(in.StartDate, zone, false)
	if err != nil {
		return span{}, fail(CodeValidation, "start_date must be an RFC 3339 date or date-time.")
	}
	to, err := parseBound(in.EndDate, zone, true)
	if err != nil {
		return span{}, fail(CodeValidation, "end_date must be an RFC 3339 date or date-time.")
	}
	switch {
	case !to.After(from):
		return span{}, fail(CodeValidation, "end_date must be after start_date.")
	case to.Sub(from) > time.Duration(maxAdvanceDays+1)*24*time.Hour+time.Hour:
		// Longer than the service's whole booking window
		// (booking_window.max_advance): no query could ever be answered
		// in full, which is a documented constraint broken (§9.4.3).
		return span{}, fail(CodeValidation, "The range is longer than the service's booking window (booking_window.max_advance P%dD).", maxAdvanceDays)
	case to.Sub(from) > MaxQueryDays*24*time.Hour+time.Hour: // an hour of slack for a daylight-saving day
		return span{}, fail(CodeRangeTooWide, "A query may span at most %d days.", MaxQueryDays)
	}
	return span{from: from, to: to, zone: zone}, nil
}

func parseBound(s string, zone *time.Location, end bool) (time.Time, error) {
	if isDate(s) {
		d, err := civil.Parse(s)
		if err != nil {
			return time.Time{}, err
		}
		if end {
			d = d.AddDays(1)
		}
		return startOfDay(d, zone), nil
	}
	if !isDateTime(s) {
		return time.Time{}, errors.New("neither an RFC 3339 date nor a date-time")
	}
	return time.Parse(time.RFC3339Nano, strings.ToUpper(s))
}

// startOfDay is the first instant of local day d, which is not always
// 00:00 where a daylight-saving change happens at midnight.
func startOfDay(d civil.Date, zone *time.Location) time.Time {
	t := d.At(0, 0, zone)
	if civil.Of(t, zone) != d {
		t = d.At(1, 0, zone)
	}
	return t
}

// QueryAvailability returns the slots of one service that start in the
// range, in ascending start order, with at least party_size places free.
func (b *Business) QueryAvailability(ctx context.Context, call Call, in QueryRequest) (*QueryResult, error) {
	meta, _, outcome, err := b.begin(ctx, "usp_availability_query", call)
	if err != nil {
		return nil, err
	}
	if in.ServiceID == "" || in.StartDate == "" || in.EndDate == "" {
		return nil, fail(CodeInvalidRequest, "service_id, start_date and end_date are required.")
	}
	res := &QueryResult{USP: meta, ServiceID: in.ServiceID, Slots: []Slot{}, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	s, ok := b.catalog.get(in.ServiceID)
	if !ok {
		return nil, fail(CodeValidation, "service_id %q names no service of this business.", in.ServiceID)
	}
	sp, err := parseSpan(in, s.zone, b.cfg.Limits.AdvanceDays)
	if err != nil {
		return nil, err
	}
	party := 1
	if in.PartySize != nil {
		if party = *in.PartySize; party < 1 {
			return nil, fail(CodeValidation, "party_size must be 1 or more.")
		}
	}
	limit := defaultSlotPage
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, fail(CodeValidation, "limit must be 1 or more.")
		}
		limit = min(*in.Limit, maxSlotPage)
	}
	digest := digestOf("slots", s.ID, sp.from.UTC().Format(time.RFC3339), sp.to.UTC().Format(time.RFC3339),
		sp.zone.String(), in.ResourceID, in.LocationID, fmt.Sprint(party))
	after := ""
	if in.Cursor != nil && *in.Cursor != "" {
		c, err := decodeCursor(*in.Cursor, digest)
		if err != nil {
			return nil, err
		}
		after = c.After
	}
	if s.unit.Kind == business.KindTimed {
		res.OpeningHours = []OpeningHours{{
			DayOfWeek: []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
			Opens:     s.unit.Opens, Closes: s.unit.Closes,
		}}
	}
	if in.LocationID != "" && in.LocationID != s.loc.Slug {
		return res, nil
	}
	// One slot past the page tells whether there is a next one.
	slots, err := b.slots(ctx, s, sp, party, in.ResourceID, after, limit+1)
	if err != nil {
		return nil, err
	}
	if len(slots) > limit {
		slots = slots[:limit]
		next := encodeCursor(cursor{Query: digest, After: sortKey(slots[limit-1])})
		res.Pagination = Pagination{Cursor: &next, HasMore: true}
	}
	res.Slots = slots
	return res, nil
}

// sortKey orders slots by start instant, then id.
func sortKey(s Slot) string {
	return s.start.UTC().Format("20060102T150405Z") + "|" + s.ID
}

func slotID(s Service, start time.Time) string {
	return "slot_" + s.loc.Slug + "_" + s.unit.Type + "_" + start.UTC().Format("20060102T1504Z")
}

// slots lists up to want of the service's open slots that start in the
// span after the sort key after, from now and within the advance window.
// It reads the inventory a day at a time and stops when it has enough.
func (b *Business) slots(ctx context.Context, s Service, sp span, party int, resourceID, after string, want int) ([]Slot, error) {
	zone := s.zone
	now := b.clock.Now()
	today := civil.Of(now, zone)
	lastDay := today.AddDays(b.cfg.Limits.AdvanceDays)
	first := civil.Of(sp.from, zone)
	if first.Before(today) {
		first = today
	}
	last := civil.Of(sp.to.Add(-time.Nanosecond), zone)
	if lastDay.Before(last) {
		last = lastDay
	}
	out := make([]Slot, 0, min(want, 64)) // never null: an empty answer is an empty array
	if resourceID != "" && (s.unit.Kind != business.KindTimed || resourceID != slotResource(s).ID) {
		return out, nil
	}
	// offered is whether a candidate is in the span, not past, and after
	// the cursor: only then do its free places matter.
	offered := func(c candidate) bool {
		start := c.slot.start
		return !start.Before(sp.from) && start.Before(sp.to) && !start.Before(now) &&
			(after == "" || sortKey(c.slot) > after)
	}
	add := func(c candidate, free int) {
		if len(out) == want || free < party || !offered(c) {
			return
		}
		sl := c.slot
		sl.State = "available"
		if s.Type != "appointment" {
			sl.Capacity = &SlotCapacity{Total: s.unit.Count, Remaining: free}
			if free < 3 || free*5 < s.unit.Count {
				sl.State = "limited"
			}
		}
		out = append(out, sl)
	}
	if after != "" {
		// Days before the cursor's slot hold nothing to send; a lodging
		// slot starts on its check-in day, a timed one on its own day.
		if t, err := time.Parse("20060102T150405Z", strings.SplitN(after, "|", 2)[0]); err == nil && first.Before(civil.Of(t, zone)) {
			first = civil.Of(t, zone)
		}
	}
	for day := first; !last.Before(day) && len(out) < want; day = day.AddDays(1) {
		cands := b.catalog.slots.day(s, day, sp.zone)
		if !slices.ContainsFunc(cands, offered) {
			continue // nothing to read the inventory for
		}
		if s.unit.Kind == business.KindTimed {
			free, err := b.inv.FreeSlots(ctx, *s.loc, *s.unit, day)
			if err != nil {
				return nil, fmt.Errorf("query availability: %w", err)
			}
			// Both lists are in the day's start order (the keys are local
			// times of one day, so they sort as text); the candidates
			// leave out starts a daylight-saving change skips.
			i := 0
			for _, f := range free {
				for i < len(cands) && cands[i].key < f.Slots[0] {
					i++
				}
				if i < len(cands) && cands[i].key == f.Slots[0] {
					add(cands[i], f.Free)
				}
			}
			continue
		}
		free, err := b.inv.FreeNights(ctx, *s.loc, day, s.nights)
		if err != nil {
			return nil, fmt.Errorf("query availability: %w", err)
		}
		for _, f := range free {
			if f.Unit.Type == s.unit.Type {
				for _, c := range cands {
					add(c, f.Free)
				}
			}
		}
	}
	return out[:min(len(out), want)], nil
}

// slotResource is the one resource a timed service's slots commit: the
// unit itself.
func slotResource(s Service) SlotResource {
	return SlotResource{ID: "res_" + s.loc.Slug + "_" + s.unit.Type, Type: "equipment", Name: s.unit.DisplayName()}
}

// candidate is a slot as the config alone decides it: its id, instants
// and duration, rendered, with State and Capacity left for the free
// places the inventory reports at query time.
type candidate struct {
	key  string // the inventory's slot of a timed start ("2026-03-02T06:00")
	slot Slot
}

// candidates renders the slots of s that start on local day day, written
// in zone: every timed start that exists that day, or the one stay that
// checks in that day.
func candidates(s Service, day civil.Date, zone *time.Location) []candidate {
	render := func(key string, start, end time.Time) candidate {
		sl := Slot{
			ID: slotID(s, start), ServiceID: s.ID,
			Start: start.In(zone).Format(time.RFC3339), End: end.In(zone).Format(time.RFC3339),
			Duration: isoDuration(end.Sub(start)), start: start,
		}
		if s.unit.Kind == business.KindTimed {
			sl.Resources = []SlotResource{slotResource(s)}
		}
		return candidate{key: key, slot: sl}
	}
	if s.unit.Kind == business.KindTimed {
		length := time.Duration(s.unit.DurationMinutes) * time.Minute
		starts := inventory.TimedStarts(*s.unit, day, s.zone)
		out := make([]candidate, 0, len(starts))
		for _, st := range starts {
			out = append(out, render(st.Slot, st.At, st.At.Add(length)))
		}
		return out
	}
	checkin := business.Minutes(s.loc.CheckinHour)
	start, ok := day.Exact(checkin, s.zone)
	end, endOK := day.AddDays(s.nights).Exact(checkin, s.zone)
	if !ok || !endOK {
		return nil
	}
	return []candidate{render("", start, end)}
}

// slotCache keeps the candidates of each service and day, written in the
// service's own zone (the answer of a query without a timezone). They
// depend on the config only, so they never go stale; rendering them was
// over a third of an availability query's own work. Answers in another
// zone are rendered every time.
type slotCache struct {
	mu   sync.Mutex
	days map[slotDay][]candidate
}

type slotDay struct {
	service string
	day     civil.Date
}

// maxCachedDays bounds the cache, which then starts over. A day of a
// timed service open 16 hours in hour slots takes about 8 KB, so the
// cache stays under 20 MB even when every day is of that kind; queries
// mostly ask for the weeks ahead, which it holds for many services.
const maxCachedDays = 2048

func newSlotCache() *slotCache { return &slotCache{days: map[slotDay][]candidate{}} }

// day returns the candidates of s on day written in zone. The caller must
// not modify them.
func (c *slotCache) day(s Service, day civil.Date, zone *time.Location) []candidate {
	if zone != s.zone {
		return candidates(s, day, zone)
	}
	k := slotDay{s.ID, day}
	c.mu.Lock()
	cands, ok := c.days[k]
	c.mu.Unlock()
	if ok {
		return cands
	}
	cands = candidates(s, day, zone)
	c.mu.Lock()
	if len(c.days) >= maxCachedDays {
		clear(c.days)
	}
	c.days[k] = cands
	c.mu.Unlock()
	return cands
}
