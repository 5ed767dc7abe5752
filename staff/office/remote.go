package office

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/store"
)

// Remote is how a split deployment's hub reaches the locations' staff
// reads and decisions: over the relay, each call carrying the signed-in
// login, whose scope the location enforces itself. The hub's own store
// holds no reservation.
type Remote interface {
	Reservations(ctx context.Context, slug string, by staff.User, f store.ReservationFilter) ([]reservation.Reservation, error)
	Search(ctx context.Context, slug string, by staff.User, q string, limit int) ([]reservation.Reservation, error)
	StaffView(ctx context.Context, slug string, by staff.User, ref string) (StaffView, error)
	Decide(ctx context.Context, slug string, by staff.User, d reservation.Decision) (reservation.Reservation, bool, error)
	Book(ctx context.Context, slug string, by staff.User, b Booking) (reservation.Reservation, error)
	// Dashboard is slug's charts and counts; its Today and Weeks are the
	// hub's to set.
	Dashboard(ctx context.Context, slug string, by staff.User) (Dashboard, error)
}

// LocationReadLimit bounds one location's answer to a read that spans
// locations: the worksheet's inventory read, 3 s.
const LocationReadLimit = 3 * time.Second

// UseRemote makes the office a split hub's: its staff reads and
// decisions go to the locations through r.
func (s *Office) UseRemote(r Remote) { s.remote = r }

// Remote says whether the office is a split hub's, whose reservations,
// payments and partners' bookings are the locations'.
func (s *Office) Remote() bool { return s.remote != nil }

// errNoLogin is a remote read with no signed-in login in its context.
var errNoLogin = errors.New("office: a read across locations without a signed-in login")

// remoteScope is the login of ctx and the locations of only (every one
// when "") it may see, in config order.
func (s *Office) remoteScope(ctx context.Context, only string) (staff.User, []business.Location, error) {
	u, ok := staff.UserOf(ctx)
	if !ok {
		return u, nil, errNoLogin
	}
	var locs []business.Location
	for _, l := range s.cfg.Locations {
		if u.CanSee(l.Slug) && (only == "" || only == l.Slug) {
			locs = append(locs, l)
		}
	}
	return u, locs, nil
}

// remoteReservations lists f at each location in scope, merged in the
// order of a listing, up to f.Limit.
func (s *Office) remoteReservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error) {
	u, locs, err := s.remoteScope(ctx, f.Location)
	if err != nil {
		return nil, err
	}
	rows, err := Gather(ctx, locs, LocationReadLimit, func(ctx context.Context, l business.Location) ([]reservation.Reservation, error) {
		at := f
		at.Location = l.Slug
		return s.remote.Reservations(ctx, l.Slug, u, at)
	}, ByArrival)
	s.logUnread(ctx, err)
	if f.Limit > 0 && len(rows) > f.Limit {
		rows = rows[:f.Limit] // each location gave its first f.Limit after the cursor: the first f.Limit of all are among them
	}
	return rows, err
}

// remoteSearch searches each location in scope, nearest first.
func (s *Office) remoteSearch(ctx context.Context, q, location string, limit int) ([]reservation.Reservation, error) {
	if strings.TrimSpace(q) == "" {
		return nil, reservation.ErrEmptySearch
	}
	u, locs, err := s.remoteScope(ctx, location)
	if err != nil {
		return nil, err
	}
	today := s.clock.Now().UTC().Format(time.DateOnly)
	rows, err := Gather(ctx, locs, LocationReadLimit, func(ctx context.Context, l business.Location) ([]reservation.Reservation, error) {
		return s.remote.Search(ctx, l.Slug, u, q, limit)
	}, Nearest(today))
	s.logUnread(ctx, err)
	return rows[:min(len(rows), limit)], err
}

// owner is the location of reference ref and the signed-in login, when
// the login may see it.
func (s *Office) owner(ctx context.Context, ref string) (business.Location, staff.User, error) {
	u, ok := staff.UserOf(ctx)
	if !ok {
		return business.Location{}, u, errNoLogin
	}
	l, found := s.core.LocationOf(strings.ToUpper(strings.TrimSpace(ref)))
	if !found || !u.CanSee(l.Slug) {
		return l, u, reservation.ErrNoReservation
	}
	return l, u, nil
}

// remoteDashboard adds up the dashboards of the locations in slugs the
// signed-in login may see, read in parallel.
func (s *Office) remoteDashboard(ctx context.Context, slugs []string) (Dashboard, error) {
	u, locs, err := s.remoteScope(ctx, "")
	if err != nil {
		return Dashboard{}, err
	}
	locs = slices.DeleteFunc(locs, func(l business.Location) bool { return !slices.Contains(slugs, l.Slug) })
	d := s.dashboardFrame(s.clock.Now())
	each, err := readEach(ctx, locs, LocationReadLimit, func(ctx context.Context, l business.Location) (Dashboard, error) {
		return s.remote.Dashboard(ctx, l.Slug, u)
	})
	s.logUnread(ctx, err)
	if nr, partly := NotReadOf(err); partly {
		d.Unread = nr.Locations
	}
	for i, l := range locs {
		if slices.ContainsFunc(d.Unread, func(u Unread) bool { return u.Slug == l.Slug }) {
			continue
		}
		d.add(l.Slug, each[i])
	}
	for src := range d.BySource {
		d.Sources = append(d.Sources, src)
	}
	slices.Sort(d.Sources)
	return d, nil
}

// add counts location slug's dashboard o into d.
func (d *Dashboard) add(slug string, o Dashboard) {
	if occ, ok := o.Occupancy[slug]; ok {
		d.Occupancy[slug] = occ
	}
	for src, weeks := range o.BySource {
		if d.BySource[src] == nil {
			d.BySource[src] = make([]int, DashboardWeeks)
		}
		for w := range min(len(weeks), DashboardWeeks) {
			d.BySource[src][w] += weeks[w]
		}
	}
	d.Pending += o.Pending
	d.Requests += o.Requests
	d.Arrivals += o.Arrivals
	d.Flagged += o.Flagged
	d.Undelivered += o.Undelivered
}

// logUnread logs each location a read across locations could not read:
// its slug and why, never what was asked.
func (s *Office) logUnread(ctx context.Context, err error) {
	if nr, partly := NotReadOf(err); partly {
		for _, u := range nr.Locations {
			s.log.WarnContext(ctx, "location not read for the staff screen", "location", u.Slug, "reason", u.Reason)
		}
	}
}
