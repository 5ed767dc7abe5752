package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"frontdesk/business"

	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/reservation"
)

// availability answers the property page's read with fixed free counts
// and leaves every other method of Forms to a nil interface.
type availability struct {
	Forms
	free map[string][]int
}

func (a availability) Availability(_ context.Context, _ string, days int) (reservation.Availability, error) {
	first, _ := civil.Parse("2026-11-30")
	out := map[string][]int{}
	for typ, free := range a.free {
		out[typ] = free[:days]
	}
	return reservation.Availability{First: first, Days: days, Free: out}, nil
}

// TestPropertyCalendar: a property's page lays out this month and the
// next from Monday; a nightly room links each free night, with its rate,
// to the form for that night and marks a full night; a room let by the
// week links only the arrival dates from which seven nights in a row are
// free, to a form for those seven nights.
func TestPropertyCalendar(t *testing.T) {
	free := func(n int, full ...int) []int {
		out := make([]int, 100)
		for i := range out {
			out[i] = n
		}
		for _, i := range full {
			out[i] = 0
		}
		return out
	}
	// Nights from Nov 30: the double is full on Dec 3 (3), the studio on
	// Dec 9 (9), so studio arrivals Dec 3 to Dec 9 cannot take a week.
	s := &Site{Config: demoConfig(), Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)),
		Forms: availability{free: map[string][]int{"single": free(3), "double": free(2, 3), "studio": free(1, 9)}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /properties/{slug}", s.Property)
	mux.HandleFunc("/", s.NotFound)
	status, body := get(t, mux, "/properties/riverside")
	if status != http.StatusOK {
		t.Fatalf("property page = %d: %s", status, body)
	}
	for _, want := range []string{
		"<caption>November 2026</caption>", "<caption>December 2026</caption>",
		// November 2026 starts on a Sunday: six empty cells first.
		`<tbody><tr><td></td><td></td><td></td><td></td><td></td><td></td><td><span class="past">1<span class="visually-hidden"> (Sun, Nov 1, 2026)</span></span></td></tr>`,
		`<a href="/properties/riverside?arrive=2026-11-30&amp;room=double#room-double">30<small>$119</small><span class="visually-hidden"> (Mon, Nov 30, 2026: free, $119 a night; arrive on this day)</span></a>`,
		`<span class="full">3<span class="visually-hidden"> (Thu, Dec 3, 2026: full)</span></span>`,
		`<a href="/properties/riverside?arrive=2026-12-02&amp;room=studio#room-studio">2<span class="visually-hidden"> (Wed, Dec 2, 2026: arrive for 7 nights or more)</span></a>`,
		`<span class="closed">3<span class="visually-hidden"> (Thu, Dec 3, 2026: not an arrival date for this room)</span></span>`,
		`<a href="/properties/riverside?arrive=2026-12-10&amp;room=studio#room-studio">10<span class="visually-hidden"> (Thu, Dec 10, 2026: arrive for 7 nights or more)</span></a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("property page lacks %s", want)
		}
	}
	// The second click: with an arrival chosen, the days the room can be
	// left on link to the form with both dates; the double is full on
	// Dec 3, so a stay from Nov 30 ends by then.
	status, body = get(t, mux, "/properties/riverside?room=double&arrive=2026-11-30")
	if status != http.StatusOK {
		t.Fatalf("property page with an arrival = %d", status)
	}
	for _, want := range []string{
		`Arrival Mon, Nov 30, 2026 chosen. <a href="/properties/riverside#room-double">Choose another arrival</a>`,
		`<a href="/properties/riverside#room-double" class="arrive">30<span class="visually-hidden"> (Mon, Nov 30, 2026: your arrival; pick it again to choose another)</span></a>`,
		`<a href="/book/riverside?checkin=2026-11-30&amp;checkout=2026-12-01&amp;roomtype=double" class="depart">1<span class="visually-hidden"> (Tue, Dec 1, 2026: leave after 1 night)</span></a>`,
		`<a href="/book/riverside?checkin=2026-11-30&amp;checkout=2026-12-03&amp;roomtype=double" class="depart">3<span class="visually-hidden"> (Thu, Dec 3, 2026: leave after 3 nights)</span></a>`,
		`<a href="/properties/riverside?arrive=2026-12-04&amp;room=double#room-double">4<small>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("property page with an arrival lacks %s", want)
		}
	}
	if strings.Contains(body, "checkout=2026-12-04&amp;roomtype=double") {
		t.Error("a stay across the full night of Dec 3 is offered")
	}
	status, body = get(t, mux, "/properties/riverside?room=studio&arrive=2026-12-02")
	if status != http.StatusOK || !strings.Contains(body, `<span class="stay">8<span class="visually-hidden"> (Tue, Dec 8, 2026: a night of your stay)</span></span>`) ||
		!strings.Contains(body, `<a href="/book/riverside?checkin=2026-12-02&amp;checkout=2026-12-09&amp;roomtype=studio" class="depart">9<`) || strings.Contains(body, `checkout=2026-12-10&amp;roomtype=studio`) {
		t.Fatalf("the studio from Dec 2 = %d: departures must be Dec 9 only", status)
	}
	// A closure of the property closes its nights on the calendar too.
	s.Config.Locations[0].Closures = []business.Closure{{From: "2026-12-20", To: "2026-12-21", Reason: "staff training"}}
	_, body = get(t, mux, "/properties/riverside")
	if !strings.Contains(body, `<span class="closed">20<span class="visually-hidden"> (Sun, Dec 20, 2026: closed)</span></span>`) || strings.Contains(body, "staff training") ||
		strings.Contains(body, "arrive=2026-12-21&amp;room=double") || !strings.Contains(body, "arrive=2026-12-22&amp;room=double") {
		t.Fatal("the closure's nights are offered on the calendar")
	}
	s.Config.Locations[0].Closures = nil
	// An arrival that cannot start a stay chooses nothing.
	if _, body := get(t, mux, "/properties/riverside?room=double&arrive=2026-12-03"); strings.Contains(body, "chosen.") {
		t.Fatal("a full night was taken as the arrival")
	}
	if status, body := get(t, mux, "/properties/nowhere"); status != http.StatusNotFound || !strings.Contains(body, "This page is not here") {
		t.Fatalf("unknown property = %d: %.200s", status, body)
	}
}
