package office

import (
	"context"
	"fmt"
	"sort"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Dashboard is what the staff screen's first page charts and counts, for
// the locations one staff member may see.
type Dashboard struct {
	Today civil.Date
	Weeks []civil.Date // the first day of each week charted
	// Occupancy is, per location slug, the share of room-nights held in
	// each week, 0 to 1.
	Occupancy map[string][]float64
	// Sources are the sources seen, in order; BySource counts, per source,
	// reservations arriving in each week.
	Sources  []string
	BySource map[string][]int
	// Attention today.
	Pending     int // chat reservations awaiting a staff decision
	Requests    int // form requests awaiting a staff decision
	Arrivals    int // arrivals today
	Flagged     int // reservations the core flagged for attention
	Undelivered int // notices not delivered yet
	// Unread are the locations a split hub could not read: none of the
	// charts and counts above holds anything of theirs.
	Unread []Unread
}

// DashboardWeeks is how many weeks ahead the dashboard charts.
const DashboardWeeks = 8

// dashboardFrame is an empty dashboard of the weeks from today at now.
func (s *Office) dashboardFrame(now time.Time) Dashboard {
	d := Dashboard{Occupancy: map[string][]float64{}, BySource: map[string][]int{}}
	if len(s.cfg.Locations) == 0 {
		return d
	}
	d.Today = civil.Of(now, s.cfg.Locations[0].Zone())
	for i := range DashboardWeeks {
		d.Weeks = append(d.Weeks, d.Today.AddDays(7*i))
	}
	return d
}

// Dashboard reads the charts and counts for the locations in slugs; at
// a split hub, from each location the signed-in login may see, naming
// in Unread those not read.
func (s *Office) Dashboard(ctx context.Context, slugs []string) (Dashboard, error) {
	if s.remote != nil {
		return s.remoteDashboard(ctx, slugs)
	}
	now := s.clock.Now()
	d := s.dashboardFrame(now)
	if len(d.Weeks) == 0 {
		return d, nil
	}
	end := d.Today.AddDays(7 * DashboardWeeks)
	for _, slug := range slugs {
		l, ok := s.location(slug)
		if !ok {
			continue
		}
		capacity := 0
		night := map[string]bool{}
		for _, u := range l.NightUnits() {
			capacity += u.Count
			night[u.Type] = true
		}
		counts, err := s.st.Counts(ctx, slug, d.Today.String(), end.String())
		if err != nil {
			return d, fmt.Errorf("read occupancy: %w", err)
		}
		held := make([]int, DashboardWeeks)
		for _, c := range counts {
			day, err := civil.Parse(c.Slot)
			if err != nil || !night[c.Unit] {
				continue
			}
			if w := d.Today.DaysUntil(day) / 7; w >= 0 && w < DashboardWeeks {
				held[w] += c.Held
			}
		}
		occ := make([]float64, DashboardWeeks)
		for w := range occ {
			if capacity > 0 {
				occ[w] = float64(held[w]) / float64(capacity*7)
			}
		}
		d.Occupancy[slug] = occ
		if err := s.countReservations(ctx, slug, &d, end, now); err != nil {
			return d, err
		}
		if err := s.countAwaiting(ctx, slug, &d); err != nil {
			return d, err
		}
	}
	for src := range d.BySource {
		d.Sources = append(d.Sources, src)
	}
	sort.Strings(d.Sources)
	return d, nil
}

// countReservations adds one location's reservations to the arrivals by
// source and to the counts that need attention.
func (s *Office) countReservations(ctx context.Context, slug string, d *Dashboard, end civil.Date, now time.Time) error {
	f := store.ReservationFilter{Location: slug, From: d.Today.String(), To: end.String()}
	return s.eachReservation(ctx, f, func(r reservation.Reservation) error {
		if r.State == reservation.OnHold {
			return nil // a platform's tentative hold is no one's arrival yet
		}
		if r.Attention != "" {
			d.Flagged++
		}
		in, err := civil.Parse(r.FirstSlot())
		if err != nil {
			return nil
		}
		if in.String() == d.Today.String() && r.State.HoldsUnits() {
			d.Arrivals++
		}
		if w := d.Today.DaysUntil(in) / 7; !in.Before(d.Today) && w < DashboardWeeks && r.State != reservation.Declined && r.State != reservation.Cancelled {
			src := SourceLabel(r.Source)
			if d.BySource[src] == nil {
				d.BySource[src] = make([]int, DashboardWeeks)
			}
			d.BySource[src][w]++
		}
		if r.State.HoldsUnits() || r.State == reservation.Requested {
			notices, err := s.bookings.Notices(ctx, r.Reference, now)
			if err != nil {
				return err
			}
			for _, n := range notices {
				if n.State != reservation.NoticeSent {
					d.Undelivered++
				}
			}
		}
		return nil
	})
}

// countAwaiting adds one location's reservations awaiting a staff
// decision, however far ahead they are.
func (s *Office) countAwaiting(ctx context.Context, slug string, d *Dashboard) error {
	f := store.ReservationFilter{Location: slug, From: d.Today.String(),
		States: []string{string(reservation.Reserved), string(reservation.Requested)}}
	return s.eachReservation(ctx, f, func(r reservation.Reservation) error {
		if _, platform := r.Source.Platform(); platform && r.State == reservation.Requested {
			return nil // a platform's checkout whose hold lapsed waits for its platform, not staff
		}
		if r.State == reservation.Reserved {
			d.Pending++
		} else {
			d.Requests++
		}
		return nil
	})
}

// eachReservation calls fn with every reservation matching f, a page at
// a time; f.Limit and f.After are its own.
func (s *Office) eachReservation(ctx context.Context, f store.ReservationFilter, fn func(reservation.Reservation) error) error {
	f.Limit, f.After = 500, store.ReservationCursor{}
	for {
		page, err := reservation.List(ctx, s.st, f)
		if err != nil {
			return fmt.Errorf("list reservations: %w", err)
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(page) < f.Limit {
			return nil
		}
		last := page[len(page)-1]
		f.After = store.ReservationCursor{FirstSlot: last.FirstSlot(), Reference: last.Reference}
	}
}
