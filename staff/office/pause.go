package office

import (
	"context"
	"time"

	"frontdesk/reservation"
)

// Pause is one adjustable chat-booking ceiling that is full now: which
// setting, for which scope, how full, and when it lifts. The dev mailbox
// lists them, so someone trying the demo who is told "Chat booking is
// briefly paused" can see which limit it was and when to try again.
type Pause struct {
	// Setting is the [limits] setting of the config file that sets the
	// ceiling; the staff screen can override it.
	Setting string
	// Location is the location's slug; "" for the whole business.
	Location    string
	Used, Limit int
	// Lifts is when one more code fits again. It is zero for a pending
	// ceiling, which lifts when staff confirm or decline a reservation or
	// its stay ends.
	Lifts time.Time
}

// Pauses lists the adjustable ceilings that are full now, business-wide
// ones first. The fixed per-mailbox limits are not listed: their budgets
// are keyed by a hash that names no address.
func (s *Office) Pauses(ctx context.Context) ([]Pause, error) {
	now := s.clock.Now()
	set, err := s.bookings.Settings(ctx)
	if err != nil {
		return nil, err
	}
	var out []Pause
	codes := func(setting, location string, key string, window time.Duration, limit int) error {
		times, err := s.bookings.AdmissionTimes(ctx, key, now, window)
		if err != nil || len(times) < limit {
			return err
		}
		// One more fits once all but limit-1 of the counted codes have
		// left the window.
		out = append(out, Pause{Setting: setting, Location: location, Used: len(times), Limit: limit,
			Lifts: times[len(times)-limit].Add(window)})
		return nil
	}
	pending := func(setting, location, scope string, limit int) error {
		n, err := reservation.Live(ctx, s.st, scope, now)
		if err == nil && n >= limit {
			out = append(out, Pause{Setting: setting, Location: location, Used: n, Limit: limit})
		}
		return err
	}
	group := s.bookings.GroupBookingKey()
	steps := []func() error{
		func() error { return codes("portfolio_email_hourly", "", group, time.Hour, set.Group.EmailHourly) },
		func() error { return codes("portfolio_email_daily", "", group, 24*time.Hour, set.Group.EmailDaily) },
		func() error {
			return codes("cancel_portfolio_daily", "", s.bookings.CancelGroupKey(), 24*time.Hour, set.Group.CancelDaily)
		},
		func() error { return pending("portfolio_pending", "", s.bookings.PendingScope(""), set.Group.Pending) },
	}
	for _, l := range s.cfg.Locations {
		local := set.Locations[l.Slug]
		steps = append(steps,
			func() error {
				return codes("location_email_hourly", l.Slug, s.bookings.LocationBookingKey(l.Slug), time.Hour, local.EmailHourly)
			},
			func() error {
				return pending("location_pending", l.Slug, s.bookings.PendingScope(l.Slug), local.Pending)
			})
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
