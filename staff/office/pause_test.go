package office

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"frontdesk/config"
)

// TestPausesSayWhichLimitAndWhenItLifts: a full location hourly ceiling
// is listed with the moment its oldest counted code leaves the hour, a
// full pending ceiling with no moment, and nothing once they lift.
func TestPausesSayWhichLimitAndWhenItLifts(t *testing.T) {
	w := newWorld(t, workedLimits, func(c *config.Config) { c.Limits.LocationPending = 1 })
	ctx := context.Background()
	pauses := func() []Pause {
		t.Helper()
		p, err := w.svc.Pauses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := pauses(); len(got) != 0 {
		t.Fatalf("pauses of a fresh world = %+v", got)
	}
	first := w.clock.Now()
	var started []string
	for i := range 3 {
		if i > 0 {
			w.clock.Advance(5 * time.Minute) // all within the code lifetime
		}
		res, err := w.start(ctx, web, stayArgs("email", fmt.Sprintf("p%d@example.com", i)))
		if err != nil {
			t.Fatal(refusalText(err))
		}
		started = append(started, res.BookingID)
	}
	if _, err := w.confirm(ctx, web, args("booking_id", started[0], "code", w.lastCode("p0@example.com"))); err != nil {
		t.Fatal(refusalText(err))
	}
	want := []Pause{
		{Setting: "location_email_hourly", Location: "riverside", Used: 3, Limit: 3, Lifts: first.Add(time.Hour)},
		{Setting: "location_pending", Location: "riverside", Used: 1, Limit: 1},
	}
	if got := pauses(); !slices.EqualFunc(got, want, samePause) {
		t.Fatalf("pauses = %+v, want %+v", got, want)
	}
	w.clock.Set(first.Add(time.Hour)) // the first code leaves the hour
	if got := pauses(); !slices.EqualFunc(got, want[1:], samePause) {
		t.Fatalf("pauses an hour after the first code = %+v, want %+v", got, want[1:])
	}
}

func samePause(a, b Pause) bool {
	return a.Setting == b.Setting && a.Location == b.Location && a.Used == b.Used && a.Limit == b.Limit && a.Lifts.Equal(b.Lifts)
}

// workedLimits sets the chat ceilings of direct-booking.md's worked
// deployment (8 codes an hour and 20 a day across the group, 3 an hour per
// location).
func workedLimits(c *config.Config) {
	c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 8, 20, 3
}
