package web

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/money"
	"frontdesk/reservation"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// listPageSize is how many reservations one page of the list shows.
const listPageSize = 25

// listFilter is the list's filter form as typed.
type listFilter struct {
	Location, State, Source, From, To string
	// Q searches by guest name, email, phone or reference.
	Q string
}

// listRow is one reservation in the list.
type listRow struct {
	reservation.Reservation
	LocationName, SourceLabel, Checkin, Checkout string
	Nights                                       int
	Total                                        string
	// When is the stay's dates and nights, or a timed service's start
	// and length, as the screen shows them.
	When string
	// Ref is the reference, which the screen keeps on one line.
	Ref string
	// StateText is the state in the screen's words (staffState).
	StateText string
}

// staffState words a reservation's state for the staff lists. A
// platform's booking that waits holding nothing is a checkout whose hold
// lapsed unpaid: the platform may still pay for it, and it is no request
// for staff to take.
func staffState(r reservation.Reservation) string {
	if _, platform := r.Source.Platform(); platform && r.State == reservation.Requested {
		return "checkout lapsed: holds nothing until the platform pays"
	}
	return string(r.State)
}

type listData struct {
	Filter    listFilter
	Locations []business.Location
	AllowAll  bool // owners may list every location at once
	States    []reservation.State
	Sources   []string
	Rows      []listRow
	Problem   string
	Next      template.URL // the next page; empty on the last
	// Unread are the locations a split hub could not read for the page.
	Unread []office.Unread
}

// list shows reservations matching the filter, a page at a time, in
// order of arrival. A clerk lists one of their locations at a time; a
// location outside their scope answers 404.
func (s *StaffScreen) list(w http.ResponseWriter, r *http.Request, v visit) {
	q := r.URL.Query()
	d := listData{Filter: listFilter{Location: q.Get("location"), State: q.Get("state"), Source: q.Get("source"), From: q.Get("from"), To: q.Get("to"), Q: strings.TrimSpace(q.Get("q"))},
		Locations: s.scope(v.User), AllowAll: v.User.Role == "owner", States: reservation.States(),
		Sources: []string{"chat", "form", "staff", "usp"}}
	if len(d.Locations) == 0 {
		http.NotFound(w, r)
		return
	}
	if d.Filter.Location == "" && !d.AllowAll {
		d.Filter.Location = d.Locations[0].Slug
	}
	if d.Filter.Location != "" && !v.User.CanSee(d.Filter.Location) {
		http.NotFound(w, r)
		return
	}
	// The list opens at today, not at the oldest stay kept; a filter
	// sent with an empty start lists every date.
	if !q.Has("from") && !q.Has("to") && d.Filter.Q == "" {
		l := d.Locations[0]
		if loc, ok := s.location(d.Filter.Location); ok {
			l = loc
		}
		d.Filter.From = s.today(l).String()
	}
	f := store.ReservationFilter{Location: d.Filter.Location, Source: d.Filter.Source, Limit: listPageSize + 1,
		After: store.ReservationCursor{FirstSlot: q.Get("after_slot"), Reference: q.Get("after_ref")}}
	if d.Filter.State != "" {
		if !reservation.State(d.Filter.State).Valid() {
			d.Problem = "Choose a state from the list."
		}
		f.States = []string{d.Filter.State}
	}
	for _, date := range []struct {
		text string
		into *string
		add  int
	}{{d.Filter.From, &f.From, 0}, {d.Filter.To, &f.To, 1}} {
		if date.text == "" {
			continue
		}
		day, err := civil.Parse(date.text)
		if err != nil {
			d.Problem = "A date could not be read: choose it again in its date field."
			continue
		}
		*date.into = day.AddDays(date.add).String() // "to" includes its day
	}
	if d.Problem != "" {
		s.render(w, r, v, http.StatusUnprocessableEntity, "staff_list.html", d)
		return
	}
	if f.Source == "usp" {
		f.Source = "" // every platform: filtered below
	}
	var rows []reservation.Reservation
	var err error
	if d.Filter.Q != "" {
		rows, err = s.search(r.Context(), f, d.Filter.Q)
	} else {
		rows, err = s.Core.Reservations(r.Context(), f)
	}
	d.Unread, err = unread(err)
	if err != nil {
		s.fail(w, r, "list reservations", err)
		return
	}
	if len(rows) > listPageSize && d.Filter.Q == "" {
		rows = rows[:listPageSize]
		last := rows[len(rows)-1]
		next := url.Values{}
		for k, val := range map[string]string{"location": d.Filter.Location, "state": d.Filter.State, "source": d.Filter.Source,
			"from": d.Filter.From, "to": d.Filter.To, "after_slot": last.FirstSlot(), "after_ref": last.Reference} {
			if val != "" {
				next.Set(k, val)
			}
		}
		d.Next = template.URL("/staff/reservations?" + next.Encode()) // built from encoded values only
	}
	for _, res := range rows {
		if !v.User.CanSee(res.Location) {
			continue // an owner's "all", or a clerk's location: never another's
		}
		if d.Filter.Source == "usp" && sourceKind(res.Source) != "usp" {
			continue
		}
		row := listRow{Reservation: res, LocationName: s.locationName(res.Location), SourceLabel: office.SourceLabel(res.Source), Nights: len(res.Slots),
			Total: money.Display(res.Total, s.Config.Business.Currency)}
		if in, out, err := res.Stay(); err == nil {
			row.Checkin, row.Checkout = in.String(), out.String()
		} else {
			row.Checkin = res.FirstSlot()
		}
		l, _ := s.location(res.Location)
		row.When, row.Ref, row.StateText = s.when(res, l), res.Reference, staffState(res)
		d.Rows = append(d.Rows, row)
	}
	s.render(w, r, v, http.StatusOK, "staff_list.html", d)
}

// What the core refused, as the staff screen answers it.
const (
	refusedNone    = iota
	refusedAbsent  // no such reservation, or one outside the user's scope: 404
	refusedIllegal // the reservation's state does not allow it
	refusedNoRoom  // no unit free for every slot
	refusedFields  // fields to fix (reservation.FormProblems)
	refusedFault   // anything else: a 503, its cause logged once
)

// refusal maps an error of the core onto the staff screen's answers: the
// one place the screen reads the core's and the desk's codes.
func refusal(err error) int {
	_, fields := errors.AsType[reservation.FormProblems](err)
	switch {
	case err == nil:
		return refusedNone
	case errors.Is(err, reservation.ErrNoReservation), reservation.ErrorCode(err) == reservation.CodeNotFound:
		return refusedAbsent
	case fields:
		return refusedFields
	case reservation.ErrorCode(err) == reservation.CodeIllegalTransition:
		return refusedIllegal
	case errors.Is(err, reservation.ErrUnitTaken):
		return refusedNoRoom
	}
	return refusedFault
}

// sourceKind is "usp" for every platform's source, else the source.
func sourceKind(src reservation.Source) string {
	if len(src) > 4 && src[:4] == "usp:" {
		return "usp"
	}
	return string(src)
}

// action is one staff action button.
type action struct {
	To    reservation.State
	Label string
}

type detailData struct {
	Zone *time.Location // the property's, for every time shown
	// Signature is the form request's drawn signature as a data URL.
	Signature    template.URL
	View         office.StaffView
	LocationName string
	Total        string
	Actions      []action
	Done         string // the result of the last action, after its redirect
	Problem      string
	// Start and Length are a timed service's start, in the property's
	// zone, and its length; Start is empty for a stay.
	Start, Length string
	// Arrival and Departure are a stay's dates as the locale writes
	// them, Nights and Span worded with their plurals.
	Arrival, Departure, Nights, Span string
	Ref                              string
	// Price is the total in its lines, as the guest's pages and mails
	// show it; nil when today's rates no longer split it.
	Price *priceLines
	// Pay is the reservation's payment; nil when none was begun.
	Pay *staffPay
}

// actions lists the actions staff may take on r now: those its state
// allows on checkin at today, less those the door that made it refuses
// (a booking waiting for its payment is not confirmed by hand).
func (s *StaffScreen) actions(r reservation.Reservation, checkin, today civil.Date) []action {
	out := actionsFor(r.State, checkin, today)
	return slices.DeleteFunc(out, func(a action) bool { return s.Core.Refused(r, a.To) != nil })
}

// actionsFor lists the actions staff may take on a reservation in
// state, in the words of the screen, on the location's date today: a
// stay is completed or marked a no-show only from its arrival date on.
func actionsFor(state reservation.State, checkin, today civil.Date) []action {
	if state == reservation.OnHold {
		return nil // a platform's tentative hold awaits no one: the desk refuses every staff decision on it
	}
	confirm := "Confirm"
	if state == reservation.Requested {
		confirm = "Accept (holds the room)"
	}
	arrived := !today.Before(checkin)
	var out []action
	for _, a := range []action{{reservation.Confirmed, confirm}, {reservation.Declined, "Decline"}, {reservation.Cancelled, "Cancel the reservation"},
		{reservation.Completed, "Complete (the guest has left)"}, {reservation.NoShow, "Mark no-show"}, {reservation.Moved, "Mark moved"}} {
		if (a.To == reservation.Completed || a.To == reservation.NoShow) && !arrived {
			continue
		}
		if a.To == reservation.Cancelled && state == reservation.Requested {
			continue // a request staff have not taken is declined, not cancelled
		}
		if state.CanMove(a.To) {
			out = append(out, a)
		}
	}
	return out
}

// Results of an action, named in the redirect so the page words them;
// nothing the browser sends is shown as it is.
var results = map[string]string{
	"confirmed-sent":   "Confirmed. The guest was emailed.",
	"confirmed-queued": "Confirmed. The guest's email could not be sent yet; it will be retried.",
	"confirmed-none":   "Confirmed. There is no guest email to send.",
	"declined-sent":    "Declined. The guest was emailed.",
	"declined-queued":  "Declined. The guest's email could not be sent yet; it will be retried.",
	"declined-none":    "Declined. There is no guest email to send.",
	"cancelled-sent":   "Cancelled and the room released. The guest was emailed.",
	"cancelled-queued": "Cancelled and the room released. The guest's email could not be sent yet; it will be retried.",
	"cancelled-none":   "Cancelled and the room released.",
	"completed-none":   "Marked completed.",
	"no-show-none":     "Marked a no-show; its room is released.",
	"booked":           "Booked and confirmed; the room is held.",
	"booked-start":     "Booked and confirmed; the place is held.",
	"moved-none":       "Marked moved; its room is released.",
	"early":            "A stay is completed or marked a no-show from its arrival date on; nothing changed.",
	"illegal":          "That action does not apply to the reservation as it is now; it may have changed meanwhile.",
	"noroom":           "No room of this type is free for these nights any more, so the request was not accepted. Nothing changed.",
	"refunded":         "Refund sent to the payment provider and recorded with your name and reason.",
	"refund-pending":   "Refund recorded with your name and reason; the payment provider did not answer, so it is sent again until it does.",
	"waived":           "Late-cancellation fee waived and recorded with your name and reason.",
}

// detail shows one reservation, if the user may see its location.
func (s *StaffScreen) detail(w http.ResponseWriter, r *http.Request, v visit) {
	s.showDetail(w, r, v, http.StatusOK, "")
}

// showDetail shows one reservation with status, and problem, when set,
// saying why what was just sent changed nothing.
func (s *StaffScreen) showDetail(w http.ResponseWriter, r *http.Request, v visit, status int, problem string) {
	view, err := s.Core.StaffView(r.Context(), r.PathValue("ref"), v.User.CanSee)
	if errors.Is(err, reservation.ErrNoReservation) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, "read reservation", err)
		return
	}
	l, _ := s.location(view.Location)
	checkin, _ := civil.Parse(view.Checkin)
	d := detailData{View: view, LocationName: l.Name, Actions: s.actions(view.Reservation, checkin, s.today(l)),
		Total: money.Display(view.Total, s.Config.Business.Currency), Zone: l.Zone(), Signature: template.URL(reservation.FormSignature(view.Reservation))}
	if text, ok := results[r.URL.Query().Get("done")]; ok && problem == "" {
		d.Done = text
	}
	d.Ref, d.Problem = view.Reference, problem
	if d.Pay, err = s.staffPay(r.Context(), view.Reservation, v.User); err != nil {
		s.fail(w, r, "read payment", err)
		return
	}
	if u, ok := l.Unit(view.Unit); ok {
		if p := wordPrice(s.Config.Portfolio, u, len(view.Slots), view.Guests, view.Total); len(p.Lines) > 0 {
			d.Price = p
		}
	}
	if t, ok := timedStart(view.Reservation, l); ok {
		d.Start = t.Format("Mon, Jan 2, 2006, 3:04 PM MST")
		if u, ok := l.Unit(view.Unit); ok {
			d.Length = duration(u)
		}
	} else {
		checkout, _ := civil.Parse(view.Checkout)
		d.Arrival, d.Departure = s.date(checkin), s.date(checkout)
		d.Nights, d.Span = nights(view.Nights), nights(view.Span)
	}
	s.render(w, r, v, status, "staff_detail.html", d)
}

// location is the configured location of slug.
func (s *StaffScreen) location(slug string) (business.Location, bool) {
	for _, l := range s.Config.Locations {
		if l.Slug == slug {
			return l, true
		}
	}
	return business.Location{}, false
}

// today is the date at location l now.
func (s *StaffScreen) today(l business.Location) civil.Date { return civil.Of(s.Clock.Now(), l.Zone()) }

// arrived reports whether reservation ref's arrival date has come at its
// location, for the actions that only make sense from then on.
func (s *StaffScreen) arrived(ctx context.Context, ref string, visible func(string) bool) (bool, error) {
	view, err := s.Core.StaffView(ctx, ref, visible)
	if err != nil {
		return false, err
	}
	l, _ := s.location(view.Location)
	checkin, err := civil.Parse(view.Checkin)
	return err == nil && !s.today(l).Before(checkin), nil
}

// act applies one staff action through the core, then redirects to the
// reservation, which words the result.
func (s *StaffScreen) act(w http.ResponseWriter, r *http.Request, v visit) {
	ref := r.PathValue("ref")
	to := reservation.State(r.PostForm.Get("to"))
	note := r.PostForm.Get("note")
	if len(note) > 500 {
		note = note[:500]
	}
	done := ""
	if to == reservation.Completed || to == reservation.NoShow {
		arrived, err := s.arrived(r.Context(), ref, v.User.CanSee)
		if errors.Is(err, reservation.ErrNoReservation) {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			s.fail(w, r, "read reservation", err)
			return
		}
		if !arrived {
			s.redirectDone(w, r, ref, "early")
			return
		}
	}
	moved, mailed, err := s.Core.Decide(r.Context(), reservation.Decision{Reference: ref, To: to, By: v.User.Username, Note: note, Visible: v.User.CanSee})
	switch refusal(err) {
	case refusedAbsent:
		http.NotFound(w, r)
		return
	case refusedIllegal:
		done = "illegal"
	case refusedNoRoom:
		done = "noroom"
	case refusedFault:
		s.fail(w, r, "staff decision", err)
		return
	default:
		mail := "none"
		if moved.Contact.Email != "" && (moved.State == reservation.Confirmed || moved.State == reservation.Declined || moved.State == reservation.Cancelled) {
			mail = "queued"
			if mailed {
				mail = "sent"
			}
		}
		done = string(moved.State) + "-" + mail
	}
	s.redirectDone(w, r, ref, done)
}

// redirectDone sends the browser back where the action was taken: the
// today lists when the form says so, else the reservation's page.
func (s *StaffScreen) redirectDone(w http.ResponseWriter, r *http.Request, ref, done string) {
	if back := r.PostForm.Get("back"); back == "today" {
		q := url.Values{"done": {done}, "ref": {ref}}
		if loc := r.PostForm.Get("location"); loc != "" {
			q.Set("location", loc)
		}
		http.Redirect(w, r, "/staff/today?"+q.Encode(), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/staff/reservations/"+url.PathEscape(ref)+"?done="+done, http.StatusSeeOther)
}
