package web

import (
	"context"
	"net/url"

	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/staff"
)

// moneyTotals is the owner dashboard's money section: the ledger's
// totals of the payments taken between two dates, both included, at the
// first property's zone.
type moneyTotals struct {
	From, To                             string
	Payments                             int
	Taken, Refunded, Pending, Kept, Fees string
	NoShows, Owed                        string
	Waived, Open                         int
	HasPending, HasOwed, HasNoShows      bool
	Problem                              string
}

// moneyTotals reads the totals for the range q names (pay_from, pay_to);
// by default the month so far. nil for a clerk, without a ledger, and
// without a provider while nothing was taken.
func (s *StaffScreen) moneyTotals(ctx context.Context, u staff.User, q url.Values) (*moneyTotals, error) {
	if s.Payments == nil || u.Role != staff.Owner || len(s.Config.Locations) == 0 {
		return nil, nil
	}
	zone := s.Config.Locations[0].Zone()
	today := civil.Of(s.Clock.Now(), zone)
	from, to := today.AddDays(1-s.Clock.Now().In(zone).Day()), today
	d := &moneyTotals{}
	for _, f := range []struct {
		key  string
		into *civil.Date
	}{{"pay_from", &from}, {"pay_to", &to}} {
		if v := q.Get(f.key); v != "" {
			day, err := civil.Parse(v)
			if err != nil {
				d.Problem = "A date could not be read: choose it again in its date field."
				continue
			}
			*f.into = day
		}
	}
	if to.Before(from) {
		d.Problem = "The range ends before it starts: choose the dates again."
	}
	d.From, d.To = from.String(), to.String()
	if d.Problem != "" {
		return d, nil
	}
	t, err := s.Payments.Totals(ctx, from.At(0, 0, zone), to.AddDays(1).At(0, 0, zone))
	if err != nil {
		return nil, err
	}
	if s.Payments.Ready() != nil && t.Payments == 0 && t.Open == 0 {
		return nil, nil // a business that takes no money sees no money section
	}
	cur := s.Config.Business.Currency
	show := func(n int64) string { return money.Display(n, cur) }
	d.Payments, d.Waived, d.Open = t.Payments, t.Waived, t.Open
	d.Taken, d.Refunded, d.Pending, d.Kept, d.Fees, d.NoShows, d.Owed = show(t.Taken), show(t.Refunded), show(t.Pending), show(t.Kept), show(t.Fees), show(t.NoShows), show(t.Owed)
	d.HasPending, d.HasOwed, d.HasNoShows = t.Pending > 0, t.Owed > 0, t.NoShows > 0
	return d, nil
}
