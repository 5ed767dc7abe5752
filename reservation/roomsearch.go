package reservation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/pricing"
)

// The guest site's availability search: which room types of which
// properties are free for a stay and a party, with their price. It reads
// the availability index as the booking tools do and saves nothing.

// SearchRooms answers the availability search. Problems name the fields
// to fix (checkin, checkout, guests, location) in the form's sentences.
func (c *Core) SearchRooms(ctx context.Context, q SearchRequest) (RoomSearch, error) {
	now := c.clock.Now()
	problems := FormProblems{}
	in, out, dates := stayDates(q.Checkin, q.Checkout)
	for k, v := range dates {
		problems[k] = v
	}
	guests := 1
	if g := strings.TrimSpace(q.Guests); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 || n > c.portfolio.Limits.MaxGuests {
			problems["guests"] = fmt.Sprintf("Guests must be a whole number from 1 to %d.", c.portfolio.Limits.MaxGuests)
		}
		guests = n
	}
	locations := c.portfolio.Locations
	if q.Location != "" {
		l, ok := c.Location(q.Location)
		if !ok {
			problems["location"] = "Choose a property from the list."
		}
		locations = []business.Location{l}
	}
	if len(problems) > 0 {
		return RoomSearch{}, problems
	}
	res := RoomSearch{Checkin: in, Checkout: out, Nights: in.DaysUntil(out), Guests: guests}
	for _, l := range locations {
		if day, ok := closedNight(in, res.Nights, c.portfolio.Business.Closures, l.Closures); ok {
			if res.Closed == nil {
				res.Closed = map[string]civil.Date{}
			}
			res.Closed[l.Slug] = day
			continue
		}
		free, err := c.inv.FreeNights(ctx, l, in, res.Nights)
		if err != nil {
			return RoomSearch{}, fmt.Errorf("search rooms: %w", err)
		}
		for _, f := range free {
			if c.portfolio.Sleeps(f.Unit) < guests {
				continue
			}
			quote, err := c.pricer.Quote(pricing.Stay{Location: l, RoomType: f.Unit.Type, Checkin: in.String(), Checkout: out.String(), Guests: guests}, today(l, now))
			if refusal, ok := errors.AsType[*pricing.Refusal](err); ok {
				if dateProblem := stayRefusal(c.portfolio, refusal, in, today(l, now)); dateProblem != nil {
					return RoomSearch{}, dateProblem // the dates themselves are out of bounds
				}
				res.Full = append(res.Full, l.Name+" "+f.Unit.DisplayName())
				continue
			}
			if err != nil {
				return RoomSearch{}, fmt.Errorf("search rooms: %w", err)
			}
			if f.Free < 1 {
				res.Full = append(res.Full, l.Name+" "+f.Unit.DisplayName())
				continue
			}
			res.Offers = append(res.Offers, Offer{Location: l, Unit: f.Unit, Free: f.Free, Quote: quote, Total: c.pricer.Display(quote.Total)})
		}
	}
	return res, nil
}

// closedNight is the first of nights from in that a closure in lists
// covers, if one does.
func closedNight(in civil.Date, nights int, lists ...[]business.Closure) (civil.Date, bool) {
	for i := range nights {
		d := in.AddDays(i)
		for _, list := range lists {
			for _, cl := range list {
				if cl.Covers(d.String()) {
					return d, true
				}
			}
		}
	}
	return civil.Date{}, false
}

// stayDates reads a stay's dates as the form and the search take them;
// problems name the checkin and checkout fields.
func stayDates(checkin, checkout string) (in, out civil.Date, problems FormProblems) {
	problems = FormProblems{}
	checkin, checkout = strings.TrimSpace(checkin), strings.TrimSpace(checkout)
	in, inErr := civil.Parse(checkin)
	out, outErr := civil.Parse(checkout)
	switch {
	case checkin == "":
		problems["checkin"] = "Choose an arrival date."
	case inErr != nil:
		problems["checkin"] = "The arrival date is not a real date. Choose it again."
	}
	switch {
	case checkout == "":
		problems["checkout"] = "Choose a departure date."
	case outErr != nil:
		problems["checkout"] = "The departure date is not a real date. Choose it again."
	case inErr == nil && !in.Before(out):
		problems["checkout"] = "The departure date must be after the arrival date."
	}
	return in, out, problems
}

// stayRefusal words a quote refusal that concerns the dates of any
// stay, whatever the room: in the past, too far ahead or over the cap.
// Refusals of one room type give nil.
func stayRefusal(cfg business.Portfolio, r *pricing.Refusal, in, today civil.Date) FormProblems {
	switch r.Kind {
	case pricing.RefusalPast:
		return FormProblems{"checkin": fmt.Sprintf("The arrival date has already passed. Choose %s or a later date.", today)}
	case pricing.RefusalTooFar:
		return FormProblems{"checkin": fmt.Sprintf("We take requests up to %d days ahead: choose an arrival date no later than %s.", cfg.Limits.AdvanceDays, today.AddDays(cfg.Limits.AdvanceDays))}
	case pricing.RefusalOverCap, pricing.RefusalStayCap:
		max := cfg.Limits.MaxStayNights
		return FormProblems{"checkout": fmt.Sprintf("A stay can be at most %d nights: choose a departure date no later than %s.", max, in.AddDays(max))}
	}
	return nil
}
